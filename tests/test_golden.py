"""Golden playthroughs: replay each file in tests/golden/ and check every line is reproduced.

The files are written by ``python -m tests.golden_games``; ``CLUE_REGEN_GOLDEN=1 pytest
tests/test_golden.py`` rewrites them instead of checking them (review the diff afterwards).
"""

from __future__ import annotations

import os

import pytest

try:  # tests/ as a package (python -m pytest from the repo root) or as a plain directory
    from tests import golden_games as gg
except ImportError:  # pragma: no cover
    import golden_games as gg  # type: ignore[no-redef]

REGEN = os.environ.get("CLUE_REGEN_GOLDEN", "") not in ("", "0")


@pytest.mark.parametrize("game", gg.GAMES, ids=[g.name for g in gg.GAMES])
def test_golden_replay(game: gg.GoldenGame) -> None:
    if REGEN:
        gg.write(game)
        return
    assert game.path.exists(), f"{game.path} is missing; run `python -m tests.golden_games`"
    expected = gg.read(game)
    got = gg.play(game, gg.replay_policy(gg.parse_actions(expected)))
    for i, (want, have) in enumerate(zip(expected, got), start=1):
        assert have == want, (
            f"{game.path.name}:{i} differs\n  expected: {want}\n  got:      {have}\n"
            "(if the change is intended, regenerate with `python -m tests.golden_games` and review the diff)"
        )
    assert len(got) == len(expected), f"{game.path.name}: {len(expected)} lines expected, replay gave {len(got)}"


@pytest.mark.parametrize("game", gg.GAMES, ids=[g.name for g in gg.GAMES])
def test_golden_policy_reproduces_file(game: gg.GoldenGame) -> None:
    """The seeded scripted policy still plays the recorded game (the env is deterministic)."""
    if REGEN:
        pytest.skip("regenerating")
    assert gg.play(game) == gg.read(game)


def test_golden_files_cover_the_table() -> None:
    names = {p.stem for p in gg.GOLDEN_DIR.glob("*.txt")}
    assert names == {g.name for g in gg.GAMES}, "stray or missing golden files"
    assert {g.num_players for g in gg.GAMES} >= {3, 4, 5, 6}
    assert {(g.rules, g.num_players) for g in gg.GAMES} >= {("edition2023", 2), ("edition2023", 4)}
    reasons = {gg.read(g)[-1].split("reason=")[1].split()[0] for g in gg.GAMES}
    assert reasons >= {"accusation", "last_player_standing", "max_turns"}
    for g in gg.GAMES:
        lines = gg.read(g)
        assert len(lines) <= 2 * gg.MAX_STEPS + 20
        assert not any(line.startswith("# capped") for line in lines), f"{g.name} hit the step cap"
