"""Helpers for the per-rule tests (tests/test_rules_*.py), both rulesets.

Positions are built with the env's reset options and dice are queued on ``env.game.next_rolls``
(or scripted with a ``ScriptedChance``). Legal actions are read back from the action mask as
SPEC text forms, so every helper goes through the public env interface. The rules are stated in
docs/rules.md.
"""

from __future__ import annotations

import numpy as np

import clue_env
from clue_env.engine.cards import CARDS
from clue_env.engine.chance import RandomChance, ScriptedChance
from clue_env.observation import LAYOUT

#: A fixed solution used by most rule tests.
ENVELOPE = ["plum", "wrench", "study"]

#: A fixed 4-player deal of the other 18 cards (5, 5, 4, 4).
HANDS4 = {
    "player_0": ["scarlet", "candlestick", "kitchen", "ballroom", "conservatory"],
    "player_1": ["mustard", "dagger", "dining_room", "billiard_room", "library"],
    "player_2": ["white", "lead_pipe", "lounge", "hall"],
    "player_3": ["green", "peacock", "revolver", "rope"],
}


def make_env(
    num_players: int = 4,
    *,
    envelope=ENVELOPE,
    hands=None,
    tokens=None,
    weapons=None,
    seed: int = 0,
    **overrides,
) -> clue_env.raw_env:
    """A reset raw env (classic rules unless overridden) with the given position."""
    e = clue_env.raw_env(num_players=num_players, **overrides)
    options = {}
    if envelope is not None:
        options["envelope"] = list(envelope)
    if hands is not None:
        options["hands"] = hands
    if tokens is not None:
        options["tokens"] = tokens
    if weapons is not None:
        options["weapons"] = weapons
    e.reset(seed=seed, options=options or None)
    return e


def do(e, text: str) -> None:
    """Play one action, given as SPEC text, for the agent to act."""
    e.step(e.text_to_action(text))


def legal(e, agent: str | None = None) -> set[str]:
    """Text forms of every action the mask of ``agent`` (default: the acting agent) allows."""
    agent = agent or e.agent_selection
    mask = e.observe(agent)["action_mask"]
    return {e.action_to_text(int(i)) for i in mask.nonzero()[0]}


def core(e, agent: str | None = None) -> set[str]:
    """``legal`` without the 324 accusations, the 36 suggestions and the 9 ``toward`` forms."""
    return {t for t in legal(e, agent) if not t.startswith(("accuse ", "suggest ", "toward "))}


def roll(e, n: int) -> None:
    """Roll the (classic, single) die, forcing the face ``n``."""
    e.game.next_rolls.append((n,))
    do(e, "roll")


def dests(e) -> tuple[set[tuple[int, int]], set[str]]:
    """(hallway squares, rooms) the acting token may move to now, read from the mask."""
    squares, rooms = set(), set()
    for t in legal(e):
        if t.startswith("move "):
            r, c = t[5:].split(",")
            squares.add((int(r), int(c)))
        elif t.startswith("enter "):
            rooms.add(t[6:])
    return squares, rooms


def roll_dests(tokens: dict, n: int, **overrides) -> tuple[set[tuple[int, int]], set[str]]:
    """Destinations of Miss Scarlet (seat 0, to act at reset) in ``tokens`` after rolling ``n``."""
    e = make_env(tokens=tokens, **overrides)
    roll(e, n)
    return dests(e)


def where(e, suspect: str):
    """Public position of a suspect token: room id, (row, col) or None."""
    loc = e.public_state()["tokens"][suspect]
    return tuple(loc) if isinstance(loc, list) else loc


def events(e, since: int = 0) -> list[dict]:
    """The public log (dicts) from index ``since``."""
    return e.public_state()["log"][since:]


def finish_refutation(e) -> None:
    """While someone must show a card, show the first one offered."""
    while e.public_state()["phase"] == "refute":
        do(e, sorted(t for t in legal(e) if t.startswith("show "))[0])


def pass_turn(e) -> None:
    """Play out the acting seat's turn quietly: roll a 1, take the first destination, end."""
    roll(e, 1)
    moves = sorted(t for t in legal(e) if t.startswith(("move ", "enter ")))
    if moves:
        do(e, moves[0])
    do(e, "end")


# ---------------------------------------------------------------- 2023 edition
RULES = "edition2023"


RIGHT = "accuse plum wrench study"  # the ENVELOPE


WRONG = "accuse scarlet rope kitchen"


C = {name: i for i, name in enumerate(CARDS)}  # card id -> card index


HANDS3 = {
    "player_0": ["scarlet", "mustard", "candlestick", "kitchen", "ballroom", "conservatory"],
    "player_1": ["white", "dagger", "lead_pipe", "dining_room", "billiard_room", "library"],
    "player_2": ["green", "peacock", "revolver", "rope", "lounge", "hall"],
}


BOARD2 = {"kitchen": "rope", "ballroom": "green", "lounge": "hall", "library": "revolver"}


HANDS2 = {
    "player_0": ["scarlet", "mustard", "white", "candlestick", "kitchen", "ballroom", "conservatory"],
    "player_1": ["peacock", "dagger", "lead_pipe", "dining_room", "billiard_room", "library", "lounge"],
}


WITHIN_6 = {(23, 7), (22, 7), (23, 8), (21, 7), (22, 8), (20, 7), (21, 8), (19, 7), (20, 8), (18, 7), (19, 8)}


WITHIN_7 = WITHIN_6 | {(17, 7), (18, 6), (18, 8)}


def new23(num_players: int = 3, *, seed: int = 0, envelope=ENVELOPE, hands=None, tokens=None, board_cards=None, **overrides):
    """A reset 2023 raw env; ``board_cards`` is the R30 reset option (two players only)."""
    e = clue_env.raw_env(num_players=num_players, rules=RULES, **overrides)
    options = {}
    for key, value in (("envelope", envelope), ("hands", hands), ("tokens", tokens), ("board_cards", board_cards)):
        if value is not None:
            options[key] = list(value) if key == "envelope" else value
    e.reset(seed=seed, options=options or None)
    return e


def make23(num_players: int = 3, *, first: int = 0, **kw) -> clue_env.raw_env:
    """A reset 2023 raw env where seat ``first`` won the opening roll (R10): its die is scripted
    to 6 and everyone else's to 1; every other draw comes from the env's generator."""
    dies = [6 if s == first else 1 for s in range(num_players)]
    overrides = {k: kw.pop(k) for k in list(kw) if k not in ("seed", "envelope", "hands", "tokens", "board_cards")}
    e = clue_env.raw_env(num_players=num_players, rules=RULES, **overrides)
    e.chance_factory = lambda rng: ScriptedChance(dies=dies, fallback=RandomChance(rng))
    options = {key: (list(v) if key == "envelope" else v) for key, v in kw.items() if key != "seed" and v is not None}
    options.setdefault("envelope", list(ENVELOPE))
    e.reset(seed=kw.get("seed", 0), options=options)
    assert e.agent_selection == f"player_{first}"
    return e


def make2(first: int = 0, **kw) -> clue_env.raw_env:
    """The fixed two-player deal: HANDS2, ENVELOPE, BOARD2 face down on the board (R30)."""
    return make23(2, first=first, hands=HANDS2, board_cards=BOARD2, **kw)


def roll2(e, a: int, b: int) -> None:
    """Roll the two 2023 dice, forcing the faces ``a`` and ``b``."""
    e.game.next_rolls.append((a, b))
    do(e, "roll")


def pass23(e) -> None:
    """Play out the acting seat's 2023 turn quietly: roll 2+3 (no magnifying glass), end."""
    roll2(e, 2, 3)
    do(e, "end")


def n_accusations(e) -> int:
    return sum(t.startswith("accuse ") for t in legal(e))


def piece(e, agent: str, name: str) -> np.ndarray:
    return LAYOUT.view(e.observe(agent)["observation"], name)


def types(evs) -> list[str]:
    return [ev["type"] for ev in evs]


def seat_events(e, agent: str) -> list[tuple]:
    return list(e.infos[agent]["seat_view"].events)


def _first_from_rolls(n: int, rolls: list[int]) -> int:
    """R10 by hand: everyone rolls one die, the highest starts, tied seats roll again."""
    contenders = list(range(n))
    it = iter(rolls)
    while len(contenders) > 1:
        got = [next(it) for _ in contenders]
        top = max(got)
        contenders = [s for s, v in zip(contenders, got) if v == top]
    assert next(it, None) is None, "more rolls than the rule needs"
    return contenders[0]
