"""The PPO stage's one chunk loop (``run_support.run_ppo``), driven by a fake backend: what it
writes after each chunk, when it evaluates, and where a resumed run picks up; both real backends
go through it."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

pytest.importorskip("torch")

from clue_env.policy.checkpoint import load_policy  # noqa: E402
from clue_env.policy.network import CluePolicyNet  # noqa: E402
from clue_env.training.config import load_train_config  # noqa: E402
from clue_env.training.run_support import Backend, ProgressBar, evaluation_due, run_ppo  # noqa: E402

NET = {"hidden": 16, "card_hidden": 8, "context_to_card": 8}


class FakeRun:
    """The part of a Trainer the loop uses: 5 chunks of 100 timesteps, an evaluation every 2."""

    def __init__(self, out: str, resume: bool = False) -> None:
        self.cfg = load_train_config(
            {"net": NET, "ppo": {"timesteps": 500, "n_envs": 1, "n_steps": 100, "batch_size": 50, "checkpoint_every": 100},
             "eval": {"every_checkpoints": 2}}
        )  # fmt: skip
        self.out, self.ckpt = out, os.path.join(out, "checkpoints")
        os.makedirs(self.ckpt, exist_ok=True)
        self.resume, self.progress = resume, False
        self.chunk_steps, self.n_chunks = 100, 5
        self.eval_rows: list[dict[str, Any]] = []
        self.evaluated: list[tuple[str, int]] = []

    def evaluate_policy(self, policy_path: str, timesteps: int, phase: str) -> None:
        assert os.path.exists(policy_path) and phase == "ppo"
        self.evaluated.append((os.path.basename(policy_path), timesteps))
        self.eval_rows.append({"phase": phase, "timesteps": timesteps})

    def log(self, msg: str) -> None:
        pass


class FakeBackend:
    """Counts timesteps; its 'state' is a file holding the chunks done. ``fail_in`` stops a chunk."""

    checkpoint = "fake/latest"
    policy_meta = {"backend": "fake"}

    def __init__(self, run: FakeRun, fail_in: int | None = None) -> None:
        self.run, self.fail_in = run, fail_in
        self.calls: list[Any] = []
        self.state = os.path.join(run.ckpt, "fake.json")

    def build(self, net: Any) -> tuple[int, int]:
        self.net, self.ts = net, 0
        done = 0
        if self.run.resume and os.path.exists(self.state):
            with open(self.state) as f:
                done, self.ts = json.load(f)
        self.calls.append(("build", done, self.ts))
        return done, self.ts

    def train_chunk(self, chunk: int, target: int, bar: ProgressBar) -> int:
        if chunk == self.fail_in:
            raise KeyboardInterrupt
        self.calls.append(("train", chunk, target))
        self.ts = target
        return self.ts

    def save(self, chunks: int, timesteps: int) -> None:
        self.calls.append(("save", chunks, timesteps))
        with open(self.state, "w") as f:
            json.dump([chunks, timesteps], f)

    def export(self) -> Any:
        return self.net

    def close(self) -> None:
        self.calls.append(("close",))


def test_evaluation_is_due_every_n_chunks_and_after_the_last():
    assert [c for c in range(0, 6) if evaluation_due(c, 2, 5)] == [2, 4, 5]
    assert not evaluation_due(0, 1, 1)


def test_the_loop_trains_commits_and_evaluates_each_chunk_in_order(tmp_path):
    run = FakeRun(str(tmp_path))
    backend = FakeBackend(run)
    net = CluePolicyNet(**NET)
    assert run_ppo(run, backend, net) is net
    trains = [c for c in backend.calls if c[0] == "train"]
    assert trains == [("train", c, (c + 1) * 100) for c in range(5)]
    assert [c for c in backend.calls if c[0] == "save"] == [("save", c + 1, (c + 1) * 100) for c in range(5)]
    assert backend.calls[-1] == ("close",)
    assert run.evaluated == [("policy_200.pt", 200), ("policy_400.pt", 400), ("policy_500.pt", 500)]
    for ts in range(100, 600, 100):
        _, meta = load_policy(str(tmp_path / "checkpoints" / f"policy_{ts}.pt"))
        assert meta["phase"] == "ppo" and meta["timesteps"] == ts and meta["backend"] == "fake"
    state = json.loads((tmp_path / "checkpoints" / "state.json").read_text())
    assert state == {"chunks": 5, "timesteps": 500, "target_timesteps": 500, "checkpoint": "fake/latest"}


def test_a_resumed_run_picks_up_at_the_last_committed_chunk_and_makes_the_missed_evaluation(tmp_path):
    run = FakeRun(str(tmp_path))
    backend = FakeBackend(run, fail_in=2)
    with pytest.raises(KeyboardInterrupt):
        run_ppo(run, backend, CluePolicyNet(**NET))
    assert backend.calls[-1] == ("close",)  # closed on the way out
    assert run.evaluated == [("policy_200.pt", 200)]
    assert json.loads((tmp_path / "checkpoints" / "state.json").read_text())["chunks"] == 2

    run = FakeRun(str(tmp_path), resume=True)  # its eval log lacks chunk 2's row: an interruption cut it off
    backend = FakeBackend(run)
    run_ppo(run, backend, CluePolicyNet(**NET))
    assert backend.calls[0] == ("build", 2, 200)
    assert [c[1] for c in backend.calls if c[0] == "train"] == [2, 3, 4]
    assert run.evaluated == [("policy_200.pt", 200), ("policy_400.pt", 400), ("policy_500.pt", 500)]

    run = FakeRun(str(tmp_path), resume=True)  # all done, its evaluation made: nothing to do
    run.eval_rows = [{"phase": "ppo", "timesteps": 500}]
    backend = FakeBackend(run)
    run_ppo(run, backend, CluePolicyNet(**NET))
    assert [c[0] for c in backend.calls] == ["build", "close"] and run.evaluated == []


def test_both_backends_are_run_through_the_one_loop(tmp_path, monkeypatch):
    from clue_env.training import trainer as trainer_module
    from clue_env.training.rllib_backend import RLlibBackend
    from clue_env.training.sb3_backend import SB3Backend

    seen: list[Any] = []

    def fake_run_ppo(run: Any, backend: Backend, net: Any) -> Any:
        seen.append(backend)
        return net

    monkeypatch.setattr(trainer_module, "run_ppo", fake_run_ppo)
    for backend, kind in (("sb3", SB3Backend), ("rllib", RLlibBackend)):
        cfg = load_train_config({"backend": backend, "net": NET, "ppo": {"timesteps": 256, "n_envs": 1, "n_steps": 128}})
        t = trainer_module.Trainer(cfg, str(tmp_path / backend), lambda spec: None, None, progress=False)
        net = CluePolicyNet(**NET)
        assert t.ppo(net) is net
        assert isinstance(seen[-1], kind) and seen[-1].run is t
        for name in ("build", "train_chunk", "save", "export", "close", "checkpoint", "policy_meta"):
            assert hasattr(kind, name)
