"""The policy apart from training: what plays a policy file.

The seat's policy features (:mod:`~clue_env.policy.features`, numpy only), the network
(:mod:`~clue_env.policy.network`), the accusation head's inputs and network
(:mod:`~clue_env.policy.accusation`, :mod:`~clue_env.policy.accusation_net`,
:mod:`~clue_env.policy.opponent_model`), the bounds on a network's sizes
(:mod:`~clue_env.policy.net_sizes`), the policy file format with its bounded reader and the
planner parameters a file may set (:mod:`~clue_env.policy.checkpoint`), and the tool that links,
embeds and shows policy files (:mod:`~clue_env.policy.policy_file`).

Needs torch (the ``train`` extra) for the network, the accusation network and reading a policy
file, and never imports stable-baselines3, sb3-contrib or Ray: those belong to
:mod:`clue_env.training`, which builds on this package. Importing the package itself imports none of
its modules.
"""
