"""Rendering: the rgb picture and the ansi text show positions, and only public information."""

from __future__ import annotations

import re

import numpy as np
import pytest

import clue_env
from clue_env import render
from clue_env.engine.cards import CARDS, N_ROOMS, ROOM_BASE, ROOMS, SUSPECTS, WEAPON_BASE, WEAPONS
from clue_env.engine.events import Peek, Show
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
        if game.turn >= min_turn and any(isinstance(ev, Show) for ev in game.log) and game.phase == Phase.START:
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
    assert tuple(before[probe]) == render.TOKEN_COLORS[SCARLET]
    env.reset(seed=0, options={"tokens": {"scarlet": "16,2"}})
    after = env.render()
    assert tuple(after[probe]) != tuple(before[probe])
    assert tuple(after[probe]) == render.HALL
    x2, y2 = render.square_center(16, 2)
    assert tuple(after[y2, x2 - 7]) == render.TOKEN_COLORS[SCARLET]


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
    assert (with_token == np.array(render.TOKEN_COLORS[PLUM], np.uint8)).all(axis=-1).sum() > 50
    assert (empty == np.array(render.TOKEN_COLORS[PLUM], np.uint8)).all(axis=-1).sum() == 0


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
    game.log = [ev._replace(card=(ev.card + 1) % len(CARDS)) if isinstance(ev, Show) else ev for ev in game.log]


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


# ---------------------------------------------------------------------- 2023 edition
BOARD_CARDS = {"study": "lead_pipe", "hall": "conservatory", "library": "wrench", "lounge": "green"}
DEAL_2023 = {"envelope": ["scarlet", "rope", "ballroom"], "board_cards": BOARD_CARDS}


def _env2023(mode: str, num_players: int = 2) -> clue_env.raw_env:
    return clue_env.raw_env(num_players=num_players, rules="edition2023", render_mode=mode)


def _random_play(env: clue_env.raw_env, seed: int, until, limit: int = 3000) -> None:
    """Random legal non-accuse play from a fresh ``reset(seed)`` until ``until(game)`` at the start of a turn."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    acc = env.codec.accuse_slice
    for _ in range(limit):
        if env.game.phase == Phase.START and until(env.game):
            return
        mask = env.observe(env.agent_selection)["action_mask"].copy()
        mask[acc] = 0
        env.step(int(rng.choice(np.flatnonzero(mask))))
    pytest.fail(f"condition not reached in {limit} steps")


def _room_line(text: str, room: str) -> str:
    return next(line for line in text.splitlines() if re.search(rf"\b{ROOM_LETTERS_OF[room]} {room}\b", line))


ROOM_LETTERS_OF = dict(zip(ROOMS, render.ROOM_LETTERS))


def _card_back_pixels(img: np.ndarray, game, room: int) -> int:
    x0, y0, x1, y1 = render.card_back_box(game, room)
    patch = img[y0 : y1 + 1, x0 : x1 + 1]
    return int((patch == np.array(render.CARD_BACK, np.uint8)).all(axis=-1).sum())


def test_board_card_marker_only_in_rooms_holding_one() -> None:
    env = _env2023("rgb_array")
    env.reset(seed=0, options=DEAL_2023)
    game = env.game
    img = env.render()
    holding = {ROOMS.index(r) for r in BOARD_CARDS}
    assert set(game.board_cards) == holding
    for room in range(N_ROOMS):
        if room in holding:
            assert _card_back_pixels(img, game, room) > 100, ROOMS[room]
        else:
            assert _card_back_pixels(img, game, room) == 0, ROOMS[room]
    env.render_mode = "ansi"
    text = env.render()
    for room in ROOMS:
        assert ("[face-down card]" in _room_line(text, room)) == (room in BOARD_CARDS)
    # the marker is the same whichever cards lie there
    other = {"study": "rope", "hall": "kitchen", "library": "plum", "lounge": "candlestick"}
    env.reset(seed=0, options={"envelope": ["white", "dagger", "hall"], "board_cards": other})
    assert env.render() == text
    env.render_mode = "rgb_array"
    assert env.render().tobytes() == img.tobytes()


def test_classic_and_bigger_games_have_no_card_backs() -> None:
    env = _env2023("ansi", num_players=4)
    env.reset(seed=0)
    assert "face-down" not in env.render()
    env = _env("ansi", num_players=3)
    env.reset(seed=0)
    assert "face-down" not in env.render()


def _peek_in_study(env: clue_env.raw_env) -> None:
    """Both tokens in the kitchen; the first player rolls (no glass) and takes the passage to the study."""
    env.reset(seed=0, options={**DEAL_2023, "tokens": {"scarlet": "kitchen", "mustard": "kitchen"}})
    env.game.next_rolls = [(3, 4)]
    env.step(env.text_to_action("roll"))
    env.step(env.text_to_action("passage"))
    assert isinstance(env.game.log[-1], Peek) and env.game.log[-1].card >= 0  # the engine's record names the card


def test_text_never_names_a_board_card_or_a_peeked_card_before_the_end() -> None:
    env = _env2023("ansi")
    _peek_in_study(env)
    game = env.game
    text = env.render()
    seat = game.seat_name(game.log[-1].seat)
    assert f"{seat} looks at the card in the Study" in text.splitlines()
    below = "\n".join(text.splitlines()[1 + game.board.rows :])  # status and log
    for card in BOARD_CARDS.values():
        assert game.cfg.display(card) not in below, card
        if card not in SUSPECTS:  # every suspect is listed beside the board; weapons/rooms by id
            assert game.cfg.display(card) not in text, card
    assert "solution" not in text
    # the end opens the envelope and turns the board cards face up
    for _ in range(2):
        s = SUSPECTS.index("mustard")
        env.game.next_rolls = [(3, 4)]
        if env.game.phase == Phase.START:
            env.step(env.text_to_action("roll"))
        env.step(env.text_to_action(f"accuse {SUSPECTS[s]} rope ballroom"))
    assert env.game.over
    text = env.render()
    assert "face-down cards: Library: Wrench, Lounge: Mayor Green, Hall: Conservatory, Study: Lead Pipe" in text
    assert "[face-down card: Lead Pipe]" in _room_line(text, "study")


def test_peek_line_in_the_picture_log_hides_the_card() -> None:
    env = _env2023("rgb_array")
    _peek_in_study(env)
    game = env.game
    line = render.public_line(game, game.log[-1])
    assert line == f"{game.seat_name(game.log[-1].seat)} looks at the card in the Study"
    img = env.render()
    game.log[-1] = game.log[-1]._replace(card=(game.log[-1].card + 5) % len(CARDS))
    assert env.render().tobytes() == img.tobytes()


def _hide_board_differently(game) -> None:
    """Swap every face-down card with a card from a hand and change the card of every peek."""
    for i, room in enumerate(sorted(game.board_cards)):
        seat = i % game.n
        card, other = game.board_cards[room], game.hands[seat][0]
        game.hands[seat] = sorted([card, *game.hands[seat][1:]])
        game.board_cards[room] = other
        game.owner[card], game.owner[other] = seat, -2
    game.log = [ev._replace(card=(ev.card + 1) % len(CARDS)) if isinstance(ev, Peek) else ev for ev in game.log]


@pytest.mark.parametrize("num_players", [2, 4])
def test_2023_render_shows_no_hidden_information(num_players: int) -> None:
    env = _env2023("ansi", num_players=num_players)

    def enough(game) -> bool:
        kinds = {ev.kind for ev in game.log}
        need = {"show", "clue_card"} | ({"peek"} if num_players == 2 else set())
        return game.turn >= 12 and need <= kinds

    _random_play(env, num_players, enough)
    game = env.game
    text = env.render()
    env.render_mode = "rgb_array"
    img = env.render()
    _hide_differently(game)
    _hide_board_differently(game)
    assert env.render().tobytes() == img.tobytes()
    env.render_mode = "ansi"
    assert env.render() == text
    assert "solution" not in text and "face-down card:" not in text


def test_dice_text_and_picture_show_the_magnifying_glass() -> None:
    env = _env2023("ansi", num_players=3)
    env.reset(seed=0)
    game = env.game
    game.next_rolls = [(1, 5)]
    env.step(env.text_to_action("roll"))
    text = env.render()
    assert "dice [glass, 5] = 6" in text.splitlines()[0]
    assert f"{game.seat_name(game.current)} rolls [glass, 5] = 6" in text
    env.render_mode = "rgb_array"
    lens = np.array((190, 225, 250), np.uint8)  # the glass of the magnifying-glass glyph
    panel = env.render()[:, -render.PANEL_WIDTH :]
    assert (panel == lens).all(axis=-1).sum() > 20
    game.dice = (2, 5)
    plain = env.render()[:, -render.PANEL_WIDTH :]
    assert (plain == lens).all(axis=-1).sum() == 0
    assert not np.array_equal(panel, plain)
    env.render_mode = "ansi"
    assert "dice [2, 5] = 7" in env.render().splitlines()[0]
    classic = _env("ansi", num_players=3)
    classic.reset(seed=0)
    classic.game.next_rolls = [(1,)]
    classic.step(classic.text_to_action("roll"))
    head = classic.render().splitlines()[0]
    assert "roll 1" in head and "glass" not in head


@pytest.mark.parametrize(("card", "held"), [("dagger", True), ("rope", False)])
def test_clue_card_drawn_this_turn_and_its_result(card: str, held: bool) -> None:
    from clue_env.engine.cards import card_index
    from clue_env.engine.clue_cards import Effect

    env = _env2023("ansi", num_players=3)
    env.reset(seed=0, options={"envelope": ["scarlet", "rope", "ballroom"]})
    game = env.game
    game.clue_deck = [Effect("reveal", card_index(card))]
    game.next_rolls = [(1, 3)]
    drawer = game.current
    env.step(env.text_to_action("roll"))
    text = env.render()
    name = game.cfg.display(card)
    head = f"Clue card drawn by {game.seat_name(drawer)}: the holder of the {name} must reveal it: "
    holder = game.owner[card_index(card)]
    if held:
        assert head + f"{game.seat_name(holder)} reveals it" in text
        assert f"{game.seat_name(holder)} reveals the {name} to everyone" in text
    else:
        assert head + "nobody holds it" in text
        assert f"nobody holds the {name}" in text
    env.render_mode = "rgb_array"
    assert env.render().ndim == 3
    env.render_mode = "ansi"
    env.step(env.text_to_action("end"))
    assert "Clue card drawn by" not in env.render()  # only the card drawn this turn is shown


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_render_2023_every_player_count(num_players: int) -> None:
    env = _env2023("ansi", num_players=num_players)
    _random_play(env, num_players, lambda game: game.turn >= 8)
    text = env.render()
    assert text.splitlines()[0].startswith("Clue (edition2023)")
    for name in ("Chef White", "Mayor Green", "Solicitor Peacock"):
        assert name in text
    # never the classic names or the bare ids of the renamed suspects
    assert not re.search(r"Mrs\. White|Mr\. Green|Mrs\. Peacock|\bwhite\b|\bgreen\b|\bpeacock\b", text)
    assert "victim: Mr. Black" in text
    env.render_mode = "rgb_array"
    img = env.render()
    assert img.ndim == 3 and img.dtype == np.uint8
    grid = _text_board(text, env.game)
    assert len(grid) == env.game.board.rows and all(len(row) == env.game.board.cols for row in grid)


def test_nobody_wins_when_everyone_accuses_wrongly() -> None:
    env = _env2023("ansi")
    env.reset(seed=0, options={**DEAL_2023, "tokens": {"scarlet": "kitchen", "mustard": "kitchen"}})
    game = env.game
    for _ in range(2):
        game.next_rolls = [(3, 4)]
        env.step(env.text_to_action("roll"))
        env.step(env.text_to_action("accuse plum dagger kitchen"))
    assert game.over and game.winner == -1 and game.over_reason == "all_eliminated"
    text = env.render()
    head = text.splitlines()[0]
    assert "winner: nobody (every player accused wrongly: the murderer escapes)" in head
    assert "eliminated (OUT): player_0, player_1" in head
    assert text.count("OUT") >= 3  # the header and both seats
    assert "game over: nobody wins (every player accused wrongly: the murderer escapes)" in text
    assert "solution: Miss Scarlet, Rope, Ballroom" in text
    env.render_mode = "rgb_array"
    assert env.render().ndim == 3


def test_every_event_type_has_its_own_json_and_wording():
    """The base Event's to_json/wording only raise NotImplementedError: every type overrides both."""
    from clue_env.engine.events import EVENT_TYPES, Event

    assert len(EVENT_TYPES) == 16
    for kind, cls in EVENT_TYPES.items():
        assert cls.kind == kind
        assert cls.to_json is not Event.to_json and cls.wording is not Event.wording, kind
