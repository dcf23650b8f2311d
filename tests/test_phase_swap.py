"""benchmarks/phase_swap.py: the candidate's seat with its teacher's choices in one phase (issue 15:
which phase costs the wins), on the same deals for every swap."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
import phase_swap  # noqa: E402


def test_a_teacher_swapped_for_itself_changes_nothing_but_its_own_sampling():
    none = phase_swap.measure("deduction", "deduction", "random", "none", 3, "classic", 3, 11, 5, 1)
    again = phase_swap.measure("deduction", "deduction", "random", "none", 3, "classic", 3, 11, 5, 1)
    assert none == again  # same deals, same agent seeds: the same games
    assert all(r["changed"] == 0 and r["decisions"] > 0 for r in none)


def test_swapping_every_phase_plays_the_teacher_and_counts_what_changed():
    rows = phase_swap.measure("random", "deduction", "random", "all", 3, "classic", 2, 3, 5, 1)
    # the teacher plays every decision of the seat: `deduction` accuses only what it proved (R28)
    assert all(not r["wrong"] for r in rows)
    assert all(0 < r["changed"] <= r["decisions"] for r in rows)
    moved = phase_swap.measure("random", "deduction", "random", "move", 3, "classic", 2, 3, 5, 1)
    assert [r["game"] for r in moved] == [3, 4]


def test_paired_difference_and_refusals(capsys):
    a = [{"won": True}, {"won": False}, {"won": True}, {"won": True}]
    b = [{"won": False}, {"won": False}, {"won": True}, {"won": False}]
    d, lo, hi = phase_swap.paired(a, b)
    assert d == 50.0 and lo < 50.0 < hi
    with pytest.raises(ValueError, match="choose from"):
        phase_swap.measure("random", "deduction", "random", "moves", 3, "classic", 2, 0, 5, 1)
    with pytest.raises(SystemExit):
        phase_swap.main(["--swaps", "dance"])
    assert "choose from" in capsys.readouterr().err


def test_play_swap_hands_the_teacher_every_decision_but_the_accusations():
    from clue_env.codec import default_codec

    codec = default_codec()
    acc = codec.accuse_slice.start
    assert phase_swap._teacher_plays(0, 1, "move", codec)
    assert not phase_swap._teacher_plays(acc, 1, "move", codec)  # the candidate accuses: kept
    assert not phase_swap._teacher_plays(0, acc + 5, "suggest", codec)  # the teacher would accuse: not played
    assert not phase_swap._teacher_plays(0, 1, "accuse/end", codec)
    # `random` plays for `deduction`, which still decides every accusation: it accuses only what it proved (R28)
    rows = phase_swap.measure("deduction", "random", "random", "play", 3, "classic", 3, 3, 5, 1)
    assert all(not r["wrong"] for r in rows)
    assert sum(r["changed"] for r in rows) > 0
