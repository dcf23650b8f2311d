"""clue_env.policy.opponent_model: each opponent's progress rebuilt in deals drawn from one seat's
evidence (the accusation head's feature set 5, issue 15). Everything it reads is the seat's own
(R31); in the two-player game (R30) the rebuilt evidence is exactly the opponent's."""

from __future__ import annotations

import numpy as np
import pytest

import clue_env
from agents import make_agent
from clue_env.engine.cards import N_CARDS
from clue_env.engine.events import HIDDEN, Accuse, Peek, Show, Suggest
from clue_env.engine.witness import Witness
from clue_env.policy.accusation import FEATURE_SETS, STOP_FEATURES_V3, STOP_FEATURES_V5, RaceTracker, head_inputs
from clue_env.policy.features import SeatFeatures
from clue_env.policy.opponent_model import OPPONENT_FEATURES, PER_OPPONENT, opponent_evidence, opponent_features


def _true_deal(game) -> np.ndarray:
    """card -> holder as the knowledge engine numbers them: seats, then the board (R30), then the envelope."""
    n = game.n
    board = n if game.board_cards else -1
    deal = np.full(N_CARDS, n + (1 if board >= 0 else 0), dtype=np.int64)  # the envelope by default
    for seat, hand in enumerate(game.hands):
        deal[list(hand)] = seat
    for card in game.board_cards.values():
        deal[card] = board
    return deal


def _play(n: int, rules: str, seed: int, stop_after: int):
    """A game of `deduction` players, stopped after ``stop_after`` decisions (or at its end)."""
    env = clue_env.raw_env(num_players=n, rules=rules)
    env.reset(seed=seed)
    agents = [make_agent("deduction", seat=i, num_players=n, rules=rules, seed=seed * 10 + i) for i in range(n)]
    for a in agents:
        a.reset()
    steps = 0
    while not env.game.over and steps < stop_after:
        name = env.agent_selection
        env.step(agents[env.game.acting].act(env.observe(name), env.infos[name]))
        steps += 1
    return env


def _view(env, seat: int):
    return env.infos[env.possible_agents[seat]]["seat_view"]


@pytest.mark.parametrize("seed, steps", [(3, 40), (4, 80), (5, 120), (6, 400)])
def test_R30_in_the_two_player_game_the_true_deal_rebuilds_the_opponents_evidence_exactly(seed, steps):
    """With two players every card an opponent was shown came from this seat (R27, R31): fed the true
    deal and the true face-down cards, the opponent's rebuilt log gives its own knowledge, fact for fact."""
    env = _play(2, "edition2023", seed, steps)
    g = env.game
    sizes = [len(h) for h in g.hands]
    for me in (0, 1):
        opp = 1 - me
        events = _view(env, me).events
        rebuilt = opponent_evidence(events, me, opp, _true_deal(g), 2, dict(g.board_cards), np.random.default_rng(0))
        mine = Witness(opp, sorted(g.hands[opp]), sizes)
        mine.feed(rebuilt)
        theirs = Witness(opp, sorted(g.hands[opp]), sizes)
        theirs.feed(_view(env, opp).events)
        assert mine.knowledge.fingerprint() == theirs.knowledge.fingerprint()


def test_with_more_players_hidden_shown_cards_are_filled_with_a_card_the_refuter_holds():
    env = _play(4, "classic", 7, 200)
    g = env.game
    deal = _true_deal(g)
    events = _view(env, 0).events
    hidden = [ev for ev in events if isinstance(ev, Show) and ev.card == HIDDEN]
    assert hidden  # other seats showed each other cards this seat did not see
    for opp in (1, 2, 3):
        rebuilt = opponent_evidence(events, 0, opp, deal, -1, {}, np.random.default_rng(opp))
        triple = None
        for ev in rebuilt:
            if isinstance(ev, Suggest):
                triple = (ev.suspect, 6 + ev.weapon, 12 + ev.room)
            if isinstance(ev, Show) and ev.suggester == opp:
                assert ev.card != HIDDEN and deal[ev.card] == ev.refuter and ev.card in triple
        w = Witness(opp, sorted(g.hands[opp]), [len(h) for h in g.hands])
        w.feed(rebuilt)
        assert w.knowledge.is_consistent(deal)  # the rebuilt evidence holds in the true deal


def test_face_down_cards_an_opponent_saw_are_drawn_once_per_deal_and_known_ones_kept():
    """R30: a room this seat looked into keeps its card; another room gets one of the deal's board
    cards, the same one each time the opponent looks there again, never one placed elsewhere."""
    deal = np.full(N_CARDS, 3, dtype=np.int64)  # the envelope, by default (2 seats, board = 2, envelope = 3)
    deal[[0, 1, 2, 3]] = 0
    deal[[4, 5, 6, 7]] = 1
    deal[[8, 9, 10, 11]] = 2  # on the board
    events = [
        Peek(seat=0, room=1, card=9),
        Peek(seat=1, room=1, card=HIDDEN),
        Peek(seat=1, room=4, card=HIDDEN),
        Peek(seat=1, room=4, card=HIDDEN),
    ]
    rooms = {1: 9}
    out = opponent_evidence(events, 0, 1, deal, 2, rooms, np.random.default_rng(0))
    cards = [ev.card for ev in out if isinstance(ev, Peek) and ev.seat == 1]
    assert cards[0] == 9 and cards[1] == cards[2] and cards[1] in (8, 10, 11)
    assert rooms[4] == cards[1]


def test_features_have_the_declared_layout_and_leave_me_and_eliminated_seats_zero():
    env = _play(4, "classic", 11, 260)
    g = env.game
    me = 0
    sf = SeatFeatures(me, 4)
    name = env.possible_agents[me]
    view = _view(env, me)
    sf.update(env.observe(name)["observation"], view.events)
    x = opponent_features(sf.knowledge, view.events, me, 4, np.random.default_rng(1))
    assert x.shape == (OPPONENT_FEATURES,) and x.dtype == np.float32
    assert ((0 <= x) & (x <= 1)).all() and x[-1] == 1.0
    rows = x[:-2].reshape(6, PER_OPPONENT)
    assert not rows[0].any() and not rows[4:].any()  # me, and seats a 4-player game does not have
    assert (rows[1:4, 1] > 0).all() or g.over  # every opponent still has envelopes to tell apart
    again = opponent_features(sf.knowledge, view.events, me, 4, np.random.default_rng(1))
    assert np.array_equal(x, again)  # seeded: the same draws, the same estimate
    # an opponent out of the game (R28) cannot win: its row is zero
    out = list(view.events) + [Accuse(seat=2, suspect=0, weapon=0, room=0, correct=False)]
    y = opponent_features(sf.knowledge, out, me, 4, np.random.default_rng(1))
    assert not y[:-2].reshape(6, PER_OPPONENT)[2].any()


def test_an_opponent_that_has_proved_the_solution_is_seen_to_have():
    """Play on until some opponent's own engine proves the solution; at that moment the simulated
    share of deals in which it has proved should be high (its evidence is public or this seat's,
    in the two-player game)."""
    for seed in range(20, 40):
        env = clue_env.raw_env(num_players=2, rules="edition2023")
        env.reset(seed=seed)
        agents = [make_agent("deduction", seat=i, num_players=2, rules="edition2023", seed=seed * 10 + i) for i in range(2)]
        for a in agents:
            a.reset()
        g = env.game
        sizes = [len(h) for h in g.hands]
        while not g.over:
            w = Witness(1, sorted(g.hands[1]), sizes)
            w.feed(_view(env, 1).events)
            if w.knowledge.solution_if_certain(8) is not None:
                sf = SeatFeatures(0, 2)
                view = _view(env, 0)
                sf.update(env.observe(env.possible_agents[0])["observation"], view.events)
                x = opponent_features(sf.knowledge, view.events, 0, 2, np.random.default_rng(seed), samples=32)
                assert x[PER_OPPONENT] >= 0.5  # row 1 (the opponent), P(proved)
                return
            name = env.agent_selection
            env.step(agents[g.acting].act(env.observe(name), env.infos[name]))
    pytest.fail("no game in which the opponent proved before the end")


def test_feature_set_5_appends_the_opponent_block_to_set_3_and_needs_the_log():
    assert STOP_FEATURES_V5 == STOP_FEATURES_V3 + OPPONENT_FEATURES and FEATURE_SETS[STOP_FEATURES_V5] == 5
    env = _play(2, "edition2023", 9, 60)
    sf = SeatFeatures(0, 2)
    view = _view(env, 0)
    f = sf.update(env.observe(env.possible_agents[0])["observation"], view.events)
    race = RaceTracker(2, 0, view.hand)
    race.feed(view.events)
    h3 = head_inputs(sf.knowledge, race, 0, f, view.turn, False, 2, 3, np.random.default_rng(0))
    h5 = head_inputs(sf.knowledge, race, 0, f, view.turn, False, 2, 5, np.random.default_rng(0), view.events)
    assert h5.x.shape == (STOP_FEATURES_V5,) and np.array_equal(h5.x[:STOP_FEATURES_V3], h3.x)
    assert h5.triples.shape == h3.triples.shape
    with pytest.raises(ValueError, match="event log"):
        head_inputs(sf.knowledge, race, 0, f, view.turn, False, 2, 5, np.random.default_rng(0))


def test_R26_feature_set_6_appends_the_tell_posterior_to_set_5():
    """Set 6 is set 5 and the summary of the tell-weighted posterior (in set 4's form); its triple
    scorer also reads each candidate's tell probability, and it needs the event log as set 5 does."""
    from clue_env.policy.accusation import STOP_FEATURES_V6, TELL_FEATURES, TRIPLE_WIDTH

    assert STOP_FEATURES_V6 == STOP_FEATURES_V5 + TELL_FEATURES and FEATURE_SETS[STOP_FEATURES_V6] == 6
    assert TRIPLE_WIDTH[6] == 3
    checked = 0
    for seed, steps in ((9, 60), (11, 120), (12, 200)):
        env = _play(2, "edition2023", seed, steps)
        sf = SeatFeatures(0, 2)
        view = _view(env, 0)
        f = sf.update(env.observe(env.possible_agents[0])["observation"], view.events)
        race = RaceTracker(2, 0, view.hand)
        race.feed(view.events)
        h5 = head_inputs(sf.knowledge, race, 0, f, view.turn, False, 2, 5, np.random.default_rng(0), view.events)
        h6 = head_inputs(sf.knowledge, race, 0, f, view.turn, False, 2, 6, np.random.default_rng(0), view.events)
        assert h6.x.shape == (STOP_FEATURES_V6,) and np.array_equal(h6.x[:STOP_FEATURES_V5], h5.x)
        assert h6.triples.shape == (len(h6.top), 3)
        assert h6.best == h5.best
        if h5.top:  # the posterior was computed: the candidates are scored with both posteriors
            checked += 1
            assert 0.0 < h6.x[STOP_FEATURES_V5] <= 1.0  # the tell posterior's best triple's probability
            # candidates are possible envelopes, scored with their plain log posterior and their tell one
            assert all(p > 0 for _t, p in h6.top)
            np.testing.assert_allclose(h6.triples[:, 0], [np.log(max(p, 1e-6)) for _t, p in h6.top], rtol=1e-5)
            assert (h6.triples[:, 2] <= 0).all() and (h6.triples[:, 2] > np.log(1e-6)).any()
        with pytest.raises(ValueError, match="event log"):
            head_inputs(sf.knowledge, race, 0, f, view.turn, False, 2, 6, np.random.default_rng(0))
    assert checked >= 1


def test_R26_the_tell_posterior_weighs_each_envelope_by_what_the_opponent_named():
    """With two players an envelope fixes the opponent's hand, so a deal that gives it a suspect or
    weapon it named n times weighs lr**n: the tell posterior is the plain one times lr to the minus
    the namings the envelope's cards took away from the opponent, renormalised. Rooms, and this
    seat's own suggestions, weigh nothing."""
    from clue_env.engine.cards import ROOM_BASE, WEAPON_BASE
    from clue_env.engine.knowledge import Knowledge
    from clue_env.policy.accusation import weighted_tell_posterior

    mine = [0, 1, 2, WEAPON_BASE, WEAPON_BASE + 1, ROOM_BASE, ROOM_BASE + 1, ROOM_BASE + 2, ROOM_BASE + 3]
    k = Knowledge([9, 9])
    for c in mine:
        k.holds(0, c)
    k.holds(1, ROOM_BASE + 4)
    race = RaceTracker(2, 0, mine)
    race.feed(
        [
            Suggest(1, 3, 2, 5),
            Suggest(1, 3, 4, 6),
            Suggest(1, 4, 2, 7),
            Suggest(0, 5, 5, 8),  # this seat's own: weighs nothing
        ]
    )
    plain = k.exact_posterior(budget=10**9).triples
    same, mean1, applied = weighted_tell_posterior(k, race, 0, lr=1.0)
    assert applied == 1 and mean1 == pytest.approx(1.0)
    for t, p in plain.items():
        assert same[t] == pytest.approx(p, abs=1e-12)
    lr = 0.35
    tell, mean_weight, _ = weighted_tell_posterior(k, race, 0, lr=lr)
    named = {3: 2, 4: 1, WEAPON_BASE + 2: 2, WEAPON_BASE + 4: 1}
    expected = {t: p * lr ** -sum(named.get(c, 0) for c in t) for t, p in plain.items()}
    z = sum(expected.values())
    assert set(tell) == set(plain)
    for t, w in expected.items():
        assert tell[t] == pytest.approx(w / z, rel=1e-9)
    best = max(tell, key=tell.get)
    assert 3 in best and WEAPON_BASE + 2 in best  # the most-named suspect and weapon are likeliest in the envelope
    assert 0 < mean_weight < 1
