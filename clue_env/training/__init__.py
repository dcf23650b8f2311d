"""Training: the single-learner adapter, the policy features and network, imitation, checkpoints.

Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib) for everything but
:mod:`~clue_env.training.features` and :mod:`~clue_env.training.adapter`.
"""
