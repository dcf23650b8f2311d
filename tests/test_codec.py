"""Action codec: every index round-trips through its text form; masks match legal sets."""

from __future__ import annotations

import pytest

from clue_env.codec import ActionCodec, default_codec
from clue_env.engine.actions import Action, Kind, parse_action
from clue_env.engine.errors import InvalidActionTextError
from clue_env.engine.game import Legal


def test_every_index_round_trips_through_text():
    codec = default_codec()
    seen = set()
    for i in range(codec.n):
        text = codec.to_text(i)
        assert text not in seen
        seen.add(text)
        assert codec.from_text(text) == i
        assert codec.encode(codec.decode(i)) == i
    assert codec.n == 591


def test_layout_segments_are_contiguous_and_named():
    codec = ActionCodec()
    table = codec.layout()
    for name in ("roll", "passage", "stay", "end", "move", "enter", "toward", "suggest", "show", "accuse"):
        assert name in table
    assert codec.base["roll"] == 0
    assert codec.base["accuse"] + 324 == codec.n
    assert codec.to_text(codec.base["move"]) == "move 0,9"  # first hallway square, row-major
    assert codec.to_text(codec.n - 1) == "accuse plum wrench study"


def test_text_forms_are_forgiving_about_case_and_spaces():
    codec = default_codec()
    assert codec.from_text("  Suggest  PLUM rope ") == codec.from_text("suggest plum rope")
    assert codec.from_text("move 7, 4") == codec.from_text("move 7,4")


@pytest.mark.parametrize(
    "bad, why",
    [
        ("fly", "unknown verb"),
        ("roll 3", "takes no arguments"),
        ("move 1,1", "not a hallway square"),
        ("move 3", "R,C"),
        ("enter cellar", "unknown room"),
        ("suggest rope plum", "unknown suspect"),
        ("show nothing", "unknown card"),
        ("accuse plum rope", "takes 3 argument"),
    ],
)
def test_malformed_text_says_what_is_wrong(bad, why):
    with pytest.raises(InvalidActionTextError, match=why):
        default_codec().from_text(bad)


def test_decode_out_of_range_is_a_value_error():
    with pytest.raises(ValueError, match="out of range"):
        default_codec().decode(591)
    with pytest.raises(ValueError, match="out of range"):
        default_codec().decode(-1)


def test_mask_of_a_legal_set():
    codec = default_codec()
    lg = Legal(roll=True, passage=True, accuse=True)
    m = codec.mask(lg)
    assert m.dtype.name == "int8"
    assert m[codec.base["roll"]] == 1 and m[codec.base["passage"]] == 1 and m[codec.base["stay"]] == 0
    assert m.sum() == 2 + 324
    lg = Legal(squares=(codec.board.node_of(7, 4),), rooms=(0,))
    m = codec.mask(lg)
    assert m.sum() == 1 + 1 + 9
    assert m[codec.from_text("move 7,4")] == 1 and m[codec.from_text("enter kitchen")] == 1
    assert (codec.cached_mask(lg) == m).all()


def test_parse_action_value_types():
    board = default_codec().board
    assert parse_action("show lead_pipe", board) == Action(Kind.SHOW, 8)
    assert parse_action("accuse scarlet candlestick kitchen", board) == Action(Kind.ACCUSE, 0, 0, 0)


def test_named_index_helpers_match_the_text_forms():
    from clue_env.codec import default_codec
    from clue_env.engine.cards import CARDS, ROOMS, SUSPECTS, WEAPONS

    c = default_codec()
    for r, room in enumerate(ROOMS):
        assert c.to_text(c.enter(r)) == f"enter {room}" and c.to_text(c.toward(r)) == f"toward {room}"
    for s, sus in enumerate(SUSPECTS):
        for w, wep in enumerate(WEAPONS):
            assert c.to_text(c.suggest(s, w)) == f"suggest {sus} {wep}"
            for r, room in enumerate(ROOMS):
                assert c.to_text(c.accuse(s, w, r)) == f"accuse {sus} {wep} {room}"
    for k, card in enumerate(CARDS):
        assert c.to_text(c.show(k)) == f"show {card}"
