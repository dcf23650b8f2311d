"""The RLlib backend (issue 18): train on a local Ray, save, export, reload, evaluate, resume.

Needs the ``[ray]`` extra; skipped without it (``make test`` runs these in ``.venv-ray``:
``make test-ray``). One local Ray instance (2 CPUs, its own temp dir) serves the whole module.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pickle
import shlex
import shutil
import tempfile

import pytest

pytestmark = pytest.mark.rllib

ray = pytest.importorskip("ray", reason="ray is not installed (the [ray] extra: make test-ray runs these tests)")
torch = pytest.importorskip("torch")

import numpy as np  # noqa: E402
import yaml  # noqa: E402

from agents.tournament import run_tournament  # noqa: E402
from clue_env.policy.checkpoint import load_policy, save_policy  # noqa: E402
from clue_env.policy.network import CluePolicyNet  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SMOKE = os.path.join(ROOT, "configs", "train", "rllib_smoke.yaml")


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    tmp = tempfile.mkdtemp(prefix="clue-ray-test-")
    ray.init(address="local", num_cpus=2, include_dashboard=False, _temp_dir=tmp, log_to_driver=False, logging_level="ERROR")
    try:
        yield
    finally:
        ray.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)


def _train(args: list[str]) -> int:
    import train

    return train.main(args)


def test_module_masks_and_never_gives_nan():
    from ray.rllib.core.columns import Columns

    from clue_env.training.rllib_module import MASK_KEY, OBS_KEY, CluePolicyModule

    net = CluePolicyNet(hidden=32, card_hidden=16, context_to_card=16)
    module = CluePolicyModule(
        observation_space=None, action_space=None, model_config=net.config(), inference_only=False, learner_only=False
    )
    module.net.load_state_dict(net.state_dict())
    x = torch.rand(3, net.obs_size)
    mask = torch.zeros(3, net.n_actions)
    mask[0, [0, 3]] = 1
    mask[1, 5] = 1  # row 2: all zero (the adapter's mask after an episode ends)
    out = module.forward_inference({Columns.OBS: {OBS_KEY: x, MASK_KEY: mask}})
    logits = out[Columns.ACTION_DIST_INPUTS]
    assert torch.isfinite(logits).all()
    probs = torch.softmax(logits, dim=-1)
    assert torch.isfinite(probs).all()
    assert probs[0, [0, 3]].sum() > 0.999 and probs[1, 5] > 0.999
    ref, _ = net(x)
    assert torch.allclose(logits[0, [0, 3]], ref[0, [0, 3]])
    values = module.compute_values({Columns.OBS: {OBS_KEY: x, MASK_KEY: mask}})
    assert torch.allclose(values, net.logits_and_value(x)[1])


def test_rllib_run_trains_exports_resumes_and_evaluates(tmp_path):
    """Interrupted after its first checkpoint (1,024 steps), resumed to 2,048; the policy file plays."""
    out = tmp_path / "run"
    base = ["--config", SMOKE, "--out", str(out), "--quiet", "--workers", "1"]
    assert _train([*base, "--timesteps", "1024"]) == 0
    first = json.loads((out / "checkpoints" / "state.json").read_text())
    assert first["chunks"] == 1 and first["timesteps"] >= 1024
    assert (out / "checkpoints" / "rllib" / "latest" / "progress.json").exists()
    placement = json.loads((out / "rllib_placement.json").read_text())["env_runners"]
    assert len(placement) == 2
    # resume without --backend: the run's recorded backend and layout
    assert _train([*base, "--timesteps", "2048", "--resume"]) == 0
    state = json.loads((out / "checkpoints" / "state.json").read_text())
    assert state["chunks"] == 2 and state["timesteps"] >= 2048
    run = yaml.safe_load((out / "run.json").read_text())
    assert run["versions"]["ray"] == ray.__version__ and len(run["resumed"]) == 1
    assert yaml.safe_load((out / "config.yaml").read_text())["backend"] == "rllib"
    rows = [json.loads(line) for line in (out / "eval.jsonl").read_text().splitlines()]
    assert [r["phase"] for r in rows] == ["imitation", "ppo", "ppo"]
    assert (out / "curve.png").exists()
    assert any(p.name.startswith("events") for p in (out / "tb").rglob("*"))
    # the exported policy: a plain policy file (layout hash checked on load), moved away from imitation
    net, meta = load_policy(str(out / "policy.pt"))
    imitation, _ = load_policy(str(out / "checkpoints" / "imitation.pt"))
    assert any(not torch.equal(a, b) for a, b in zip(net.state_dict().values(), imitation.state_dict().values()))
    assert meta["config"]["backend"] == "rllib"
    s = run_tournament([f"ppo:{out / 'policy.pt'}", "random", "random", "random"], 4, seed=0, workers=1, progress=False)
    assert s["games"] == 4
    # a resume that asks for fewer steps than trained is refused before anything is written
    assert _train([*base, "--timesteps", "1024", "--resume"]) == 2


def test_weights_round_trip_exactly(tmp_path):
    """Weights set into the learner come back unchanged, and export as the same network."""
    from agents import SpecFactory
    from clue_env.training.config import load_train_config
    from clue_env.training.rllib_backend import algo_config, export_net, set_module_state
    from clue_env.training.trainer import Trainer

    cfg = load_train_config(SMOKE).with_backend(num_env_runners=0, envs_per_env_runner=1)
    trainer = Trainer(cfg, str(tmp_path / "x"), SpecFactory, None, progress=False)
    net = CluePolicyNet(**cfg.net.__dict__)
    algo = algo_config(trainer, net, 0).build_algo()
    try:
        set_module_state(algo, net)
        back = export_net(algo, net)
        x = torch.rand(4, net.obs_size)
        assert torch.equal(back(x)[0], net(x)[0])
        save_policy(str(tmp_path / "p.pt"), back)
        again, _ = load_policy(str(tmp_path / "p.pt"))
        assert all(torch.equal(a, b) for a, b in zip(again.state_dict().values(), net.state_dict().values()))
    finally:
        algo.stop()
    assert np.isfinite(float(x.sum()))


def test_a_failing_env_runner_stops_the_run_loudly(tmp_path):
    """RLlib restarts failed env runners by default and trains on; here the run fails at once."""
    from clue_env.training.config import load_train_config
    from clue_env.training.rllib_backend import ppo_stage
    from clue_env.training.trainer import Trainer

    class Broken:  # defined here: pickled by value into the env runner
        def act(self, observation, info):
            raise RuntimeError("an opponent failed")

    def factory_for(spec):
        return lambda seat, n, rules, seed: Broken()

    cfg = load_train_config(
        {"backend": "rllib", "net": {"hidden": 32, "card_hidden": 16, "context_to_card": 16},
         "ppo": {"timesteps": 512, "n_envs": 4, "n_steps": 128, "batch_size": 128, "n_epochs": 1, "checkpoint_every": 512},
         "rllib": {"num_env_runners": 1, "envs_per_env_runner": 2}}
    )  # fmt: skip
    trainer = Trainer(cfg, str(tmp_path / "run"), factory_for, None, progress=False)
    trainer._prepare()
    with pytest.raises(Exception) as err:
        ppo_stage(trainer, CluePolicyNet(**cfg.net.__dict__))
    assert type(err.value).__name__ in ("ActorDiedError", "RayTaskError", "RuntimeError") or "failed" in str(err.value)
    assert not (tmp_path / "run" / "policy.pt").exists()


# ---------------------------------------------------------------------- the checkpoint is data, not code
class _Payload:
    """Unpickling this runs a shell command that creates ``marker``: stands for any code in a pickle."""

    def __init__(self, marker) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (os.system, (f"touch {shlex.quote(self.marker)}",))


@pytest.fixture(scope="module")
def rllib_run(tmp_path_factory):
    """A run directory as --resume reads it: run.json, config.yaml (the smoke config) and an RLlib
    checkpoint of chunk 1, saved from a freshly built algorithm (no env runners: quick)."""
    from agents import SpecFactory
    from clue_env.training.config import load_train_config
    from clue_env.training.rllib_backend import algo_config, save_checkpoint, set_module_state
    from clue_env.training.trainer import Trainer

    out = tmp_path_factory.mktemp("rllib_resume") / "run"
    cfg = load_train_config(SMOKE)
    trainer = Trainer(cfg.with_backend(num_env_runners=0, envs_per_env_runner=1), str(out), SpecFactory, None, progress=False)
    net = CluePolicyNet(**cfg.net.__dict__)
    algo = algo_config(trainer, net, 0).build_algo()
    try:
        set_module_state(algo, net)
        save_checkpoint(algo, str(out / "checkpoints"), 1, 1024)
    finally:
        algo.stop()
    (out / "run.json").write_text("{}")
    (out / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    return out


def _object_array_state(raw: bytes, marker) -> bytes:
    """The msgpack state ``raw`` with an array of Python objects added, as msgpack_numpy writes one
    (pickled): msgpack_numpy's decoder would unpickle it."""
    import msgpack_numpy

    state = msgpack_numpy.unpackb(raw, strict_map_key=False)
    state["planted"] = np.array([_Payload(marker)], dtype=object)
    return msgpack_numpy.packb(state)


def test_resume_refuses_pickled_rllib_state_and_runs_nothing(rllib_run, tmp_path):
    """A state.pkl where RLlib would pickle.load it, an array of objects inside a state.msgpack, a
    symbolic link: --resume refuses each before RLlib reads anything, changes nothing, runs nothing."""
    import msgpack_numpy

    marker, live = tmp_path / "MARKER", tmp_path / "LIVE"
    learner = os.path.join("checkpoints", "rllib", "latest", "learner_group", "learner")

    def pickled_state(d):
        os.unlink(d / learner / "state.msgpack")
        (d / learner / "state.pkl").write_bytes(pickle.dumps(_Payload(marker)))

    def object_array(d):
        path = d / learner / "state.msgpack"
        path.write_bytes(_object_array_state(path.read_bytes(), marker))

    def linked_state(d):
        os.unlink(d / learner / "state.msgpack")
        os.symlink("/dev/zero", d / learner / "state.msgpack")

    # the planted payloads are live: RLlib's own decoders run them
    pickle.loads(pickle.dumps(_Payload(live)))
    assert live.exists()
    live.unlink()
    msgpack_numpy.unpackb(_object_array_state((rllib_run / learner / "state.msgpack").read_bytes(), live), strict_map_key=False)
    assert live.exists()

    for plant, msg in (
        (pickled_state, "state.pkl': a pickled state file, which RLlib would load with pickle.load"),
        (object_array, "state.msgpack': an array of Python objects"),
        (linked_state, "state.msgpack': a symbolic link"),
    ):
        out = tmp_path / plant.__name__
        shutil.copytree(rllib_run, out, symlinks=True)
        plant(out)
        before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and not p.is_symlink()}
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = _train(["--config", SMOKE, "--out", str(out), "--resume", "--timesteps", "2048", "--quiet", "--workers", "1"])
        assert rc == 2 and msg in err.getvalue() and "the RLlib checkpoint is refused" in err.getvalue(), err.getvalue()
        assert "Traceback" not in err.getvalue() and len(err.getvalue().strip().splitlines()) == 1
        assert not marker.exists()
        assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and not p.is_symlink()} == before


def test_ppo_stage_restores_from_a_copy_of_the_checked_msgpack_state_only(rllib_run, tmp_path):
    """What RLlib restores from holds the checkpoint's msgpack state files and nothing else; the PPO
    stage checks the checkpoint again itself, so a state planted after the checks is refused too."""
    from agents import SpecFactory
    from clue_env.training.config import load_train_config
    from clue_env.training.rllib_backend import ppo_stage, read_checkpoint
    from clue_env.training.trainer import Trainer

    latest = rllib_run / "checkpoints" / "rllib" / "latest"
    dest = tmp_path / "staged"
    read_checkpoint(str(latest), str(dest))
    copied = sorted(str(p.relative_to(dest)) for p in dest.rglob("*") if p.is_file())
    assert copied and all(c.endswith(".msgpack") for c in copied)
    assert all((dest / c).read_bytes() == (latest / c).read_bytes() for c in copied)
    assert any(p.name.endswith(".pkl") for p in latest.rglob("*"))  # RLlib's class_and_ctor_args.pkl: never copied

    out = tmp_path / "run"
    shutil.copytree(rllib_run, out)
    state = out / "checkpoints" / "rllib" / "latest" / "learner_group" / "learner" / "state.msgpack"
    marker = tmp_path / "MARKER"
    state.write_bytes(_object_array_state(state.read_bytes(), marker))
    cfg = load_train_config(SMOKE).with_backend(num_env_runners=0, envs_per_env_runner=1)
    trainer = Trainer(cfg, str(out), SpecFactory, None, resume=True, progress=False)
    with pytest.raises(ValueError, match="an array of Python objects"):
        ppo_stage(trainer, CluePolicyNet(**cfg.net.__dict__))
    assert not marker.exists()
