"""Small helpers for the per-rule tests (tests/test_rules_*.py).

Positions are built with the env's reset options and dice are queued on ``env.game.next_rolls``.
Legal actions are read back from the action mask as SPEC text forms, so every helper goes
through the public env interface.
"""

from __future__ import annotations

import clue_env

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
