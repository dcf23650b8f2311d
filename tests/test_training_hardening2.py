"""Issue 16, round two of hardening: the training, checkpoint, policy-file and agent-rules items
(3, 5, 7, 12, 13, 14, 17). Each test is named after its item.

The PPO runs use the smoke config (two 1,024-step chunks); the uninterrupted reference run and a
run stopped after its first checkpoint are made once per module and copied by the tests.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import errno
import io
import json
import os
import pickle
import shlex
import shutil
import zipfile

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import yaml  # noqa: E402

from clue_env.policy.checkpoint import CheckpointError, load_policy, save_policy  # noqa: E402
from clue_env.policy.network import CluePolicyNet  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SMOKE = os.path.join(ROOT, "configs", "train", "smoke.yaml")


def _train(args: list[str]) -> tuple[int, str]:
    """``train.main(args)`` with its stderr."""
    import train

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = train.main([*args, "--quiet", "--workers", "1"])
    return rc, err.getvalue()


def _config(path, **sections) -> str:
    """The smoke config with some keys replaced (``ppo={"timesteps": 1024}``), written to ``path``."""
    with open(SMOKE, encoding="utf-8") as f:
        cfg = yaml.safe_load(f)
    for k, v in sections.items():
        if isinstance(v, dict):
            cfg.setdefault(k, {}).update(v)
        else:
            cfg[k] = v
    path.write_text(yaml.safe_dump(cfg))
    return str(path)


def _weights(path) -> dict:
    return load_policy(str(path))[0].state_dict()


def _same(a, b) -> bool:
    wa, wb = _weights(a), _weights(b)
    return wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)


class _InterruptAt:
    """``atomic_write_text`` that raises KeyboardInterrupt instead of writing ``state.json`` the
    ``n``-th time: an interruption just after the model checkpoint of chunk ``n`` was written."""

    def __init__(self, real, n: int) -> None:
        self.real, self.n, self.seen = real, n, 0

    def __call__(self, path: str, text: str) -> None:
        if os.path.basename(path) == "state.json":
            self.seen += 1
            if self.seen == self.n:
                raise KeyboardInterrupt
        self.real(path, text)


def _interrupted_run(out, config: str, n: int, extra: list[str]) -> str:
    from clue_env.training import run_support  # the PPO chunk loop writes state.json

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(run_support, "atomic_write_text", _InterruptAt(run_support.atomic_write_text, n))
        rc, err = _train(["--config", config, "--out", str(out), *extra])
    assert rc == 130, err
    return err


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The uninterrupted smoke run (2,048 timesteps): its final policy file."""
    out = tmp_path_factory.mktemp("reference") / "run"
    rc, err = _train(["--config", SMOKE, "--out", str(out)])
    assert rc == 0, err
    return out / "policy.pt"


@pytest.fixture(scope="module")
def chunk1(tmp_path_factory):
    """A run of a config that says 1,024 timesteps, started with ``--timesteps 2048`` and
    interrupted just after its first checkpoint: (run directory, config path, stderr)."""
    d = tmp_path_factory.mktemp("chunk1")
    config = _config(d / "smoke_1024.yaml", ppo={"timesteps": 1024})
    out = d / "run"
    err = _interrupted_run(out, config, 1, ["--timesteps", "2048"])
    return out, config, err


def _copy(run, tmp_path):
    dst = tmp_path / "run"
    shutil.copytree(run, dst)
    return dst


# ---------------------------------------------------------------------- item 3
class _Payload:
    """Unpickling this opens (creates) ``marker``: stands for any code in a pickle."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _chunk_state(ckpt_dir) -> tuple[dict, dict]:
    """(policy state dict, optimizer state dict) of the run's last checkpoint, whatever its format."""
    pt, zp = ckpt_dir / "ppo_latest.pt", ckpt_dir / "ppo_latest.zip"
    if pt.exists():
        data = torch.load(str(pt), weights_only=True)
        return data["policy"], data["optimizer"]
    with zipfile.ZipFile(zp) as z:  # the format of older versions
        return (
            torch.load(io.BytesIO(z.read("policy.pth")), weights_only=True),
            torch.load(io.BytesIO(z.read("policy.optimizer.pth")), weights_only=True),
        )


def _sb3_zip(path, policy: dict, optimizer: dict, timesteps: int, payload: object) -> None:
    """An SB3-format checkpoint (``model.save``'s layout) whose ``data`` carries a pickled
    ``lr_schedule`` the way SB3 stores one (base64 under ``:serialized:``)."""
    data = {
        "num_timesteps": timesteps,
        "_n_updates": 2,
        "lr_schedule": {":type:": "<class 'function'>", ":serialized:": base64.b64encode(pickle.dumps(payload)).decode()},
    }
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", json.dumps(data))
        for name, obj in (("policy.pth", policy), ("policy.optimizer.pth", optimizer)):
            buf = io.BytesIO()
            torch.save(obj, buf)
            z.writestr(name, buf.getvalue())
        z.writestr("_stable_baselines3_version", "2.9.2")


def test_item3_resume_never_unpickles_an_sb3_checkpoint(chunk1, reference, tmp_path):
    """An SB3 zip (what older versions wrote) with a crafted ``lr_schedule``: resuming reads only its
    state dicts (weights_only) and counters, runs nothing, and continues exactly."""
    run, config, _ = chunk1
    out = _copy(run, tmp_path)
    ck = out / "checkpoints"
    policy, optimizer = _chunk_state(ck)
    marker = tmp_path / "pwned"
    (ck / "ppo_latest.pt").unlink(missing_ok=True)
    _sb3_zip(ck / "ppo_latest.zip", policy, optimizer, 1024, _Payload(str(marker)))
    (ck / "state.json").write_text(json.dumps({"chunks": 1, "timesteps": 1024}))
    try:
        rc, err = _train(["--config", config, "--out", str(out), "--resume"])
    finally:
        assert not marker.exists(), "resuming ran code from the checkpoint"
    assert rc == 0, err
    assert _same(out / "policy.pt", reference)
    # the run now holds a data-only checkpoint; the zip is gone
    assert (ck / "ppo_latest.pt").exists() and not (ck / "ppo_latest.zip").exists()


def test_item3_pickled_ppo_checkpoint_is_refused_and_nothing_changes(chunk1, tmp_path):
    run, config, _ = chunk1
    out = _copy(run, tmp_path)
    marker = tmp_path / "pwned"
    torch.save(
        {"format": "clue_env-ppo-checkpoint", "version": 1, "x": _Payload(str(marker))},
        str(out / "checkpoints" / "ppo_latest.pt"),
    )
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    rc, err = _train(["--config", config, "--out", str(out), "--resume"])
    assert rc == 2 and not marker.exists()
    assert "not a readable PPO checkpoint" in err and "ppo_latest.pt" in err
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before  # refused before any write


# ---------------------------------------------------------------------- item 5
def test_item5_interruption_between_model_and_state_resumes_exactly(reference, tmp_path):
    """Ctrl-C after the second chunk's model was written but before state.json: the resumed run
    does not train that chunk again; its final weights equal the uninterrupted run's, and the
    evaluation the interruption cut off is made on resume."""
    out = tmp_path / "run"
    _interrupted_run(out, SMOKE, 2, [])
    rc, err = _train(["--config", SMOKE, "--out", str(out), "--resume"])
    assert rc == 0, err
    assert _same(out / "policy.pt", reference)
    rows = [json.loads(line) for line in (out / "eval.jsonl").read_text().splitlines()]
    assert [r["timesteps"] for r in rows if r["phase"] == "ppo"] == [1024, 2048]


# ---------------------------------------------------------------------- item 7
def _fake_tournament(calls: list):
    def run_tournament(seats, games, **kw):
        calls.append(kw)
        key = seats[0]
        r = {"games": games, "win_rate": 0.5, "ci95": [0.2, 0.8], "wrong_accusations": 0}
        return {"results": {key: r}, "games": games}

    return run_tournament


def test_item7_evaluation_agent_seeds_are_secret_entropy_recorded_in_the_run(tmp_path, monkeypatch):
    import agents.tournament
    from agents.tournament import agent_seed_for

    calls: list = []
    monkeypatch.setattr(agents.tournament, "run_tournament", _fake_tournament(calls))
    init = tmp_path / "init.pt"
    save_policy(str(init), CluePolicyNet(hidden=16, card_hidden=8, context_to_card=8))
    config = _config(tmp_path / "c.yaml", init=str(init), ppo={"timesteps": 0})
    eval_seed = 10_000
    seeds = []
    for name in ("a", "b"):
        rc, err = _train(["--config", config, "--out", str(tmp_path / name)])
        assert rc == 0, err
        (call,) = calls[-1:]
        assert call["seed"] == eval_seed
        seed = call["agent_seed"]
        assert seed != eval_seed
        # no agent of any game gets the seed it would get from the public eval.seed
        assert all(agent_seed_for(seed, g, s) != agent_seed_for(eval_seed, g, s) for g in range(4) for s in range(4))
        run = json.loads((tmp_path / name / "run.json").read_text())
        assert run["eval_agent_seed"] == seed
        row = json.loads((tmp_path / name / "eval.jsonl").read_text().splitlines()[0])
        assert row["agent_seed"] == seed and row["seed"] == eval_seed
        seeds.append(seed)
    assert seeds[0] != seeds[1]  # fresh per run
    # a resumed run keeps its entropy
    (tmp_path / "a" / "eval.jsonl").unlink()
    rc, err = _train(["--config", config, "--out", str(tmp_path / "a"), "--resume"])
    assert rc == 0, err
    assert calls[-1]["agent_seed"] == seeds[0]


# ---------------------------------------------------------------------- item 12
def test_item12_policy_file_sizes_are_checked_before_the_network_is_built(tmp_path, monkeypatch):
    from clue_env.policy import network

    built: list = []
    real = network.CluePolicyNet.__init__

    def spy(self, hidden=256, card_hidden=64, context_to_card=64):
        device = str(torch.get_default_device())
        built.append((hidden, device))
        if device != "meta" and hidden > 4096:
            raise AssertionError(f"a {hidden}-wide network was allocated before its sizes were checked")
        real(self, hidden, card_hidden, context_to_card)

    path = tmp_path / "p.pt"
    save_policy(str(path), CluePolicyNet(hidden=16, card_hidden=8, context_to_card=8))
    data = torch.load(str(path), weights_only=True)
    monkeypatch.setattr(network.CluePolicyNet, "__init__", spy)
    data["net"]["hidden"] = 12000  # the 1.4 KB file: ~890 MB if built
    torch.save(data, str(path))
    with pytest.raises(CheckpointError, match=r"net\.hidden must be an integer in 1\.\.4096, got 12000"):
        load_policy(str(path))
    assert built == []
    data["net"]["hidden"] = 4000  # within bounds, but not what the weights are
    torch.save(data, str(path))
    with pytest.raises(
        CheckpointError, match=r"do not fit.*accuse_gate\.weight is \(1, 16\), the declared sizes .* make \(1, 4000\)"
    ):
        load_policy(str(path))
    assert built == [(4000, "meta")]  # only the shapes were computed, on the meta device
    for bad in ({"hidden": "16"}, {"hidden": 16, "depth": 3}, [16, 8, 8], {"hidden": True}):
        data["net"] = bad
        torch.save(data, str(path))
        with pytest.raises(CheckpointError, match="net"):
            load_policy(str(path))
    data["net"] = {"hidden": 16, "card_hidden": 8, "context_to_card": 8}
    data["state_dict"]["value_head.bias"] = torch.zeros(1, dtype=torch.int64)
    torch.save(data, str(path))
    with pytest.raises(CheckpointError, match="floating-point"):
        load_policy(str(path))
    from agents import make_agent

    with pytest.raises(CheckpointError):
        make_agent(f"ppo:{path}", seat=0, num_players=4)
    # the config's sizes have the same bounds
    from clue_env.training.config import TrainConfigError, load_train_config

    with pytest.raises(TrainConfigError, match=r"net\.hidden"):
        load_train_config({"net": {"hidden": 12000}})


# ---------------------------------------------------------------------- item 13
def test_item13_agents_get_a_read_only_copy_of_the_rules():
    from clue_env import raw_env
    from clue_env.engine.config import load_rules

    env = raw_env(num_players=3, rules=load_rules("classic", suspect_names={"scarlet": "Miss Scarlett"}))
    env.reset(seed=3)
    rules = env.rules  # what agents/tournament.py, play sessions and the web server give agents
    assert rules is not env.game.cfg and rules == env.game.cfg
    with pytest.raises(TypeError, match="read-only"):
        rules.suspect_names["scarlet"] = "Nobody"
    for mutate in (
        rules.suspect_names.clear,
        lambda: rules.suspect_names.update(white="X"),
        lambda: rules.suspect_names.pop("scarlet"),
    ):
        with pytest.raises(TypeError):
            mutate()
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.victim = "Someone"  # type: ignore[misc]
    # even going around the frozen dataclass does not reach the game
    object.__setattr__(rules, "reward_win", 100.0)
    dict.__setitem__(rules.suspect_names, "scarlet", "Nobody")
    assert env.game.cfg.reward_win == 1.0 and env.game.cfg.display("scarlet") == "Miss Scarlett"
    # a caller's dict is not kept either
    names = {"scarlet": "A"}
    cfg = load_rules("classic", suspect_names=names)
    names["scarlet"] = "B"
    assert cfg.display("scarlet") == "A"
    # still plain data where it is written out, and the same after a round trip
    assert type(cfg.to_dict()["suspect_names"]) is dict and yaml.safe_dump(cfg.to_dict())
    assert pickle.loads(pickle.dumps(cfg)) == cfg and json.loads(json.dumps(cfg.to_dict()))["suspect_names"] == {"scarlet": "A"}


# ---------------------------------------------------------------------- item 14
@pytest.mark.parametrize(
    "changes, key",
    [
        ({"rules": "clasic"}, "rules"),
        ({"eval": {"num_players": 9}}, "eval.num_players"),
        ({"seed": 2**70}, "seed must be"),
        ({"num_players": [2]}, "num_players"),
        ({"ppo": {"opponents": ["notebok"]}}, "notebok"),
        ({"eval": {"opponents": ["deduction:samples=0"]}}, "eval.opponents"),
        ({"imitation": {"lineups": [["deduction", "notebook", "notebook", "random:x=1"]]}}, "imitation.lineups"),
        ({"accusation": {"games": 10, "record": ["deduction", "notebok"]}}, "accusation.record"),
        ({"init": "no/such/policy.pt"}, "init"),
    ],
)
def test_item14_bad_configs_are_refused_before_any_work(tmp_path, changes, key):
    out = tmp_path / "run"
    rc, err = _train(["--config", _config(tmp_path / "c.yaml", **changes), "--out", str(out)])
    assert rc == 2 and "Traceback" not in err
    assert err.startswith("train.py: error:") and key in err
    assert not out.exists()  # no run.json, so a fixed config runs without --resume


def test_item14_bad_seed_override_is_refused_before_any_work(tmp_path):
    out = tmp_path / "run"
    rc, err = _train(["--config", SMOKE, "--out", str(out), "--seed", str(2**70)])
    assert rc == 2 and "seed must be" in err and not out.exists()


def test_item14_out_at_a_file_is_refused_and_the_file_kept(tmp_path):
    f = tmp_path / "notes.txt"
    f.write_text("keep me")
    for out in (f, f / "run"):
        rc, err = _train(["--config", SMOKE, "--out", str(out)])
        assert rc == 2 and "is a file" in err and "NotADirectoryError" not in err
    assert f.read_text() == "keep me"


def test_item14_full_disk_leaves_no_temporary_files(tmp_path, monkeypatch):
    """ENOSPC while the PPO checkpoint is written: a clean error, no partial or temporary file."""
    real = torch.save

    def save(obj, f, *a, **k):
        if isinstance(obj, dict) and ("param_groups" in obj or "param_groups" in obj.get("optimizer", {})):
            f.write(b"partial")
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(obj, f, *a, **k)

    monkeypatch.setattr(torch, "save", save)
    out = tmp_path / "run"
    config = _config(tmp_path / "c.yaml", imitation={"games": 0}, ppo={"timesteps": 1024})
    rc, err = _train(["--config", config, "--out", str(out)])
    assert rc == 1 and "No space left on device" in err and "--resume" in err
    left = [p.name for p in out.rglob("*") if "tmp" in p.name]
    assert left == []
    assert not (out / "checkpoints" / "ppo_latest.pt").exists()


def test_item14_state_json_without_chunks_does_not_stop_resume(chunk1, tmp_path):
    """state.json is a summary; the checkpoint holds its own chunk count."""
    run, config, _ = chunk1
    out = _copy(run, tmp_path)
    (out / "checkpoints" / "state.json").write_text("{}")
    rc, err = _train(["--config", config, "--out", str(out), "--resume"])
    assert rc == 0, err
    assert json.loads((out / "checkpoints" / "state.json").read_text())["timesteps"] == 2048


def test_item14_damaged_run_records_are_refused_before_any_write(chunk1, tmp_path):
    run, config, _ = chunk1
    out = _copy(run, tmp_path)
    for name, text, msg in (
        ("run.json", "{not json", "run.json"),
        ("checkpoints/ppo_latest.pt", "garbage", "not a readable PPO checkpoint"),
        ("config.yaml", "ppo: {n_steps: 0}", "config.yaml"),
    ):
        out2 = tmp_path / f"copy_{name.replace('/', '_')}"
        shutil.copytree(out, out2)
        (out2 / name).write_text(text)
        before = {p: p.read_bytes() for p in out2.rglob("*") if p.is_file()}
        rc, err = _train(["--config", config, "--out", str(out2), "--resume"])
        assert rc == 2 and msg in err and "Traceback" not in err, err
        assert {p: p.read_bytes() for p in out2.rglob("*") if p.is_file()} == before
    # a config that differs in more than ppo.timesteps
    other = _config(tmp_path / "other.yaml", ppo={"timesteps": 1024, "learning_rate": 1e-4})
    rc, err = _train(["--config", other, "--out", str(out), "--resume"])
    assert rc == 2 and "ppo.learning_rate" in err


# ---------------------------------------------------------------------- item 17
def test_item17_resume_as_printed_continues_to_the_recorded_target(chunk1, reference, tmp_path):
    """Started with --timesteps 2048 on a config that says 1024, interrupted after 1024: the command
    train.py prints continues to 2048, and gives the uninterrupted run's weights."""
    run, config, printed = chunk1
    line = next(ln for ln in printed.splitlines() if "continue with:" in ln)
    argv = shlex.split(line.split("continue with:", 1)[1])
    assert argv[:2] == ["python", "train.py"] and "--resume" in argv and "--timesteps" not in argv
    out = _copy(run, tmp_path)
    argv = argv[2:]
    argv[argv.index("--out") + 1] = str(out)
    assert json.loads((out / "run.json").read_text())["target_timesteps"] == 2048
    rc, err = _train(argv)
    assert rc == 0, err
    assert json.loads((out / "checkpoints" / "state.json").read_text())["timesteps"] == 2048
    assert _same(out / "policy.pt", reference)
    assert "2048 PPO timesteps" in printed  # the message says where it will stop
    # a --timesteps given on resume is the new target; one below what was trained is refused
    rc, err = _train([*argv, "--timesteps", "1024"])
    assert rc == 2 and "more than the target" in err
