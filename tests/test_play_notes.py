"""The seat notebook (clue_env.play.notes): every fact it states is true, it states only what the
seat can know (R31), and ``deduce`` probabilities are probabilities."""

from __future__ import annotations

import numpy as np
import pytest

from agents import play_factory
from clue_env.engine.cards import CARDS
from clue_env.play import GameSession, notebook


def _truth(session: GameSession, card: int) -> str:
    g = session.game
    for seat, hand in enumerate(g.hands):
        if card in hand:
            return f"player_{seat}"
    if card in g.board_cards.values():
        return "board"
    return "envelope"


@pytest.mark.parametrize("rules, n, seed", [("classic", 3, 0), ("classic", 5, 1), ("edition2023", 4, 2), ("edition2023", 2, 3)])
def test_every_fact_in_the_notebook_is_true_and_it_grows(rules, n, seed):
    opp = "deduction" if n == 2 else "notebook"
    s = GameSession(["human"] + [opp] * (n - 1), agent_factory=play_factory, rules=rules, seed=seed, agent_seed=seed)
    rng = np.random.default_rng(seed)
    known_before = 0
    checked = 0
    while not s.over and s.game.turn < 60:
        s.advance()
        if s.over:
            break
        book = s.notes(0, "facts")
        for row in book.rows:
            if row.where is not None and row.where != "nobody":
                assert row.where == _truth(s, CARDS.index(row.card)), (row, s.game.turn)
                checked += 1
        solution = [CARDS[c] for c in range(len(CARDS)) if _truth(s, c) == "envelope"]
        for kind, cands in enumerate(book.candidates):
            assert solution[kind] in cands  # the envelope is never ruled out
        known = sum(r.where is not None for r in book.rows)
        assert known >= known_before  # facts are never forgotten
        known_before = known
        legal = [t for t in s.legal(0) if not t.startswith("accuse")] or list(s.legal(0))
        s.act(0, legal[int(rng.integers(len(legal)))])
    assert checked > 0 and known_before > len(s.view(0).hand)


def test_deduce_gives_envelope_probabilities_summing_to_one_per_kind():
    s = GameSession(["human", "notebook", "notebook", "notebook"], agent_factory=play_factory, seed=4, agent_seed=4)
    rng = np.random.default_rng(0)
    for _ in range(40):
        s.advance()
        if s.over:
            break
        legal = [t for t in s.legal(0) if not t.startswith("accuse")]
        s.act(0, legal[int(rng.integers(len(legal)))])
    book = notebook(s.view(0), "deduce")
    assert book.exact is not None
    for kind in ("suspects", "weapons", "rooms"):
        ps = [r.envelope_p for r in book.rows if r.kind == kind]
        assert all(p is not None and 0 <= p <= 1 for p in ps)
        assert sum(ps) == pytest.approx(1.0, abs=1e-3 if book.exact else 0.05)  # estimates: whole percents
    mine = [r for r in book.rows if r.where == "player_0"]
    assert mine and all(r.envelope_p == 0 for r in mine)
    assert "%" in book.text()
    with pytest.raises(ValueError, match="notes mode"):
        notebook(s.view(0), "guess")


def test_deduce_text_exact_figures_or_rounded_from_n_samples():
    """The terminal's ``notes deduce`` follows the web's rule: exact figures when counted exactly,
    whole percents and "(from N samples)" when estimated."""
    import re

    s = GameSession(["human"] * 3, agent_factory=play_factory, rules="classic", seed=3, agent_seed=3)
    book = notebook(s.view(0), "deduce")
    assert book.exact is False and book.samples
    text = book.text()
    assert f"from {book.samples} samples" in text
    assert not re.search(r"\d\.\d%", text) and re.search(r"\d%", text)
    rng = np.random.default_rng(3)
    for _ in range(291):
        legal = [t for t in s.legal(s.acting) if not t.startswith("accuse")]
        s.act(s.acting, legal[int(rng.integers(len(legal)))])
    book = notebook(s.view(0), "deduce")
    assert book.exact is True and book.samples is None
    assert "counted exactly" in book.text() and re.search(r"\d\.\d%", book.text())
    assert book.to_json()["deduce"] == {"exact": True, "samples": None}


def test_grid_and_shown_to_from_the_seat_view():
    s = GameSession(["human"] * 3, agent_factory=play_factory, rules="classic", seed=7, agent_seed=7)
    rng = np.random.default_rng(7)
    while not s.view(1).shown_by_me:
        legal = [t for t in s.legal(s.acting) if not t.startswith("accuse")]
        s.act(s.acting, legal[int(rng.integers(len(legal)))])
    view = s.view(1)
    book = notebook(view, "facts")
    rows = {r.card: r for r in book.rows}
    for c, to in view.shown_by_me:
        assert f"player_{to}" in rows[CARDS[c]].shown_to
    for r in book.rows:
        truth = _truth(s, CARDS.index(r.card))
        for i, cell in enumerate(r.seats):
            if cell == "holds":
                assert truth == f"player_{i}"
            elif cell == "cannot":
                assert truth != f"player_{i}"
        assert (r.envelope == "holds") <= (truth == "envelope") and (r.envelope == "cannot") <= (truth != "envelope")
    seen = notebook(view, "seen")
    assert all(r.envelope == "unknown" for r in seen.rows if r.where is None)
