"""The engine's bounded memo (clue_env/engine/memo_cache.py): bounded, keeps what is used."""

from __future__ import annotations

import pytest

from clue_env.engine.memo_cache import MemoCache


def test_never_holds_more_than_maxsize() -> None:
    m: MemoCache[int, int] = MemoCache(10)
    for i in range(1000):
        m.put(i, i)
        assert len(m) <= 10
    assert m.get(999) == 999
    assert m.get(0) is None


def test_an_entry_in_use_survives_any_number_of_insertions() -> None:
    m: MemoCache[str, int] = MemoCache(8)
    m.put("hot", 1)
    for i in range(500):
        m.put(f"k{i}", i)
        assert m.get("hot") == 1  # hit once per insertion: never dropped


def test_an_old_entry_hit_again_moves_back_and_outlives_a_flip() -> None:
    m: MemoCache[int, int] = MemoCache(4)  # generations of 2
    m.put(1, 1)
    m.put(2, 2)  # young is full: {1, 2} becomes old
    assert m.get(1) == 1  # back to young
    m.put(3, 3)  # young {1, 3} full: old {2} dropped
    assert 2 not in m and m.get(1) == 1 and m.get(3) == 3


def test_put_replaces_and_clear_empties() -> None:
    m: MemoCache[int, str] = MemoCache(6)
    m.put(1, "a")
    m.put(1, "b")
    assert m.get(1) == "b" and len(m) == 1
    m.clear()
    assert len(m) == 0 and m.get(1) is None


def test_refuses_a_size_below_two() -> None:
    with pytest.raises(ValueError, match="maxsize"):
        MemoCache(1)
