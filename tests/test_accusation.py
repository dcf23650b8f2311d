"""The accusation head: its inputs (R31-safe, the same in recording and play), the stopping fit,
policy files that carry a head, the ppo agent that consults it, and the train.py stage."""

from __future__ import annotations

import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import clue_env  # noqa: E402
from agents import SpecFactory, make_agent  # noqa: E402
from agents.manifest import MODELS  # noqa: E402
from agents.ppo_agent import PPOAgent  # noqa: E402
from clue_env.codec import default_codec  # noqa: E402
from clue_env.engine.events import Accuse, NoRefute, Show, Suggest, Turn  # noqa: E402
from clue_env.engine.knowledge import Knowledge  # noqa: E402
from clue_env.fileio import loads_json  # noqa: E402
from clue_env.policy.accusation import (  # noqa: E402
    MAX_TRIPLES,
    STOP_FEATURES,
    RaceTracker,
    stop_features,
    triple_posterior,
)
from clue_env.policy.accusation_net import AccusationNet, accusation_state  # noqa: E402
from clue_env.policy.checkpoint import CheckpointError, load_accusation, load_policy, save_policy  # noqa: E402
from clue_env.training.accusation_fit import (  # noqa: E402
    Trajectory,
    fit_head,
    load_trajectories,
    paired_gain,
    realised_values,
    record_game,
    save_trajectories,
    stop_decisions,
)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: where the per-seat race block starts in a stop-feature vector (see accusation.stop_features)
RACE_START_FOR_TEST = STOP_FEATURES - 6 * 9 - 9
CODEC = default_codec()

#: the classic network (no head)
SHIPPED_POLICY = os.path.join(MODELS, "clue_ppo.pt")


def _deduction_game(n: int = 4, seed: int = 3, rules: str = "classic"):
    env = clue_env.raw_env(num_players=n, rules=rules)
    agents = [make_agent("deduction", seat=i, num_players=n, rules=env.rules, seed=i) for i in range(n)]
    for a in agents:
        a.reset()
    env.reset(seed=seed)
    while not env.game.over:
        name = env.agent_selection
        env.step(agents[env.game.acting].act(env.observe(name), env.infos[name]))
    return env


def test_race_tracker_counts_public_events_per_seat():
    env = _deduction_game()
    g = env.game
    events = list(env.seat_view("player_1").events)
    race = RaceTracker(4)
    race.feed(events[:10])
    race.feed(events)  # incremental: only the new ones are read
    for s in range(4):
        assert race.suggestions[s] == sum(1 for ev in g.log if isinstance(ev, Suggest) and ev.seat == s)
        assert race.shown[s] == sum(1 for ev in g.log if isinstance(ev, Show) and ev.suggester == s)
        assert race.unrefuted[s] == sum(1 for ev in g.log if isinstance(ev, NoRefute) and ev.suggester == s)
        assert race.eliminated[s] == any(isinstance(ev, Accuse) and ev.seat == s and not ev.correct for ev in g.log)
    rows = race.per_seat(1, g.turn)
    assert rows.shape == (6, 9) and rows[:4, -1].tolist() == [1, 1, 1, 1] and not rows[4:].any()
    assert rows[0, 0] == race.suggestions[1] / 10  # row 0 is me, then the seats to my left


def test_triple_posterior_is_exact_when_counting_fits_and_skipped_when_too_many():
    k = Knowledge([6, 6, 6])
    triples, how = triple_posterior(k, np.random.default_rng(0))
    assert how is None and triples == {}  # 324 possible envelopes > MAX_TRIPLES
    k = Knowledge([3, 3, 3, 3, 3, 3])
    for c in [1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 13, 14, 15, 16, 17, 18]:  # leaves 1 x 1 x 3 envelopes
        k.holds(c % 6, c)
    triples, how = triple_posterior(k, np.random.default_rng(0))
    assert how is True and len(triples) <= MAX_TRIPLES
    exact = k.exact_posterior()
    assert exact is not None
    for t, p in triples.items():
        assert p == pytest.approx(exact.triples[t])
    assert sum(triples.values()) == pytest.approx(1.0)


def test_stop_features_have_the_declared_size_and_are_finite():
    race = RaceTracker(3).per_seat(0, 0)
    f = np.zeros(POLICY_EXTRA, dtype=np.float32)
    for how in (True, False, None):
        z = stop_features(f, 0.4, how, 5, race, 12, True, 3)
        assert z.shape == (STOP_FEATURES,) and np.isfinite(z).all()


from clue_env.policy.features import SeatFeatures  # noqa: E402

POLICY_EXTRA = SeatFeatures.size


@pytest.mark.parametrize("n, rules", [(4, "classic"), (3, "classic"), (2, "edition2023"), (4, "edition2023")])
def test_recorded_trajectories_agree_with_the_game(n, rules):
    trajs = record_game([SpecFactory("deduction")] * n, rules, 11, list(range(n)), [True] * n)
    env = _deduction_game(n, 11, rules)  # the same game (same agent seeds)
    assert len(trajs) == n
    assert [t.won for t in trajs] == [float(env.game.winner == s) for s in range(n)]
    for t in trajs:
        assert t.x.shape == (len(t.correct), STOP_FEATURES) and np.isfinite(t.x).all()
        # a label points at the true envelope among the candidates; the best one's flag agrees
        for i in range(len(t.correct)):
            if t.correct[i]:
                assert t.label[i] == 0


def _toy(won: float, correct: list[float]) -> Trajectory:
    T = len(correct)
    x = np.zeros((T, STOP_FEATURES), dtype=np.float32)
    x[:, 0] = correct  # the toy's "posterior" tells the truth
    return Trajectory(0, 0, x, np.array(correct, dtype=np.float32), np.zeros((T, 8, 2), np.float32), np.full(T, -1), won)


def test_realised_values_follow_the_stopping_rule():
    t = _toy(0.0, [0, 1, 0])
    v, waits = realised_values([t], None)
    assert v.tolist() == [0.0] and waits[0].tolist() == [0.0, 0.0, 0.0]
    v, waits = realised_values([t], [np.array([False, True, False])])
    assert v.tolist() == [1.0]
    assert waits[0].tolist() == [1.0, 0.0, 0.0]  # waiting past 0 reaches the stop at 1
    v, _ = realised_values([t], [np.array([True, True, False])])
    assert v.tolist() == [0.0]  # stopped at 0 with a wrong triple: out


def test_fit_learns_to_accuse_when_its_triple_is_right_and_waiting_loses():
    rng = np.random.default_rng(0)
    trajs = []
    for _ in range(400):
        correct = (rng.random(6) < 0.3).astype(float).tolist()
        trajs.append(_toy(float(rng.random() < 0.2), correct))
    net = fit_head(trajs[:300], iterations=2, epochs=150, lr=1e-2)
    gain, half = paired_gain(trajs[300:], stop_decisions(net, trajs[300:]))
    assert gain - half > 0.3  # accusing when right beats waiting by a wide margin


def test_trajectories_round_trip_through_npz(tmp_path):
    trajs = record_game([SpecFactory("deduction")] * 3, "classic", 5, [0, 1, 2], [True] * 3)
    path = tmp_path / "t.npz"
    save_trajectories(str(path), trajs)
    back = load_trajectories(str(path))
    assert [(t.game, t.seat, t.won) for t in back] == [(t.game, t.seat, t.won) for t in trajs]
    for a, b in zip(trajs, back):
        assert np.array_equal(a.x, b.x) and np.array_equal(a.correct, b.correct) and np.array_equal(a.label, b.label)
    assert [p.name for p in tmp_path.iterdir()] == ["t.npz"]  # written atomically, no temp left


def test_a_recorded_chunk_for_other_games_is_refused_on_load(tmp_path):
    """A run reuses its recorded chunks by file name (--resume): one recorded for other game seeds (copied
    from another run, or from a config with other chunk sizes) is refused, naming the file."""
    trajs = record_game([SpecFactory("deduction")] * 3, "classic", 5, [0, 1, 2], [True] * 3)
    assert {t.game for t in trajs} == {5}
    path, old = tmp_path / "t.npz", tmp_path / "old.npz"
    save_trajectories(str(path), trajs, seeds=[5, 6])
    assert len(load_trajectories(str(path), [5, 6])) == len(trajs)
    with pytest.raises(ValueError, match=r"t.npz' was recorded for 2 games from seed 5, but this run plans 2 games from seed 6"):
        load_trajectories(str(path), [6, 7])
    with pytest.raises(ValueError, match="was recorded for 2 games"):
        load_trajectories(str(path), [5])  # a shorter (partial) chunk of the same games
    save_trajectories(str(old), trajs)  # a chunk from before seeds were stored: its games must be planned ones
    assert len(load_trajectories(str(old), [4, 5])) == len(trajs)
    with pytest.raises(ValueError, match="holds games this run does not plan there"):
        load_trajectories(str(old), [6, 7])


def _eager_head() -> AccusationNet:
    """A head that always wants to accuse (to exercise the agent's accusation path)."""
    head = AccusationNet(hidden=8)
    with torch.no_grad():
        for p in head.parameters():
            p.zero_()
        head.stop[-1].bias.fill_(5.0)
        head.cont[-1].bias.fill_(-5.0)
        head.triple.weight.copy_(torch.tensor([[1.0, 0.0]]))
    return head


def test_policy_files_carry_an_optional_head(tmp_path):
    main, meta = load_policy(SHIPPED_POLICY)
    plain = tmp_path / "plain.pt"
    save_policy(str(plain), main, meta)
    assert load_accusation(str(plain)) is None
    with_head = tmp_path / "head.pt"
    head = _eager_head()
    save_policy(str(with_head), main, meta, accusation=head)
    back = load_accusation(str(with_head))
    x = torch.randn(5, STOP_FEATURES)
    assert torch.equal(back.stop(x), head.stop(x)) and torch.equal(back.cont(x), head.cont(x))
    data = torch.load(str(with_head), weights_only=True)
    bad = dict(data, accusation={**accusation_state(head), "net": {"hidden": 8, "inputs": 7}})
    torch.save(bad, str(tmp_path / "bad.pt"))
    with pytest.raises(CheckpointError, match="inputs"):
        load_accusation(str(tmp_path / "bad.pt"))
    bad = dict(data, accusation={**accusation_state(head), "net": {"hidden": 10**6, "inputs": STOP_FEATURES}})
    torch.save(bad, str(tmp_path / "huge.pt"))
    with pytest.raises(CheckpointError, match="hidden"):
        load_accusation(str(tmp_path / "huge.pt"))
    bad = dict(data, accusation={**accusation_state(head), "state_dict": {}})
    torch.save(bad, str(tmp_path / "empty.pt"))
    with pytest.raises(CheckpointError, match="do not fit"):
        make_agent(f"ppo:{tmp_path / 'empty.pt'}", seat=0, num_players=4)


@pytest.mark.parametrize("n, rules", [(4, "classic"), (3, "classic"), (6, "classic"), (2, "edition2023"), (4, "edition2023")])
def test_ppo_with_an_eager_head_accuses_early_and_legally(n, rules):
    main, _ = load_policy(SHIPPED_POLICY)
    env = clue_env.raw_env(num_players=n, rules=rules)
    agents = [PPOAgent(0, n, env.rules, seed=1, net=main, accusation=_eager_head())]
    agents += [make_agent("random", seat=i, num_players=n, rules=env.rules, seed=i) for i in range(1, n)]
    for a in agents:
        a.reset()
    env.reset(seed=4)
    accused = False
    while not env.game.over:  # raw_env.step raises on an illegal action
        name = env.agent_selection
        seat = env.game.acting
        a = agents[seat].act(env.observe(name), env.infos[name])
        if seat == 0 and CODEC.ACCUSE <= a < CODEC.accuse_slice.stop:
            accused = True
            assert agents[0].last_accusation is not None and agents[0].last_accusation[2] is not None
        env.step(a)
    assert accused  # the head accused (at the first position with few enough possible triples)


@pytest.mark.parametrize("features", [1, 2, 3, 4, 5, 6])
def test_the_agent_computes_the_head_inputs_the_recorder_saw(features):
    """Recording and play share one feature path: a ppo agent built with a head records, at each
    accusation opportunity, the same inputs as record_game for that seat (the head's own feature
    set, told by its input size)."""
    from clue_env.policy.accusation import stop_size

    rec = record_game([SpecFactory("deduction")] * 4, "classic", 21, [5, 6, 7, 8], [True] * 4, features)
    assert rec[2].x.shape[1] == stop_size(features)
    env = clue_env.raw_env(num_players=4)
    agents = [make_agent("deduction", seat=i, num_players=4, rules=env.rules, seed=s) for i, s in enumerate([5, 6, 7, 8])]
    main, _ = load_policy(SHIPPED_POLICY)
    spy = PPOAgent(2, 4, env.rules, seed=0, net=main, accusation=AccusationNet(hidden=8, inputs=stop_size(features)))
    seen = []
    original = spy.accusation.q_values

    def record(x):
        seen.append(x[0].numpy().copy())
        return original(x)

    spy.accusation.q_values = record  # type: ignore[method-assign]
    spy.rng = np.random.default_rng(np.random.SeedSequence(7, spawn_key=(1,)))
    for a in agents + [spy]:
        a.reset()
    env.reset(seed=21)
    while not env.game.over:
        name = env.agent_selection
        seat = env.game.acting
        obs, info = env.observe(name), env.infos[name]
        if seat == 2 and obs["action_mask"][CODEC.accuse_slice].any():
            spy._accusation(obs, info)  # what the head would be asked (deduction still plays the seat)
        env.step(agents[seat].act(obs, info))
    asked = list(seen)
    solved = len(asked) - len(rec[2].x)
    assert 0 <= solved <= 2  # the recorder skips positions already proved (the agent's net accuses there)
    assert np.allclose(np.stack(asked[: len(rec[2].x)]), rec[2].x, atol=1e-6)
    head = fit_head(rec, hidden=8, iterations=1, epochs=1)  # a head fitted on them takes that feature set
    assert head.inputs == stop_size(features)


@pytest.mark.parametrize("refit", ["true", "false"])
def test_train_stage_records_fits_resumes_and_ships_a_head(tmp_path, refit):
    import train

    cfg = tmp_path / "acc.yaml"
    cfg.write_text(
        f"""
name: acc_smoke
seed: 1
rules: classic
num_players: [4]
init: {SHIPPED_POLICY}
ppo: {{timesteps: 0}}
accusation:
  games: 12
  chunk_games: 4
  lineups: [[deduction, deduction, deduction], [deduction, deduction, deduction, deduction]]
  iterations: 1
  epochs: 2
  hidden: 8
  held_out: 0.25
  balance: true
  refit: {refit}
eval: {{opponents: [random], games: 2, workers: 1}}
"""
    )
    out = tmp_path / "run"
    assert train.main(["--config", str(cfg), "--out", str(out), "--quiet", "--workers", "1"]) == 0
    chunks = sorted(p.name for p in (out / "accusation").glob("*.npz"))
    assert chunks == [f"lineup{li}_chunk{c:04d}.npz" for li in (0, 1) for c in (0, 1)]
    head = load_accusation(str(out / "policy.pt"))
    assert head is not None
    fit = loads_json((out / "accusation" / "fit.json").read_text())  # plain, finite JSON: NaN is written null
    assert fit["balance"] is True and [e["iteration"] for e in fit["held_out_curve"]] == [1]
    assert ("training games" in fit["shipped"]) == (refit == "false")
    assert {"train_gain", "held_out_gain", "held_out_half_width"} <= set(fit["held_out_curve"][0])
    # resume after losing the last chunk: it is recorded again, identically, and the head is the same
    last = out / "accusation" / chunks[-1]
    before = last.read_bytes()
    last.unlink()
    assert train.main(["--config", str(cfg), "--out", str(out), "--quiet", "--workers", "1", "--resume"]) == 0
    assert _arrays(last.read_bytes()) == _arrays(before)
    again = load_accusation(str(out / "policy.pt"))
    x = torch.randn(4, STOP_FEATURES)
    assert torch.equal(again.stop(x), head.stop(x)) and torch.equal(again.cont(x), head.cont(x))


def _arrays(data: bytes) -> dict[str, bytes]:
    import io

    with np.load(io.BytesIO(data), allow_pickle=False) as d:
        return {k: d[k].tobytes() for k in d.files}


def test_bad_accusation_config_is_refused_before_any_work(tmp_path):
    from clue_env.training.config import TrainConfigError, load_train_config

    with pytest.raises(TrainConfigError, match="accusation.held_out"):
        load_train_config({"accusation": {"held_out": 1.5}})
    with pytest.raises(TrainConfigError, match="accusation.lineups"):
        load_train_config({"accusation": {"lineups": [["deduction"]]}})
    with pytest.raises(TrainConfigError, match="unknown key"):
        load_train_config({"accusation": {"gamez": 3}})
    with pytest.raises(TrainConfigError, match="accusation.features"):
        load_train_config({"accusation": {"features": 7}})
    assert load_train_config({"accusation": {"features": 5}}).accusation.features == 5  # the opponent simulation
    assert load_train_config({"accusation": {"features": 6}}).accusation.features == 6  # + the tell posterior
    import train

    cfg = tmp_path / "typo.yaml"
    cfg.write_text("accusation: {games: 4, lineups: [[deduction, dedution, deduction]]}\n")
    assert train.main(["--config", str(cfg), "--out", str(tmp_path / "x"), "--quiet"]) == 2
    assert not (tmp_path / "x").exists()


def test_triple_posterior_falls_back_to_the_chain_when_every_importance_draw_dies(monkeypatch):
    """In tightly constrained six-player positions all 200 importance draws can hit dead ends (it
    stopped a recording run): the posterior then comes from the engine's Markov chain."""
    from clue_env.engine.knowledge import Contradiction

    k = Knowledge([3, 3, 3, 3, 3, 3])
    for c in [1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 13, 14, 15, 16]:  # a few possible envelopes, not counted exactly
        k.holds(c % 6, c)

    def dead(*a, **kw):
        raise Contradiction("no consistent deal was drawn")

    monkeypatch.setattr(Knowledge, "_count_tables", lambda self, budget: (_ for _ in ()).throw(BudgetExceeded()))
    monkeypatch.setattr(Knowledge, "importance_posterior", dead)
    triples, how = triple_posterior(k, np.random.default_rng(0))
    assert how is False and sum(triples.values()) == pytest.approx(1.0)
    monkeypatch.setattr(Knowledge, "estimate_posterior", dead)
    assert triple_posterior(k, np.random.default_rng(0)) == ({}, None)


from clue_env.engine.knowledge.base import BudgetExceeded  # noqa: E402


def test_record_mask_records_only_the_chosen_seats_and_keeps_the_game():
    """accusation.record: a line-up against weaker opponents records its deduction seats only; the
    game played (and so each recorded trajectory) is the same as with every seat recorded."""
    from clue_env.training.accusation_fit import record_games

    lineup = [SpecFactory("deduction"), SpecFactory("random"), SpecFactory("deduction")]
    every = record_games(lineup, "classic", [7, 8], 3)
    some = record_games(lineup, "classic", [7, 8], 3, record=[True, False, True])
    assert sorted((t.game, t.seat) for t in some) == [(7, 0), (7, 2), (8, 0), (8, 2)]
    full = {(t.game, t.seat): t for t in every}
    for t in some:
        f = full[(t.game, t.seat)]
        assert np.array_equal(t.x, f.x) and np.array_equal(t.correct, f.correct) and t.won == f.won
    with pytest.raises(ValueError, match="record has 2 entries for 3 seats"):
        record_games(lineup, "classic", [7], 3, record=[True, False])


def test_record_config_must_match_a_seat_of_every_lineup():
    from clue_env.training.config import TrainConfigError, load_train_config

    cfg = load_train_config({"accusation": {"record": ["deduction"], "lineups": [["deduction", "random", "random"]]}})
    assert cfg.accusation.record == ("deduction",)
    with pytest.raises(TrainConfigError, match=r"accusation.record: line-up\(s\) \[\['notebook', 'random'\]\] seat none"):
        load_train_config({"accusation": {"record": ["deduction"], "lineups": [["deduction", "random"], ["notebook", "random"]]}})
    assert load_train_config({}).accusation.record == ()  # default: every seat


def test_fit_weights_must_match_and_zero_weight_trajectories_are_ignored():
    rng = np.random.default_rng(0)

    def traj(i: int, right: float) -> Trajectory:
        x = rng.normal(size=(3, STOP_FEATURES)).astype(np.float32)
        return Trajectory(i, 0, x, np.full(3, right, np.float32), np.zeros((3, 8, 2), np.float32), np.full(3, -1), 0.0)

    trajs = [traj(i, 1.0) for i in range(20)] + [traj(i, 0.0) for i in range(20, 40)]
    with pytest.raises(ValueError, match="weights has 3 entries for 40"):
        fit_head(trajs, weights=[1.0, 1.0, 1.0], iterations=1, epochs=1)
    with pytest.raises(ValueError, match="not all zero"):
        fit_head(trajs, weights=[0.0] * 40, iterations=1, epochs=1)
    # only the always-right trajectories count: the stop net learns "right" everywhere
    net = fit_head(trajs, weights=[1.0] * 20 + [0.0] * 20, iterations=1, epochs=100, hidden=8, lr=0.02)
    with torch.inference_mode():
        p = torch.sigmoid(net.stop(torch.from_numpy(np.concatenate([t.x for t in trajs])))).mean().item()
    assert p > 0.9


# ---------------------------------------------------------------- feature set 2
def test_feature_set_2_counts_renamed_shown_cards_and_named_own_cards():
    """Per opponent: suggestions naming a card this seat showed that opponent before, and
    suggestions naming one of this seat's cards (the seat's own knowledge only, R31)."""
    from clue_env.engine.cards import WEAPON_BASE
    from clue_env.policy.accusation import PER_SEAT_V2

    me, hand = 1, [0, WEAPON_BASE + 2]
    race = RaceTracker(4, me, hand)
    events = [
        Turn(2, 1),
        Suggest(2, 3, 4, 5),  # names none of my cards
        Show(1, 2, 0),  # I showed card 0 (a suspect) to seat 2
        Turn(3, 2),
        Suggest(3, 0, 1, 1),  # seat 3 names my card 0 (I never showed it to seat 3)
        Show(0, 3, -1),  # someone else showed seat 3 a card I did not see
        Turn(2, 3),
        Suggest(2, 0, 2, 6),  # seat 2 names card 0 again (shown to it by me) and my weapon 2
    ]
    race.feed(events)
    assert race.renamed.tolist() == [0, 0, 1, 0]
    assert race.named_mine.tolist() == [0, 0, 1, 1]
    rows = race.per_seat(me, 3, features=2)
    assert rows.shape == (6, PER_SEAT_V2)
    assert rows[1, -2:].tolist() == [0.5, 0.5]  # seat 2 (one to my left): 1 of 2 suggestions each
    assert rows[2, -2:].tolist() == [0.0, 1.0]  # seat 3
    assert rows[0, -2:].tolist() == [0.0, 0.0]  # me
    assert np.array_equal(rows[:, :9], race.per_seat(me, 3))  # set 1's columns unchanged
    with pytest.raises(ValueError, match="own"):
        race.per_seat(0, 3, features=2)  # another seat's view of this tracker's private counts
    with pytest.raises(ValueError, match="feature set"):
        race.per_seat(me, 3, features=4)


def test_feature_set_2_sizes_and_a_head_of_either_set_loads():
    from clue_env.policy.accusation import FEATURE_SETS, STOP_FEATURES_V2, stop_size
    from clue_env.policy.accusation_net import AccusationNet, accusation_from_state, accusation_state

    assert stop_size(1) == STOP_FEATURES and stop_size(2) == STOP_FEATURES_V2 > STOP_FEATURES
    with pytest.raises(ValueError, match="feature set"):
        stop_size(7)
    race = RaceTracker(3, 0, [1]).per_seat(0, 0, 2)
    z = stop_features(np.zeros(POLICY_EXTRA, dtype=np.float32), 0.4, True, 5, race, 12, True, 3)
    assert z.shape == (STOP_FEATURES_V2,) and np.isfinite(z).all()
    for inputs in FEATURE_SETS:
        head = accusation_from_state(accusation_state(AccusationNet(hidden=8, inputs=inputs)))
        assert head.inputs == inputs
    with pytest.raises(ValueError, match="feature set"):
        accusation_from_state(accusation_state(AccusationNet(hidden=8, inputs=STOP_FEATURES + 1)))


# ---------------------------------------------------------------- feature set 3
def test_feature_set_3_counts_suggestions_naming_a_card_the_suggester_is_proved_to_hold():
    """Per opponent: whether and how often its suggestions named a card this seat's engine has
    proved it holds (counted again as the proof arrives: a later Show proves an earlier naming),
    and the proved share of its hand; set 2's columns are unchanged."""
    from clue_env.engine.cards import ROOM_BASE, WEAPON_BASE
    from clue_env.policy.accusation import PER_SEAT_V2, PER_SEAT_V3

    me, hand = 0, [1]
    k = Knowledge([5, 5, 4, 4])
    k.holds(me, 1)
    race = RaceTracker(4, me, hand)
    events = [
        Turn(1, 1),
        Suggest(1, 3, 4, 5),  # seat 1 names suspect 3, weapon 4, room 5
        Turn(2, 2),
        Suggest(2, 2, 0, 0),
    ]
    race.feed(events)
    rows = race.per_seat(me, 2, features=3, knowledge=k)
    assert rows.shape == (6, PER_SEAT_V3)
    assert rows[1, PER_SEAT_V2:].tolist() == [0.0, 0.0, 0.0]  # nothing proved about seat 1 yet
    k.holds(1, WEAPON_BASE + 4)  # seat 1 later showed me weapon 4: it named a card of its own
    k.holds(1, 7)
    rows = race.per_seat(me, 2, features=3, knowledge=k)
    assert rows[1, PER_SEAT_V2:].tolist() == [1.0, 1.0, 2 / 5]
    assert rows[2, PER_SEAT_V2:].tolist() == [0.0, 0.0, 0.0]
    assert rows[0, PER_SEAT_V2:].tolist() == [0.0, 0.0, 1.0]  # my own row: constant
    k.holds(2, ROOM_BASE + 1)  # a card seat 2 did not name
    assert race.per_seat(me, 2, features=3, knowledge=k)[2, PER_SEAT_V2:].tolist() == [0.0, 0.0, 0.25]
    assert np.array_equal(rows[:, :PER_SEAT_V2], race.per_seat(me, 2, features=2))
    with pytest.raises(ValueError, match="knowledge"):
        race.per_seat(me, 2, features=3)
    assert race.held_named(1, k) == (1, 2)


def test_feature_set_3_tells_a_notebook_opponent_from_a_deduction_one():
    """The point of set 3: notebook never names a card it holds, deduction does (probing). Over
    a few recorded 4-player games with two of each as opponents, the proved-own-card naming shows
    up for deduction opponents and (almost) never for notebook ones."""
    from clue_env.policy.accusation import PER_SEAT_V2

    caught = {"deduction": [], "notebook": []}
    lineup = ["deduction", "deduction", "notebook", "deduction", "notebook"]
    for seed in range(6):
        rec = record_game([SpecFactory(s) for s in lineup], "classic", 40 + seed, [1, 2, 3, 4, 5], [True] + [False] * 4, 3)
        x = rec[0].x
        if not len(x):
            continue
        race = x[-1, RACE_START_FOR_TEST : RACE_START_FOR_TEST + 6 * (PER_SEAT_V2 + 3)].reshape(6, -1)
        for k in range(1, 5):
            caught[lineup[k]].append(race[k, PER_SEAT_V2])
    assert caught["deduction"] and caught["notebook"]
    assert np.mean(caught["deduction"]) > 0.4
    assert np.mean(caught["notebook"]) <= 0.1


# ---------------------------------------------------------------- feature set 4
def test_feature_set_4_tells_say_an_uncaught_opponent_lacks_the_suspects_and_weapons_it_named():
    """tell_knowledge: an opponent never caught naming a card it holds is taken to hold none of
    the suspects and weapons it named (not the room: it names where it stands); a caught one is
    left alone; tells that contradict the evidence give None; the seat's own knowledge is kept."""
    from clue_env.engine.cards import ROOM_BASE, WEAPON_BASE
    from clue_env.policy.accusation import tell_knowledge

    me = 0
    k = Knowledge([5, 5, 4, 4])
    k.holds(me, 1)
    race = RaceTracker(4, me, [1])
    race.feed([Turn(1, 1), Suggest(1, 3, 4, 5), Turn(2, 2), Suggest(2, 2, 0, 0), Turn(3, 3), Suggest(3, 0, 1, 2)])
    k.holds(2, 2)  # seat 2 named suspect 2, which it is proved to hold: caught
    before = list(k.poss)
    k2, applied = tell_knowledge(k, race, me)
    assert k2 is not None and applied == 2  # seats 1 and 3
    assert k.poss == before  # the seat's own knowledge is unchanged
    assert 1 not in k2.possible_locations(3) and 1 not in k2.possible_locations(WEAPON_BASE + 4)
    assert 1 in k2.possible_locations(ROOM_BASE + 5)  # rooms are not told
    assert 3 not in k2.possible_locations(0) and 3 not in k2.possible_locations(WEAPON_BASE + 1)
    assert 2 in k2.possible_locations(WEAPON_BASE + 0)  # caught: nothing assumed
    # seat 1 showed someone one of its named cards, and lacks the room: its tells cannot all hold
    k.has_one_of(1, [3, WEAPON_BASE + 4, ROOM_BASE + 5])
    k.lacks(1, [ROOM_BASE + 5])
    assert tell_knowledge(k, race, me) == (None, 2)
    assert tell_knowledge(k, RaceTracker(4, me, [1]), me)[1] == 0  # nobody suggested: nothing told


def _true_deal(game, holders):
    deal = [holders] * 21
    for seat, hand in enumerate(game.hands):
        for c in hand:
            deal[c] = seat
    return deal


def test_feature_set_4_tells_about_notebook_opponents_are_true_and_about_probers_not():
    """The point of set 4: against notebook the tells are facts (the true deal stays consistent
    with them all game); against deduction, which probes with its own cards, they are often false."""
    from clue_env.policy.accusation import tell_knowledge
    from clue_env.policy.features import SeatFeatures

    broken = {}
    for opp in ("notebook", "deduction"):
        broken[opp] = checks = 0
        for seed in range(4):
            env = clue_env.raw_env(num_players=4)
            specs = ["deduction"] + [opp] * 3
            agents = [make_agent(s, seat=i, num_players=4, rules=env.rules, seed=seed + i) for i, s in enumerate(specs)]
            for a in agents:
                a.reset()
            env.reset(seed=300 + seed)
            sf, race = SeatFeatures(0, 4), RaceTracker(4, 0, env.game.hands[0])
            while not env.game.over:
                name, seat = env.agent_selection, env.game.acting
                obs, info = env.observe(name), env.infos[name]
                if seat == 0:
                    sf.update(obs["observation"], info["seat_view"].events)
                    race.feed(info["seat_view"].events)
                    k2, applied = tell_knowledge(sf.knowledge, race, 0)
                    if applied:
                        checks += 1
                        broken[opp] += k2 is None or not k2.is_consistent(_true_deal(env.game, k2.ENV))
                env.step(agents[seat].act(obs, info))
        assert checks > 20
        broken[opp] /= checks
    assert broken["notebook"] == 0.0
    assert broken["deduction"] > 0.2


def test_feature_set_4_head_inputs_sizes_and_a_fitted_head_scores_three_inputs_a_triple():
    """head_inputs: set 3's vector is unchanged, set 4 appends TELL_FEATURES and gives the scorer a
    third input (the tell posterior); a head fitted on set-4 games takes that size, its stop target
    is whether the scorer's pick is right, and it round-trips through its stored form."""
    from clue_env.policy.accusation import STOP_FEATURES_V3, STOP_FEATURES_V4, TELL_FEATURES
    from clue_env.policy.accusation_net import accusation_from_state
    from clue_env.training.accusation_fit import scorer_correct

    assert STOP_FEATURES_V4 == STOP_FEATURES_V3 + TELL_FEATURES
    lineup = [SpecFactory(s) for s in ["deduction", "notebook", "notebook", "notebook"]]
    r3 = record_game(lineup, "classic", 77, [1, 2, 3, 4], [True, False, False, False], 3)[0]
    r4 = record_game(lineup, "classic", 77, [1, 2, 3, 4], [True, False, False, False], 4)[0]
    assert r4.x.shape == (len(r3.x), STOP_FEATURES_V4) and r4.triples.shape[1:] == (8, 3)
    # same game and seeds: set 3's part agrees wherever the posterior was counted exactly (an estimate
    # draws from the seat's generator, which set 4's second posterior also draws from)
    exact = (r3.x[:, 2] == 1) & (r4.x[:, 2] == 1)
    assert exact.sum() >= 5
    assert np.array_equal(r4.x[exact, :STOP_FEATURES_V3], r3.x[exact])
    assert np.array_equal(r4.correct[exact], r3.correct[exact])
    assert np.isfinite(r4.x).all() and (r4.x[:, STOP_FEATURES_V3] <= 1).all()
    head = fit_head([r4], hidden=8, iterations=1, epochs=2)
    assert head.inputs == STOP_FEATURES_V4 and tuple(head.triple.weight.shape) == (1, 3)
    again = accusation_from_state(accusation_state(head))
    assert torch.equal(again.triple.weight, head.triple.weight)
    picked = scorer_correct(head, [r4])[0]
    with torch.no_grad():
        scores = head.triple(torch.from_numpy(r4.triples)).squeeze(-1)
        scores = scores.masked_fill(torch.from_numpy(r4.triples).abs().sum(-1) == 0, -1e9)
    expect = (scores.argmax(-1).numpy() == r4.label) & (r4.label >= 0)
    assert np.array_equal(picked.correct, expect.astype(np.float32))
    # held-out figures judge a scorer head by its own pick (as it plays), a set-3 head by the likeliest triple
    from clue_env.training.accusation_fit import as_played

    assert np.array_equal(as_played(head, [r4])[0].correct, picked.correct)
    head3 = fit_head([r3], hidden=8, iterations=1, epochs=2)
    assert as_played(head3, [r3])[0].correct is r3.correct
    # a head whose scorer prefers the second candidate: right exactly where that one is the envelope
    with torch.no_grad():
        head.triple.weight.zero_()
        head.triple.weight[0, 2] = -1.0  # the least likely under the tell posterior wins
    second = as_played(head, [r4])[0].correct
    with torch.no_grad():
        tr = torch.from_numpy(r4.triples)
        pick = (-tr[..., 2]).masked_fill(tr.abs().sum(-1) == 0, -1e9).argmax(-1).numpy()
    assert np.array_equal(second, ((pick == r4.label) & (r4.label >= 0)).astype(np.float32))


# ---------------------------------------------------------------- bagged heads
def test_a_bagged_head_fits_averages_its_members_and_round_trips():
    """``members: k`` fits k MLPs per part on bootstrap resamples and averages their logits; the
    file says how many, a one-member head keeps the original layout (older files load), and a bad
    member count is refused."""
    from clue_env.policy.accusation_net import Bag, accusation_from_state, members_of

    rng = np.random.default_rng(0)
    trajs = []
    for _ in range(400):
        correct = (rng.random(6) < 0.3).astype(float).tolist()
        trajs.append(_toy(float(rng.random() < 0.2), correct))
    net = fit_head(trajs[:300], iterations=2, epochs=60, lr=1e-2, members=3, seed=4)
    assert isinstance(net.stop, Bag) and len(members_of(net.cont)) == 3
    gain, half = paired_gain(trajs[300:], stop_decisions(net, trajs[300:]))
    assert gain - half > 0.3
    x = torch.from_numpy(trajs[0].x)
    with torch.no_grad():
        mean = torch.stack([m(x) for m in members_of(net.stop)]).mean(0)
        assert torch.allclose(net.stop(x), mean)
        a, b = (m(x) for m in members_of(net.stop)[:2])
        assert not torch.allclose(a, b)  # fitted on different resamples
    again = fit_head(trajs[:300], iterations=2, epochs=60, lr=1e-2, members=3, seed=4)
    assert all(torch.equal(p, q) for p, q in zip(net.state_dict().values(), again.state_dict().values()))  # seeded
    state = accusation_state(net)
    assert state["net"]["members"] == 3
    back = accusation_from_state(state)
    assert all(torch.equal(p, q) for p, q in zip(net.state_dict().values(), back.state_dict().values()))
    one = accusation_state(AccusationNet(hidden=8))
    assert "members" not in one["net"] and "stop.0.weight" in one["state_dict"]  # the original layout
    assert accusation_from_state(one).members == 1
    for bad in (0, 1, 17, "3", True):
        broken = {**state, "net": {**state["net"], "members": bad}}
        with pytest.raises(ValueError, match="members"):
            accusation_from_state(broken)


def test_bagged_head_config_is_checked():
    import yaml

    from clue_env.training.config import TrainConfigError, load_train_config

    with open(os.path.join(ROOT, "configs/train/accusation_classic_mixed_v3_all.yaml")) as f:
        base = yaml.safe_load(f)
    base["accusation"]["members"] = 4
    assert load_train_config(base).accusation.members == 4
    for bad in (0, 17, 1.5, True, "2"):
        base["accusation"]["members"] = bad
        with pytest.raises(TrainConfigError, match="members"):
            load_train_config(base)
