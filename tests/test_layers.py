"""The package layers: playing a policy needs torch but never the training libraries."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# a fresh interpreter: what importing the policy package and playing one `ppo` decision imports
_PLAY_ONE_PPO_DECISION = """
import json, sys
import clue_env.policy
import clue_env.policy.checkpoint, clue_env.policy.network, clue_env.policy.features
import clue_env.policy.accusation, clue_env.policy.accusation_net, clue_env.policy.policy_file
import clue_env
from agents import make_agent

agent = make_agent("ppo", seat=0, num_players=4)
env = clue_env.env(num_players=4)
env.reset(seed=3)
while env.agent_selection != "player_0":
    obs, _r, _t, _tr, info = env.last()
    env.step(int(obs["action_mask"].nonzero()[0][0]))
obs, _r, _t, _tr, info = env.last()
action = agent.act(obs, info)
assert obs["action_mask"][action]
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules})))
"""


def test_playing_a_ppo_policy_imports_neither_stable_baselines3_sb3_contrib_nor_ray():
    out = subprocess.run(
        [sys.executable, "-c", _PLAY_ONE_PPO_DECISION], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    )
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert "torch" in loaded  # the network did run
    assert not loaded & {"stable_baselines3", "sb3_contrib", "ray"}, sorted(loaded & {"stable_baselines3", "sb3_contrib", "ray"})
