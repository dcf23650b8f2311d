"""Training: the single-learner adapter, imitation, PPO (SB3 or RLlib), the accusation head's fit,
run directories and their checkpoints.

What plays a trained policy (features, network, accusation head, the policy file format) is
:mod:`clue_env.policy`, which this package builds on. Needs the ``train`` extra (torch,
stable-baselines3, sb3-contrib) for everything but :mod:`~clue_env.training.adapter` and
:mod:`~clue_env.training.config`; the RLlib backend needs the ``ray`` extra.
"""
