"""Issue 15, movement imitation: phase weights on the behaviour-cloning loss, and the imitation
stage run from an ``init`` policy (DAgger rounds driven by the init file's network and head).

Phases are read from the action mask (R26 suggest, R27 refute, R28 accuse/end, R11-R22 move).
"""

from __future__ import annotations

import contextlib
import io
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import yaml  # noqa: E402

import clue_env  # noqa: E402
from clue_env.codec import PHASES, default_codec  # noqa: E402
from clue_env.policy.checkpoint import load_policy, read_policy_file, save_policy  # noqa: E402
from clue_env.policy.network import CluePolicyNet  # noqa: E402
from clue_env.training.config import TrainConfigError, load_train_config  # noqa: E402
from clue_env.training.imitation import Batch, fit, phase_weights  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SMOKE = os.path.join(ROOT, "configs", "train", "smoke.yaml")
SHIPPED = os.path.join(ROOT, "models", "clue_ppo_mixed.pt")
CODEC = default_codec()


def _mask(*idx: int) -> np.ndarray:
    m = np.zeros(CODEC.n, np.int8)
    m[list(idx)] = 1
    return m


def _game_masks(seed: int = 4, players: int = 3) -> np.ndarray:
    """The masks of every decision of a random game (no accusations), stacked."""
    env = clue_env.raw_env(num_players=players)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    while not env.game.over and env.game.turn < 80:
        m = env.observe(env.agent_selection)["action_mask"].copy()
        out.append(m.copy())
        m[CODEC.accuse_slice] = 0
        env.step(int(rng.choice(np.flatnonzero(m))))
    return np.stack(out)


# ---------------------------------------------------------------------- phases from the mask
def test_phases_r26_r27_r28_refute_before_suggest_before_move():
    assert CODEC.phase_of(_mask(CODEC.SHOW + 3, CODEC.SUGGEST)) == "refute"  # R27 wins over anything else
    assert CODEC.phase_of(_mask(CODEC.SUGGEST, CODEC.END, CODEC.ACCUSE, CODEC.ROLL)) == "suggest"  # R26
    assert CODEC.phase_of(_mask(CODEC.TOWARD + 2, CODEC.ACCUSE + 7)) == "move"
    assert CODEC.phase_of(_mask(CODEC.PASSAGE)) == "move"
    assert CODEC.phase_of(_mask(CODEC.END, CODEC.ACCUSE + 7)) == "accuse/end"  # R28
    assert CODEC.phases(_mask(CODEC.ROLL)).shape == ()


def test_phases_of_a_stack_equal_the_phase_of_each_mask():
    masks = _game_masks()
    idx = CODEC.phases(masks)
    assert idx.shape == (len(masks),)
    assert [PHASES[i] for i in idx] == [CODEC.phase_of(m) for m in masks]
    assert {"move", "accuse/end"} <= {PHASES[i] for i in idx}


# ---------------------------------------------------------------------- weighted fit
def _batch(masks: np.ndarray, seed: int = 0) -> Batch:
    rng = np.random.default_rng(seed)
    from clue_env.policy.features import POLICY_LAYOUT

    n = len(masks)
    action = np.array([int(rng.choice(np.flatnonzero(m))) for m in masks])
    obs = rng.random((n, POLICY_LAYOUT.size)).astype(np.float16)
    return Batch(obs, masks.astype(bool), action, rng.uniform(-1, 1, n).astype(np.float32))


def _state(net: CluePolicyNet) -> dict:
    return {k: v.clone() for k, v in net.state_dict().items()}


def test_phase_weights_map_each_decision_to_its_phase_weight():
    data = _batch(_game_masks())
    w = phase_weights(data, {"move": 2.0, "suggest": 0.0})
    ph = CODEC.phases(data.mask)
    assert np.all(w[ph == PHASES.index("move")] == 2.0)
    assert np.all(w[ph == PHASES.index("suggest")] == 0.0)
    assert np.all(w[ph == PHASES.index("accuse/end")] == 1.0)  # a phase not named weighs 1
    with pytest.raises(ValueError, match="unknown phase"):
        phase_weights(data, {"moves": 1.0})


def test_zero_weights_leave_the_policy_untouched():
    """A decision of weight 0 gives the policy loss no gradient: with every weight 0 and no value
    loss, a fit changes nothing."""
    data = _batch(_game_masks())
    net = CluePolicyNet(hidden=16, card_hidden=8, context_to_card=8)
    before = _state(net)
    fit(net, data, epochs=2, batch_size=16, value_coef=0.0, weights=np.zeros(len(data), np.float32))
    assert all(torch.equal(before[k], v) for k, v in net.state_dict().items())
    fit(net, data, epochs=1, batch_size=16, value_coef=0.0, weights=np.ones(len(data), np.float32))
    assert any(not torch.equal(before[k], v) for k, v in net.state_dict().items())


def test_move_only_weights_fit_the_moves_and_not_the_rest():
    """Weighted to moves, the other phases' labels do not pull the policy: two fits from the same
    start on data that differ only in the labels of non-move decisions end bit-identical, and the
    fit lowers the cross-entropy of the moves."""
    masks = _game_masks(seed=7)
    data = _batch(masks, seed=1)
    move = CODEC.phases(data.mask) == PHASES.index("move")
    assert move.any() and (~move).any()
    rng = np.random.default_rng(3)
    other = data.action.copy()
    for i in np.flatnonzero(~move):
        other[i] = int(rng.choice(np.flatnonzero(data.mask[i])))
    assert (other != data.action).any()
    scrambled = Batch(data.obs, data.mask, other, data.ret)
    w = phase_weights(data, {"suggest": 0.0, "refute": 0.0, "accuse/end": 0.0})
    torch.manual_seed(0)
    start = CluePolicyNet(hidden=32, card_hidden=8, context_to_card=8)
    nets = []
    for batch in (data, scrambled):
        net = CluePolicyNet(hidden=32, card_hidden=8, context_to_card=8)
        net.load_state_dict(_state(start))
        first = fit(net, batch, epochs=1, batch_size=64, lr=0.0, value_coef=0.0, weights=w, holdout=0.0)
        stats = fit(net, batch, epochs=20, batch_size=64, lr=3e-3, value_coef=0.0, weights=w, holdout=0.0)
        assert stats["train_ce"] < first["train_ce"]
        nets.append(net)
    a, b = (n.state_dict() for n in nets)
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_bad_weights_are_refused():
    data = _batch(_game_masks()[:20])
    net = CluePolicyNet(hidden=16, card_hidden=8, context_to_card=8)
    for bad in (np.ones(3), -np.ones(20), np.full(20, np.nan)):
        with pytest.raises(ValueError, match="weights"):
            fit(net, data, epochs=1, weights=bad)


# ---------------------------------------------------------------------- config
def _cfg(**imitation: object) -> dict:
    with open(SMOKE, encoding="utf-8") as f:
        d = yaml.safe_load(f)
    d["imitation"].update(imitation)
    return d


def test_phase_weight_and_from_init_config_errors_name_the_key():
    with pytest.raises(TrainConfigError, match="move_weight"):
        load_train_config(_cfg(move_weight=-1))
    with pytest.raises(TrainConfigError, match="at least one"):
        load_train_config(_cfg(move_weight=0, suggest_weight=0, refute_weight=0, accuse_weight=0))
    with pytest.raises(TrainConfigError, match="needs init"):
        load_train_config(_cfg(from_init=True))
    d = _cfg(from_init=True, games=0, dagger_rounds=0)
    d["init"] = SHIPPED
    with pytest.raises(TrainConfigError, match="do nothing"):
        load_train_config(d)
    d["imitation"]["dagger_rounds"] = 1
    cfg = load_train_config(d)
    assert cfg.imitates() and not cfg.imitation.weighted()
    d["imitation"]["from_init"] = False
    assert not load_train_config(d).imitates()  # init without from_init: no imitation stage, as before


# ---------------------------------------------------------------------- a run from an init file
def _train(args: list[str]) -> tuple[int, str]:
    """Run train.py's main; its exit status and everything it printed (progress and errors)."""
    import train

    out = io.StringIO()
    with contextlib.redirect_stderr(out), contextlib.redirect_stdout(out):
        rc = train.main([*args, "--workers", "1"])
    return rc, out.getvalue()


def _from_init_config(path, init: str, **imitation) -> str:
    settings: dict[str, object] = {"from_init": True, "games": 0, "dagger_rounds": 1, "dagger_games": 2,
                                   "dagger_epochs": 1, "move_weight": 1.0, "suggest_weight": 0.0,
                                   "refute_weight": 0.0, "accuse_weight": 0.0}  # fmt: skip
    d = _cfg(**{**settings, **imitation})
    d["init"] = init
    d["net"] = read_policy_file(init)["net"]
    d["ppo"]["timesteps"] = 0
    d["eval"] = {"opponents": ["random"], "games": 2, "workers": 1}
    path.write_text(yaml.safe_dump(d))
    return str(path)


def test_imitation_from_init_runs_dagger_on_the_init_policy_and_keeps_its_head(tmp_path):
    """The DAgger driver is the init file itself (network and accusation head); the refit starts
    from the init weights; the final file keeps the init's head; --resume finds the stage done."""
    config = _from_init_config(tmp_path / "c.yaml", SHIPPED)
    out = tmp_path / "run"
    rc, err = _train(["--config", config, "--out", str(out)])
    assert rc == 0, err
    init = read_policy_file(SHIPPED)
    driver = read_policy_file(str(out / "checkpoints" / "dagger_0.pt"))
    assert all(torch.equal(driver["state_dict"][k], v) for k, v in init["state_dict"].items())  # round 1: the init
    assert driver["accusation"] is not None
    final = read_policy_file(str(out / "policy.pt"))
    assert any(not torch.equal(final["state_dict"][k], v) for k, v in init["state_dict"].items())  # the refit moved it
    assert all(torch.equal(final["accusation"]["state_dict"][k], v) for k, v in init["accusation"]["state_dict"].items())
    imit = read_policy_file(str(out / "checkpoints" / "imitation.pt"))
    assert all(torch.equal(imit["state_dict"][k], v) for k, v in final["state_dict"].items())
    rc, err = _train(["--config", config, "--out", str(out), "--resume"])
    assert rc == 0, err
    assert "imitation already done" in err
    again = read_policy_file(str(out / "policy.pt"))
    assert all(torch.equal(again["state_dict"][k], v) for k, v in final["state_dict"].items())


def test_imitation_from_an_init_without_a_head_writes_a_file_without_one(tmp_path):
    init = tmp_path / "init.pt"
    save_policy(str(init), CluePolicyNet(hidden=16, card_hidden=8, context_to_card=8))
    config = _from_init_config(tmp_path / "c.yaml", str(init), games=2, epochs=1)
    rc, err = _train(["--config", config, "--out", str(tmp_path / "run")])
    assert rc == 0, err
    assert "imitation:" in err and "DAgger round 1" in err
    assert read_policy_file(str(tmp_path / "run" / "policy.pt")).get("accusation") is None
    net, _ = load_policy(str(tmp_path / "run" / "policy.pt"))
    assert net is not None
