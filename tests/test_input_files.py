"""Files read from a user or a run directory (policy files, network files, PPO and SB3 checkpoints,
run records, evaluation logs, rules files, training configs) are read within bounds of size, depth
and memory, and nothing in them is unpickled: each kind is planted with a pickle payload that would
create a marker file, and the marker never appears. (The RLlib checkpoint's own tests are in
tests/test_rllib.py: they need the [ray] extra.)"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import pickle
import shlex
import threading
import zipfile

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import yaml  # noqa: E402

from clue_env.engine.config import load_rules  # noqa: E402
from clue_env.engine.errors import ConfigError  # noqa: E402
from clue_env.policy import checkpoint  # noqa: E402
from clue_env.policy.checkpoint import (  # noqa: E402
    FORMAT,
    VERSION,
    CheckpointError,
    load_policy,
    read_policy_file,
    save_policy,
    torch_file_problem,
)
from clue_env.policy.features import layout_hash  # noqa: E402
from clue_env.policy.network import CluePolicyNet  # noqa: E402
from clue_env.training.config import TrainConfigError, load_train_config  # noqa: E402
from clue_env.training.ppo_checkpoint import read_ppo_checkpoint  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SMOKE = os.path.join(ROOT, "configs", "train", "smoke.yaml")
SMALL = {"hidden": 32, "card_hidden": 16, "context_to_card": 16}


class _Payload:
    """Unpickling this runs a shell command that creates ``marker``: stands for any code in a pickle."""

    def __init__(self, marker) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (os.system, (f"touch {shlex.quote(self.marker)}",))


def _header() -> dict:
    return {"format": FORMAT, "version": VERSION, "layout_hash": layout_hash()}


def _torch_bytes(obj) -> bytes:
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def _deflated(raw: bytes) -> bytes:
    """The zip archive ``raw`` with every member deflated: what a deflate bomb looks like."""
    src = zipfile.ZipFile(io.BytesIO(raw))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for m in src.infolist():
            z.writestr(m.filename, src.read(m.filename))
    return out.getvalue()


def _forbid_torch_load(monkeypatch) -> None:
    """From now on, reaching torch.load fails the test (the file should be refused before it)."""

    def refuse(*a, **kw):
        raise AssertionError("torch.load was called on a file that should have been refused unread")

    monkeypatch.setattr(torch, "load", refuse)


# ---------------------------------------------------------------------- policy and network files
def test_a_pickled_object_in_a_policy_file_is_refused_and_runs_nothing(tmp_path):
    marker = tmp_path / "MARKER"
    path = tmp_path / "p.pt"
    path.write_bytes(_torch_bytes({**_header(), "net": SMALL, "state_dict": {}, "meta": {"x": _Payload(marker)}}))
    with pytest.raises(CheckpointError, match="not a readable policy file"):
        load_policy(str(path))
    assert not marker.exists()


def test_a_pickled_object_in_a_named_network_file_is_refused_and_runs_nothing(tmp_path):
    marker = tmp_path / "MARKER"
    net = CluePolicyNet(**SMALL)
    save_policy(str(tmp_path / "net.pt"), net)
    save_policy(str(tmp_path / "head.pt"), net, network_file=str(tmp_path / "net.pt"))
    (tmp_path / "net.pt").write_bytes(_torch_bytes({**_header(), "net": SMALL, "state_dict": _Payload(marker)}))
    with pytest.raises(CheckpointError, match="net.pt' is not a readable policy file"):
        read_policy_file(str(tmp_path / "head.pt"))
    assert not marker.exists()


def test_a_compressed_policy_file_is_refused_before_torch_inflates_it(tmp_path, monkeypatch):
    """32 MiB of zeros deflate to about 32 KiB: torch.load would inflate them all before any check."""
    bomb = _deflated(_torch_bytes({**_header(), "pad": torch.zeros(8 << 20)}))
    assert len(bomb) < 100_000
    net = CluePolicyNet(**SMALL)
    save_policy(str(tmp_path / "net.pt"), net)
    save_policy(str(tmp_path / "head.pt"), net, network_file=str(tmp_path / "net.pt"))
    _forbid_torch_load(monkeypatch)
    path = tmp_path / "bomb.pt"
    path.write_bytes(bomb)
    with pytest.raises(CheckpointError, match="is compressed, and could inflate to any size") as e:
        load_policy(str(path))
    assert len(str(e.value)) < 300
    # and as the network file another policy file names
    (tmp_path / "net.pt").write_bytes(bomb)
    with pytest.raises(CheckpointError, match="compressed"):
        read_policy_file(str(tmp_path / "head.pt"))


def test_a_compressed_ppo_checkpoint_is_refused_before_torch_inflates_it(tmp_path, monkeypatch):
    path = tmp_path / "ppo_latest.pt"
    path.write_bytes(_deflated(_torch_bytes({"format": "clue_env-ppo-checkpoint", "pad": torch.zeros(1 << 20)})))
    _forbid_torch_load(monkeypatch)
    with pytest.raises(CheckpointError, match="not a readable PPO checkpoint .*compressed"):
        read_ppo_checkpoint(str(path), 1024)


def test_a_pickled_object_in_a_ppo_checkpoint_is_refused_and_runs_nothing(tmp_path):
    marker = tmp_path / "MARKER"
    path = tmp_path / "ppo_latest.pt"
    path.write_bytes(_torch_bytes({"format": "clue_env-ppo-checkpoint", "version": 1, "x": _Payload(marker)}))
    with pytest.raises(CheckpointError, match="not a readable PPO checkpoint"):
        read_ppo_checkpoint(str(path), 1024)
    assert not marker.exists()


def test_shared_and_deep_data_in_a_policy_file_is_refused(tmp_path):
    """A list shared many times over (4**12 paths in a few hundred bytes) and a list nested 100 deep:
    refused after a bounded walk, not walked (or printed) without end."""
    shared: list = [0]
    for _ in range(12):
        shared = [shared] * 4
    deep: list = [0]
    for _ in range(100):
        deep = [deep]
    for name, meta, msg in (("shared", shared, "more than 1,000,000 values"), ("deep", deep, "nests more than 32 deep")):
        path = tmp_path / f"{name}.pt"
        path.write_bytes(_torch_bytes({**_header(), "net": SMALL, "meta": {"x": meta}}))
        with pytest.raises(CheckpointError, match=msg):
            read_policy_file(str(path))


def test_a_policy_file_over_the_size_limit_or_not_a_zip_is_refused_unread(tmp_path, monkeypatch):
    _forbid_torch_load(monkeypatch)
    path = tmp_path / "p.pt"
    path.write_bytes(b"PK\x03\x04" + b"\0" * 5000)
    monkeypatch.setattr(checkpoint, "POLICY_FILE_LIMIT", 4096)
    with pytest.raises(CheckpointError, match="over the limit of 4,096"):
        load_policy(str(path))
    path.write_bytes(pickle.dumps({"format": FORMAT}))  # the legacy (pre-zip) torch format: a bare pickle
    with pytest.raises(CheckpointError, match="not a zip archive"):
        load_policy(str(path))
    (tmp_path / "d.pt").mkdir()
    with pytest.raises(CheckpointError, match="is a directory"):
        load_policy(str(tmp_path / "d.pt"))


def test_the_shipped_policy_files_fit_the_bounds():
    names = sorted(n for n in os.listdir(os.path.join(ROOT, "models")) if n.endswith(".pt"))
    assert names
    for name in names:
        path = os.path.join(ROOT, "models", name)
        with open(path, "rb") as f:
            raw = f.read()
        assert len(raw) < checkpoint.POLICY_FILE_LIMIT // 64 and torch_file_problem(raw) is None, name


# ---------------------------------------------------------------------- SB3 zips (older run directories)
def _sb3_zip(path, members: dict[str, bytes], compression=zipfile.ZIP_STORED) -> None:
    with zipfile.ZipFile(path, "w", compression) as z:
        for name, data in members.items():
            z.writestr(name, data)


def _b64_pickle(marker) -> str:
    return base64.b64encode(pickle.dumps(_Payload(marker))).decode()


def _sb3_members(marker, **replace) -> dict[str, bytes]:
    net = CluePolicyNet(**SMALL)
    data = {
        "num_timesteps": 1024,
        "_n_updates": 2,
        "lr_schedule": {":type:": "<class 'function'>", ":serialized:": _b64_pickle(marker)},
    }
    members = {
        "data": json.dumps(data).encode(),
        "policy.pth": _torch_bytes(net.state_dict()),
        "policy.optimizer.pth": _torch_bytes({"state": {}, "param_groups": []}),
    }
    members.update(replace)
    return members


def test_an_sb3_zip_keeps_its_pickles_as_text_and_refuses_pickled_state(tmp_path):
    marker = tmp_path / "MARKER"
    path = tmp_path / "ppo_latest.zip"
    _sb3_zip(path, _sb3_members(marker))
    data = read_ppo_checkpoint(str(path), 1024)
    assert data["timesteps"] == 1024 and data["chunks"] == 1 and not marker.exists()
    _sb3_zip(path, _sb3_members(marker, **{"policy.pth": _torch_bytes({"w": _Payload(marker)})}))
    with pytest.raises(CheckpointError, match="not a readable SB3 checkpoint"):
        read_ppo_checkpoint(str(path), 1024)
    assert not marker.exists()


def test_an_sb3_zip_bomb_is_refused_unread(tmp_path, monkeypatch):
    path = tmp_path / "ppo_latest.zip"
    padded = json.dumps({"num_timesteps": 1024, "pad": " " * (4 << 20)}).encode()  # 4 MiB that deflates 1000-fold
    members = _sb3_members(tmp_path / "m", data=padded)
    inner_bomb = _sb3_members(tmp_path / "m", **{"policy.pth": _deflated(_torch_bytes({"w": torch.zeros(1000)}))})
    _forbid_torch_load(monkeypatch)
    _sb3_zip(path, members, zipfile.ZIP_DEFLATED)
    with pytest.raises(CheckpointError, match="'data' would inflate [0-9,]+ times; refused unread"):
        read_ppo_checkpoint(str(path), 1024)
    # a state dict entry that is itself a compressed torch file
    _sb3_zip(path, inner_bomb)
    with pytest.raises(CheckpointError, match="compressed"):
        read_ppo_checkpoint(str(path), 1024)


# ---------------------------------------------------------------------- run records and evaluation logs
def _train(args: list[str]) -> tuple[int, str]:
    import train

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = train.main([*args, "--quiet", "--workers", "1"])
    return rc, err.getvalue()


def test_a_deeply_nested_run_record_or_evaluation_log_is_a_one_line_error(tmp_path):
    nested = "[" * 100_000 + "]" * 100_000
    for run_json, eval_jsonl, what in ((nested, None, "run.json"), ("{}", '{"ok": 1}\n' + nested + "\n", "eval.jsonl' line 2")):
        out = tmp_path / what.split("'")[0]
        out.mkdir()
        (out / "run.json").write_text(run_json)
        if eval_jsonl is not None:
            (out / "eval.jsonl").write_text(eval_jsonl)
        before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
        rc, err = _train(["--config", SMOKE, "--out", str(out), "--resume"])
        assert rc == 2, err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1 and len(err) < 400, err
        assert what in err and "nested more than 32 deep" in err, err
        assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_an_evaluation_log_of_too_many_lines_is_refused(tmp_path):
    from clue_env.training import run_record

    (tmp_path / "run.json").write_text("{}")
    (tmp_path / "eval.jsonl").write_text("\n" * (run_record.EVAL_MAX_ROWS + 1))
    rc, err = _train(["--config", SMOKE, "--out", str(tmp_path), "--resume"])
    assert rc == 2 and "more than 100,000 lines" in err, err


def test_a_pickle_in_a_run_record_stays_a_string(tmp_path):
    """JSON cannot carry a pickle; a base64 pickle in run.json or eval.jsonl is read as text."""
    from agents import SpecFactory
    from clue_env.training.trainer import Trainer

    marker = tmp_path / "MARKER"
    blob = base64.b64encode(pickle.dumps(_Payload(marker))).decode()
    (tmp_path / "run.json").write_text(json.dumps({"x": blob}))
    (tmp_path / "eval.jsonl").write_text(json.dumps({"phase": "ppo", "y": blob}) + "\n")
    t = Trainer(load_train_config(SMOKE), str(tmp_path), SpecFactory, None, resume=True, progress=False)
    t._check_resume()
    assert t._run_record == {"x": blob} and t.eval_rows == [{"phase": "ppo", "y": blob}]
    assert not marker.exists()


# ---------------------------------------------------------------------- rules files and training configs
def _alias_bomb(key: str, levels: int) -> str:
    """YAML whose one key holds a list that refers, through aliases, to ``10**levels`` copies of a string."""
    items = ['&a0 "xxxxxxxxxxxxxxxxxxxx"']
    items += [f"&a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, levels + 1)]
    return f"{key}: [" + ", ".join(items) + "]\n"


def test_an_alias_bomb_rules_file_is_a_short_error(tmp_path):
    path = tmp_path / "rules.yaml"
    path.write_text(_alias_bomb("victim", 5))
    assert len(path.read_bytes()) < 400
    with pytest.raises(ConfigError) as e:
        load_rules(str(path))
    assert len(str(e.value)) < 300 and "aliases" in str(e.value), str(e.value)[:300]


def test_an_alias_bomb_training_config_is_a_short_error(tmp_path):
    path = tmp_path / "train.yaml"
    path.write_text(_alias_bomb("name", 6))
    assert len(path.read_bytes()) < 450
    with pytest.raises(TrainConfigError) as e:
        load_train_config(str(path))
    assert len(str(e.value)) < 300 and "aliases" in str(e.value), str(e.value)[:300]
    rc, err = _train(["--config", str(path), "--out", str(tmp_path / "run")])
    assert rc == 2 and len(err) < 300, err[:300]


def test_long_values_are_quoted_short_in_config_errors(tmp_path):
    long = "x" * 100_000
    rules = tmp_path / "rules.yaml"
    rules.write_text(yaml.safe_dump({"name": 5, "victim": [long]}))
    with pytest.raises(ConfigError) as e:
        load_rules(str(rules))
    assert len(str(e.value)) < 300
    for doc in ({"seed": long}, {"ppo": {"opponents": long}}, {long: 1}, {"net": {"hidden": [long]}}):
        path = tmp_path / "train.yaml"
        path.write_text(yaml.safe_dump(doc))
        with pytest.raises(TrainConfigError) as e:
            load_train_config(str(path))
        assert len(str(e.value)) < 300, str(e.value)[:300]


@pytest.mark.parametrize("kind", ["rules", "train"])
def test_python_tags_in_yaml_are_refused_and_run_nothing(tmp_path, kind):
    marker = tmp_path / "MARKER"
    path = tmp_path / f"{kind}.yaml"
    path.write_text(f"name: !!python/object/apply:os.system [{json.dumps('touch ' + shlex.quote(str(marker)))}]\n")
    with pytest.raises(ConfigError if kind == "rules" else TrainConfigError, match="not valid YAML"):
        (load_rules if kind == "rules" else load_train_config)(str(path))
    assert not marker.exists()


def test_a_rules_or_config_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "rules.yaml"
    os.mkfifo(fifo)
    errors: list[BaseException] = []

    def read() -> None:
        for load in (load_rules, load_train_config):
            try:
                load(str(fifo))
            except BaseException as e:  # noqa: BLE001 - handed to the test's thread
                errors.append(e)

    t = threading.Thread(target=read, daemon=True)
    t.start()
    t.join(timeout=20)
    if t.is_alive():  # blocked on the FIFO: let it go before failing
        for _ in range(2):
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert not t.is_alive(), "reading a FIFO blocked"
    assert [type(e) for e in errors] == [ConfigError, TrainConfigError] and all("is a FIFO" in str(e) for e in errors), errors


def test_a_recorded_games_chunk_that_would_unpack_too_far_is_refused_unread(tmp_path, monkeypatch):
    """accusation/*.npz chunks are compressed (np.savez_compressed): their declared sizes are checked
    before np.load unpacks them; a damaged one is a one-line error; an array of objects is refused."""
    import numpy as np

    from agents import SpecFactory
    from clue_env.training import accusation_fit, run_record
    from clue_env.training.trainer import Trainer

    cfg = load_train_config({"imitation": {"games": 0}, "ppo": {"timesteps": 0}, "accusation": {"games": 2}})
    t = Trainer(cfg, str(tmp_path), SpecFactory, None, resume=True, progress=False)
    chunk = tmp_path / "accusation" / "lineup0_chunk0000.npz"
    chunk.parent.mkdir()
    np.savez_compressed(chunk, x=np.zeros(1 << 19, dtype=np.float32))  # 2 MiB of zeros in a few KiB
    monkeypatch.setattr(run_record, "NPZ_UNPACKED_LIMIT", 1 << 20)

    def never(*a, **kw):
        raise AssertionError("np.load reached")

    with monkeypatch.context() as m:
        m.setattr(accusation_fit, "load_trajectories", never)
        with pytest.raises(ValueError, match="would unpack to 2,097,[0-9]+ bytes, more than 1,048,576"):
            t.accusation()
    chunk.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(ValueError, match="lineup0_chunk0000.npz.*damaged zip archive.*move it away"):
        t.accusation()
    marker = tmp_path / "MARKER"
    np.savez(chunk, lengths=np.array([_Payload(marker)], dtype=object))
    with pytest.raises(ValueError, match="lineup0_chunk0000.npz' cannot be read.*allow_pickle"):
        t.accusation()
    assert not marker.exists()
