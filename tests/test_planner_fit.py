"""clue_env.training.planner_fit: the recipe stages that widen a network to read a teacher planner's room
values, move scores and suggestion scores (``room_values``) and refit those weights (``refit_scores``), at
toy sizes: what moves, what the saved file names, and how a stage resumes from its recorded chunks."""

from __future__ import annotations

import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents import SpecFactory  # noqa: E402
from clue_env.policy.checkpoint import load_accusation, load_policy, save_policy  # noqa: E402
from clue_env.policy.network import CluePolicyNet, add_move_scores, widen_for_room_values  # noqa: E402
from clue_env.training.planner_fit import (  # noqa: E402
    PlannerFitParams,
    held_out_split,
    opponent_specs,
    run_planner_fit,
    teacher_planner,
    widening_problem,
)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: the classic network with its mixed-opponent head (no room values)
CLASSIC_MIXED = os.path.join(ROOT, "models", "clue_ppo_mixed.pt")


def _params(**kw) -> PlannerFitParams:
    base = dict(players=2, rules="edition2023", teacher="deduction", opponents=("deduction",), games=3, seed=5,
                agent_seed=9, epochs=1, lr=1e-2, new_lr=0.2, fit_only_new=True)  # fmt: skip
    return PlannerFitParams(**{**base, **kw})


def _classic(room_values: int = 0) -> CluePolicyNet:
    """The classic network widened to ``room_values`` (0, 2, 3 or 4) with its new weights at zero."""
    from clue_env.policy.network import add_suggest_scores

    net = load_policy(CLASSIC_MIXED)[0]
    if room_values >= 2:
        net = widen_for_room_values(net, 2)
    if room_values >= 3:
        net = add_move_scores(net)
    if room_values >= 4:
        net = add_suggest_scores(net)
    return net


def _policy_file(tmp_path, room_values: int = 0, name: str = "policy.pt") -> str:
    """The classic network of ``room_values`` with its mixed head: a policy that plays whole games."""
    net = _classic(room_values)
    path = str(tmp_path / name)
    save_policy(path, net, {"note": "classic"}, accusation=load_accusation(CLASSIC_MIXED))
    return path


def test_mode_3_widens_a_plain_network_fits_only_its_move_weights_and_keeps_the_head(tmp_path):
    policy = _policy_file(tmp_path)
    out = tmp_path / "stage"
    p = _params(mode=3, floor_squares=True)
    ev = run_planner_fit(policy, p, str(out), SpecFactory, meta={"stage": "x"})
    assert ev["decisions"] > ev["held_out_decisions"] > 0
    assert 0 <= ev["held_out_move_accuracy_after"] <= 1 and len(ev["planner_weights"]["ms_logit"]) == 4
    net, meta = load_policy(str(out / "policy.pt"))
    assert net.room_values == 3 and net.floor_squares
    assert meta["stage"] == "x" and meta["planner_fit"]["mode"] == 3 and "planner" not in meta  # plain deduction
    base = _classic(2)
    for k, v in base.state_dict().items():  # fit_only_new: only the four move-score weights moved
        assert torch.equal(net.state_dict()[k], v), k
    assert float(net.ms_logit.detach().abs().sum()) > 0
    head, want = load_accusation(str(out / "policy.pt")), load_accusation(CLASSIC_MIXED)
    assert all(torch.equal(a, b) for a, b in zip(head.state_dict().values(), want.state_dict().values()))
    assert sorted(os.listdir(out / "decisions")) == ["chunk0000.npz", "chunk0001.npz", "chunk0002.npz"]


def test_mode_4_names_the_teachers_planner_and_a_resumed_stage_records_only_missing_chunks(tmp_path, monkeypatch):
    policy = _policy_file(tmp_path, room_values=3)
    out = tmp_path / "stage"
    p = _params(mode=4, teacher="deduction:tells=0.35,pull=avoid")
    ev = run_planner_fit(policy, p, str(out), SpecFactory)
    assert "held_out_suggest_accuracy_after" in ev
    net, meta = load_policy(str(out / "policy.pt"))
    assert net.room_values == 4 and meta["planner"] == {"tells": 0.35, "pull": "avoid"}
    first = net.ss_logit.detach().clone()
    # lose one chunk: only it is recorded again, identically; the fit is the same
    lost = out / "decisions" / "chunk0001.npz"
    lost.unlink()
    from clue_env.training import planner_fit

    recorded = []
    real = planner_fit.record_decisions
    monkeypatch.setattr(planner_fit, "record_decisions", lambda games, *a: recorded.append(list(games)) or real(games, *a))
    assert run_planner_fit(policy, p, str(out), SpecFactory) == ev
    assert recorded == [[6]]  # the second game's chunk alone
    assert torch.equal(load_policy(str(out / "policy.pt"))[0].ss_logit, first)
    # a chunk recorded for other games (another seed) is refused, naming the file
    with pytest.raises(ValueError, match="chunk0000.npz.*other games"):
        run_planner_fit(policy, _params(mode=4, teacher="deduction:tells=0.35,pull=avoid", seed=50), str(out), SpecFactory)
    (out / "decisions" / "chunk0002.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="chunk0002.npz.*move it away"):
        run_planner_fit(policy, p, str(out), SpecFactory)


def test_a_refit_moves_only_the_chosen_weights_and_scores_the_roll(tmp_path):
    four = _classic(4)
    with torch.no_grad():
        four.ms_logit.copy_(torch.tensor([1.0, 2.0, 3.0, 4.0]))
    policy = str(tmp_path / "four.pt")
    save_policy(policy, four, {"planner": {"tells": 0.35}})
    p = _params(players=4, rules="classic", teacher="deduction:tells=0.35,moves=own", opponents=("notebook",), games=2,
                refit=("moves",), roll_scores=True, fit_only_new=False)  # fmt: skip
    run_planner_fit(policy, p, str(tmp_path / "stage"), SpecFactory)
    net, meta = load_policy(str(tmp_path / "stage" / "policy.pt"))
    assert net.roll_scores and meta["planner"] == {"tells": 0.35, "moves": "own"}
    assert load_accusation(str(tmp_path / "stage" / "policy.pt")) is None
    for k, v in four.state_dict().items():
        assert torch.equal(net.state_dict()[k], v) == (k != "ms_logit"), k


def test_stages_that_cannot_fit_their_policy_are_refused_before_any_game(tmp_path):
    policy = _policy_file(tmp_path)
    out = tmp_path / "stage"
    for p, why in [
        (_params(mode=4), "mode 4 adds suggestion scores"),
        (_params(refit=("moves",)), "refit of the moves"),
        (_params(mode=2, floor_squares=True), "floor_squares goes with mode 3"),
        (_params(mode=3, players=3, rules="classic", opponents=()), "4-player mix"),
    ]:
        with pytest.raises(ValueError, match=why):
            run_planner_fit(policy, p, str(out), SpecFactory)
    assert not out.exists()
    assert widening_problem(2, 3) is None and widening_problem(4, 0, ("moves", "suggestions"), roll_scores=True) is None
    assert "roll_scores" in widening_problem(4, 0, ("suggestions",), roll_scores=True)


def test_teacher_planner_opponents_and_held_out_split():
    assert teacher_planner("deduction") == {}
    assert teacher_planner("deduction:tells=0.35,moves=own,plan=roll") == {"tells": 0.35, "moves": "own"}
    assert teacher_planner("deduction:tells=1,samples=128") == {"samples": 128}
    assert opponent_specs(4, 0, ()) == ["notebook"] * 3 and opponent_specs(4, 1, ()) == ["notebook", "notebook", "deduction"]
    assert opponent_specs(2, 3, ("deduction", "notebook")) == ["notebook"]
    train, held = held_out_split([3, 4, 5, 6], 0.1)
    assert list(held) == list(range(12, 18)) and list(train) == list(range(12))
    with pytest.raises(ValueError, match="at least 2 chunks"):
        held_out_split([5], 0.1)
    assert np.array_equal(held_out_split([1, 1], 0.9)[1], [1])  # at least one chunk is left to fit on
