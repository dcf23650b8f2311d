"""train.py end to end: smoke run, save/reload/evaluate, resume, configs and checkpoints."""

from __future__ import annotations

import os

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import numpy as np  # noqa: E402
import yaml  # noqa: E402

from agents import make_agent  # noqa: E402
from agents.tournament import run_tournament  # noqa: E402
from clue_env.policy.checkpoint import CheckpointError, load_policy, save_policy  # noqa: E402
from clue_env.policy.network import CluePolicyNet  # noqa: E402
from clue_env.training.config import TrainConfigError, load_train_config  # noqa: E402
from clue_env.training.sb3_backend import vec_env  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SMOKE = os.path.join(ROOT, "configs", "train", "smoke.yaml")


def _train(args: list[str]) -> int:
    import train

    return train.main(args)


def _weights(path: str) -> dict:
    return load_policy(path)[0].state_dict()


def test_smoke_run_trains_saves_reloads_and_evaluates(tmp_path):
    out = tmp_path / "run"
    assert _train(["--config", SMOKE, "--out", str(out), "--quiet"]) == 0
    for name in ("config.yaml", "run.json", "eval.jsonl", "policy.pt", "checkpoints/ppo_latest.pt", "checkpoints/imitation.pt"):
        assert (out / name).exists(), name
    run = yaml.safe_load((out / "run.json").read_text())
    assert run["seed"] == 0 and "commit" in run and "torch" in run["versions"]
    assert any(p.name.startswith("events") for p in (out / "tb").rglob("*"))
    net, meta = load_policy(str(out / "policy.pt"))
    assert meta["config"]["name"] == "smoke" and "train.py" in meta["command"]
    s = run_tournament([f"ppo:{out / 'policy.pt'}", "random", "random", "random"], 2, seed=0, workers=1, progress=False)
    assert s["games"] == 2
    # a second run into the same directory is refused unless resumed
    assert _train(["--config", SMOKE, "--out", str(out), "--quiet"]) == 2


def test_resume_equals_uninterrupted_run(tmp_path):
    """PPO chunks reseed everything from (seed, chunk): stopping after the first checkpoint and
    resuming gives bit-identical weights to running straight through."""
    a, b = tmp_path / "a", tmp_path / "b"
    assert _train(["--config", SMOKE, "--out", str(a), "--quiet", "--timesteps", "2048", "--workers", "1"]) == 0
    # interrupted after its first checkpoint (1024 steps)
    assert _train(["--config", SMOKE, "--out", str(b), "--quiet", "--timesteps", "1024", "--workers", "1"]) == 0
    assert _train(["--config", SMOKE, "--out", str(b), "--quiet", "--timesteps", "2048", "--resume", "--workers", "1"]) == 0
    wa, wb = _weights(str(a / "policy.pt")), _weights(str(b / "policy.pt"))
    assert wa.keys() == wb.keys()
    assert all(torch.equal(wa[k], wb[k]) for k in wa)
    # and the run really moved away from imitation
    wi = _weights(str(a / "checkpoints" / "imitation.pt"))
    assert any(not torch.equal(wa[k], wi[k]) for k in wa)


def test_resume_without_a_run_is_refused(tmp_path):
    assert _train(["--config", SMOKE, "--out", str(tmp_path / "none"), "--resume", "--quiet"]) == 2


def test_train_config_errors_name_the_key(tmp_path):
    with pytest.raises(TrainConfigError, match="ppo.n_steps"):
        load_train_config({"ppo": {"n_steps": 0}})
    with pytest.raises(TrainConfigError, match="unknown key"):
        load_train_config({"ppo": {"learning_rat": 1e-4}})
    with pytest.raises(TrainConfigError, match="does not exist"):
        load_train_config(str(tmp_path / "missing.yaml"))
    bad = tmp_path / "bad.yaml"
    bad.write_text("ppo: [unclosed")
    with pytest.raises(TrainConfigError, match="cannot read"):
        load_train_config(str(bad))
    assert _train(["--config", str(bad), "--out", str(tmp_path / "x"), "--quiet"]) == 2


@pytest.mark.parametrize("name", sorted(os.listdir(os.path.join(ROOT, "configs", "train"))))
def test_shipped_configs_load(name):
    load_train_config(os.path.join(ROOT, "configs", "train", name))


def test_corrupt_foreign_and_mismatched_checkpoints_are_refused(tmp_path):
    net = CluePolicyNet(hidden=16, card_hidden=8, context_to_card=8)
    good = tmp_path / "good.pt"
    save_policy(str(good), net, {"note": "test"})
    load_policy(str(good))
    with pytest.raises(CheckpointError, match="does not exist"):
        load_policy(str(tmp_path / "missing.pt"))
    corrupt = tmp_path / "corrupt.pt"
    corrupt.write_bytes(good.read_bytes()[:200])
    with pytest.raises(CheckpointError, match="not a readable policy file"):
        load_policy(str(corrupt))
    junk = tmp_path / "junk.pt"
    junk.write_bytes(np.random.default_rng(0).bytes(1000))
    with pytest.raises(CheckpointError, match="not a readable policy file"):
        load_policy(str(junk))
    foreign = tmp_path / "foreign.pt"
    torch.save({"weights": torch.zeros(3)}, str(foreign))
    with pytest.raises(CheckpointError, match="not a clue_env policy"):
        load_policy(str(foreign))
    data = torch.load(str(good), weights_only=True)
    data["layout_hash"] = "0123456789abcdef"
    mism = tmp_path / "mismatch.pt"
    torch.save(data, str(mism))
    with pytest.raises(CheckpointError, match="layout"):
        load_policy(str(mism))
    data = torch.load(str(good), weights_only=True)
    data["net"] = {"hidden": 32, "card_hidden": 8, "context_to_card": 8}
    torch.save(data, str(mism))
    with pytest.raises(CheckpointError, match="do not fit"):
        load_policy(str(mism))
    # the agent spec reports the same errors
    with pytest.raises(CheckpointError):
        make_agent(f"ppo:{corrupt}", seat=0, num_players=4)


def test_policy_file_is_written_atomically(tmp_path, monkeypatch):
    net = CluePolicyNet(hidden=16, card_hidden=8, context_to_card=8)
    path = tmp_path / "p.pt"
    save_policy(str(path), net)
    before = path.read_bytes()

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(torch, "save", boom)
    with pytest.raises(OSError):
        save_policy(str(path), net)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["p.pt"]


def test_ppo_in_a_mixed_lineup_trains_and_seats_every_opponent(tmp_path):
    """``ppo.opponent_draw: lineup``: the run trains, and its envs seat each opponent spec once."""
    from agents import SpecFactory
    from clue_env.training.trainer import Trainer

    with open(SMOKE) as f:
        data = yaml.safe_load(f)
    data["ppo"].update(opponents=["notebook", "random", "random"], opponent_draw="lineup", timesteps=512, n_envs=2,
                       subprocess=False)  # fmt: skip
    data["imitation"]["games"] = 2
    cfg_path = tmp_path / "lineup.yaml"
    cfg_path.write_text(yaml.safe_dump(data))
    trainer = Trainer(load_train_config(str(cfg_path)), str(tmp_path / "t"), SpecFactory, None, progress=False, workers=1)
    venv = vec_env(trainer)
    env = venv.envs[0]
    assert env.opponent_draw == "lineup"
    env.reset(seed=1)
    assert sorted(env.episode_opponents) == [0, 1, 2]
    venv.close()
    assert _train(["--config", str(cfg_path), "--out", str(tmp_path / "run"), "--quiet", "--workers", "1"]) == 0
    assert (tmp_path / "run" / "policy.pt").exists()
