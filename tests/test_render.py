"""Rendering: the rgb picture and the ansi text show positions, and only public information."""

from __future__ import annotations

import re

import numpy as np
import pytest

import clue_env
from clue_env import render
from clue_env.engine.cards import CARDS, N_ROOMS, ROOM_BASE, ROOMS, SUSPECTS, WEAPON_BASE, WEAPONS
from clue_env.engine.game import Phase

SCARLET, PLUM = SUSPECTS.index("scarlet"), SUSPECTS.index("plum")


def _env(mode: str, num_players: int = 4, **kw) -> clue_env.raw_env:
    return clue_env.raw_env(num_players=num_players, render_mode=mode, **kw)


def _play_until_shown(env: clue_env.raw_env, seed: int = 3, min_turn: int = 12) -> None:
    """Random legal non-accuse play until a card has been shown and ``min_turn`` is reached."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    acc = env.codec.accuse_slice
    for _ in range(3000):
        game = env.game
        if game.turn >= min_turn and any(ev[0] == "show" for ev in game.log) and game.phase == Phase.START:
            return
        mask = env.observe(env.agent_selection)["action_mask"].copy()
        mask[acc] = 0
        env.step(int(rng.choice(np.flatnonzero(mask))))
    pytest.fail("no card was shown in 3000 steps")


def _text_board(text: str, game) -> list[str]:
    lines = text.splitlines()
    return [line[: game.board.cols] for line in lines[1 : 1 + game.board.rows]]


# ---------------------------------------------------------------------- picture
def test_rgb_shape_dtype_and_determinism() -> None:
    env = _env("rgb_array")
    env.reset(seed=0)
    img = env.render()
    assert isinstance(img, np.ndarray) and img.dtype == np.uint8
    assert img.ndim == 3 and img.shape[2] == 3
    board = env.game.board
    assert img.shape[0] >= board.rows * render.CELL and img.shape[1] >= board.cols * render.CELL
    assert np.array_equal(img, env.render())
    env.step(env.text_to_action("roll"))
    assert env.render().shape == img.shape


def test_rgb_token_drawn_where_it_stands() -> None:
    env = _env("rgb_array")
    env.reset(seed=0, options={"tokens": {"scarlet": "8,8"}})
    before = env.render()
    x, y = render.square_center(8, 8)
    probe = (y, x - 7)  # inside the disc, beside the digit
    assert tuple(before[probe]) == render._TOKEN_COLORS[SCARLET]
    env.reset(seed=0, options={"tokens": {"scarlet": "16,2"}})
    after = env.render()
    assert tuple(after[probe]) != tuple(before[probe])
    assert tuple(after[probe]) == render._HALL
    x2, y2 = render.square_center(16, 2)
    assert tuple(after[y2, x2 - 7]) == render._TOKEN_COLORS[SCARLET]


def test_rgb_token_and_weapon_in_room_change_the_room() -> None:
    env = _env("rgb_array")
    env.reset(seed=0, options={"weapons": {w: "kitchen" for w in WEAPONS}})
    board = env.game.board
    cells = board.room_cells[ROOMS.index("study")]
    r0, r1 = min(p[0] for p in cells), max(p[0] for p in cells)
    c0, c1 = min(p[1] for p in cells), max(p[1] for p in cells)
    x0, y0, _, _ = render.square_box(r0, c0)
    _, _, x1, y1 = render.square_box(r1, c1)
    empty = env.render()[y0:y1, x0:x1]
    env.reset(seed=0, options={"weapons": {**{w: "kitchen" for w in WEAPONS}, "rope": "study"}})
    with_weapon = env.render()[y0:y1, x0:x1]
    assert not np.array_equal(empty, with_weapon)
    env.reset(seed=0, options={"weapons": {w: "kitchen" for w in WEAPONS}, "tokens": {"plum": "study"}})
    with_token = env.render()[y0:y1, x0:x1]
    assert (with_token == np.array(render._TOKEN_COLORS[PLUM], np.uint8)).all(axis=-1).sum() > 50
    assert (empty == np.array(render._TOKEN_COLORS[PLUM], np.uint8)).all(axis=-1).sum() == 0


def test_rgb_crowded_room_and_players_only_render() -> None:
    env = _env("rgb_array", num_players=3, tokens_on_board="players_only")
    env.reset(seed=5)
    assert env.render().ndim == 3  # unplayed tokens are off the board
    env = _env("rgb_array", num_players=6)
    env.reset(seed=5, options={"tokens": {s: "library" for s in SUSPECTS}, "weapons": {w: "library" for w in WEAPONS}})
    assert env.render().ndim == 3


# ---------------------------------------------------------------------- text
def test_ansi_digit_at_token_square() -> None:
    env = _env("ansi")
    env.reset(seed=0, options={"tokens": {"plum": "16,2", "scarlet": "ballroom"}})
    text = env.render()
    assert isinstance(text, str)
    grid = _text_board(text, env.game)
    assert grid[16][2] == "6"
    assert "1" not in "".join(grid)  # scarlet is in a room: listed beside the board, not on it
    ballroom = next(line for line in text.splitlines() if re.search(r"\bB ballroom\b", line))
    assert re.search(r"ballroom\s+1\b", ballroom)


def test_ansi_tokens_mid_game() -> None:
    env = _env("ansi", num_players=5)
    _play_until_shown(env)
    game = env.game
    grid = _text_board(env.render(), game)
    for s, node in enumerate(game.loc):
        if node >= N_ROOMS:
            r, c = game.board.node_rc[node]
            assert grid[r][c] == render.TOKEN_CHARS[s]
    digits = sum(ch.isdigit() for row in grid for ch in row)
    assert digits == sum(node >= N_ROOMS for node in game.loc)


def test_human_prints_the_ansi_text(capsys) -> None:
    env = _env("human")
    env.reset(seed=1)
    assert env.render() is None
    out = capsys.readouterr().out
    env.render_mode = "ansi"
    assert out.rstrip("\n") == env.render()


# ---------------------------------------------------------------------- public information only
def _hide_differently(game) -> None:
    """Change every piece of hidden information, keeping what is public (hand sizes included)."""
    hands = [list(h) for h in game.hands]
    env_cards = [game.envelope[0], WEAPON_BASE + game.envelope[1], ROOM_BASE + game.envelope[2]]
    for k, card in enumerate(env_cards):  # swap each envelope card with a same-kind card in a hand
        lo, hi = [(0, WEAPON_BASE), (WEAPON_BASE, ROOM_BASE), (ROOM_BASE, len(CARDS))][k]
        seat, i = next((s, i) for s, h in enumerate(hands) for i, c in enumerate(h) if lo <= c < hi)
        hands[seat][i], env_cards[k] = card, hands[seat][i]
    game.hands = [sorted(h) for h in hands]
    for s, h in enumerate(game.hands):
        for c in h:
            game.owner[c] = s
    for c in env_cards:
        game.owner[c] = -1
    game.envelope = (env_cards[0], env_cards[1] - WEAPON_BASE, env_cards[2] - ROOM_BASE)
    game.log = [(*ev[:3], (ev[3] + 1) % len(CARDS)) if ev[0] == "show" else ev for ev in game.log]


@pytest.mark.parametrize("num_players", [3, 6])
def test_render_shows_no_hidden_information(num_players: int) -> None:
    env = _env("ansi", num_players=num_players)
    _play_until_shown(env, seed=num_players)
    game = env.game
    text = env.render()
    env.render_mode = "rgb_array"
    img = env.render()
    _hide_differently(game)
    assert env.render().tobytes() == img.tobytes()
    env.render_mode = "ansi"
    assert env.render() == text
    # nobody's shown card is named, and no hand is listed
    assert "shows a card" in text
    assert not re.search(r"shows (?!a card)", text)
    for hand in game.hands:
        names = [CARDS[c] for c in hand]
        assert " ".join(names) not in text and ", ".join(names) not in text
    assert "solution" not in text


def test_render_opens_the_envelope_at_the_end() -> None:
    env = _env("ansi", num_players=3)
    env.reset(seed=2)
    s, w, r = env.game.envelope
    env.step(env.text_to_action(f"accuse {SUSPECTS[s]} {WEAPONS[w]} {ROOMS[r]}"))
    assert env.game.over
    text = env.render()
    cfg = env.game.cfg
    assert f"solution: {cfg.display(SUSPECTS[s])}, {cfg.display(WEAPONS[w])}, {cfg.display(ROOMS[r])}" in text
    assert "winner: player_0" in text
    env.render_mode = "rgb_array"
    assert env.render().ndim == 3
