"""Replays: one finished game as a small, versioned JSON file, and its step-by-step playback.

A replay holds what re-creates the game with the env alone: the rules (the whole config, so a
rules YAML need not travel with it), the player count, the env's seed, each seat's agent spec and
agent seed, the action index of every decision in order (with the seat that made it), the
outcome, and optionally each agent's own account of its decisions. Chance draws only from the
env's generator (SPEC), so ``reset(seed)`` and the recorded actions give back the same game.

Nothing in it is hidden information beyond what the seed already determines (R31): no hand, no
envelope, no shown card is stored; the accounts are what each seat itself believed. The
``digest`` is a sha256 of the canonical JSON of the rest: it catches an edited or truncated
file, not a forger (anyone can recompute it).

:func:`load_replay` validates a file (a :class:`ReplayError` naming the problem); a
:class:`Playback` re-runs the game and refuses, with :class:`StaleReplay`, a replay that the
current code does not reproduce (an action illegal at its step, another seat to act, another
outcome). Its positions are real envs: :meth:`Playback.env_at` is the position after ``k`` steps.

Bounds. A replay file is read with :func:`clue_env.fileio.read_regular` (at most
:data:`MAX_REPLAY_BYTES`) and parsed with :func:`clue_env.fileio.loads_json` (nesting, huge
integers and non-finite numbers refused), so every bad file is a :class:`ReplayError` with a
message, never a traceback, and nothing in a file is ever unpickled or run. A replay holds at
most :data:`MAX_STEPS` decisions, and each account is small plain data (:func:`check_account`).
A :class:`Playback` keeps a copy of the game every few hundred steps, so going back to any
position re-plays at most :meth:`Playback.snapshot_every` steps from the nearest copy.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import __version__
from .engine.cards import CARDS
from .engine.config import RulesConfig, load_rules
from .engine.errors import ClueError
from .engine.events import Event
from .env import raw_env
from .fileio import InputError, depth, loads_json, one_line, read_regular, short, write_output

FORMAT = "clue_env.replay"
VERSION = 1
#: the largest replay file read (a 300-turn six-player game is about 6 KB, 100-200 KB with accounts)
MAX_REPLAY_BYTES = 4 * 1024 * 1024
#: the most decisions a replay may hold: the longest game of the shipped rules (six seats that
#: never accuse, truncated at 300 turns) has about 1,000; this allows a rules file's ``max_turns``
#: of about 2,900 turns, and bounds what playing a replay back costs
MAX_STEPS = 10_000
#: an account nests at most this deep (the account object itself is 1; the shipped agents use 3)
MAX_ACCOUNT_DEPTH = 6
#: a list or an object inside an account holds at most this many entries (the agents' hold 3-4)
MAX_ACCOUNT_ITEMS = 64
#: a string inside an account (a key too) is at most this long (card ids, action texts)
MAX_ACCOUNT_TEXT = 200
#: a number inside an account is finite and at most this large in size (chances, values)
MAX_ACCOUNT_NUMBER = 1e15
#: a playback keeps a copy of the game every ``max(SNAPSHOT_EVERY, steps / MAX_SNAPSHOTS)`` steps
SNAPSHOT_EVERY = 512
MAX_SNAPSHOTS = 8
#: the keys of a replay document (``accounts`` and ``game`` may be absent)
REQUIRED = ("format", "version", "package", "rules", "num_players", "seed", "seats", "actions", "actors", "outcome", "digest")
OPTIONAL = ("game", "accounts")
STALE = "this replay does not reproduce with the current code"


class ReplayError(ClueError):
    """A replay file that cannot be read: not JSON, another format or version, a digest that
    does not match, a missing key or a value of the wrong type."""


class StaleReplay(ReplayError):
    """A well-formed replay that the current code's game does not reproduce."""


@dataclass(frozen=True)
class Seat:
    spec: str
    agent_seed: int | None


@dataclass(frozen=True)
class Outcome:
    winner: int | None  # seat, None: nobody won
    turns: int
    reason: str
    truncated: bool

    def to_json(self) -> dict[str, Any]:
        return {"winner": self.winner, "turns": self.turns, "reason": self.reason, "truncated": self.truncated}


@dataclass(frozen=True)
class Replay:
    """A validated replay document."""

    rules: RulesConfig
    num_players: int
    seed: int
    seats: tuple[Seat, ...]
    actions: tuple[int, ...]
    actors: tuple[int, ...]
    outcome: Outcome
    accounts: tuple[dict[str, Any] | None, ...] | None = None
    game: int | None = None
    package: str = ""
    #: the file's ``digest`` (``sha256:HEX``), checked
    digest: str = ""

    @property
    def steps(self) -> int:
        return len(self.actions)


def outcome_of(env: raw_env) -> Outcome:
    g = env.game
    return Outcome(int(g.winner) if g.winner >= 0 else None, int(g.turn), str(g.over_reason), bool(g.truncated))


# ---------------------------------------------------------------------- writing
def make_replay(
    *,
    rules: RulesConfig,
    num_players: int,
    seed: int,
    seats: Sequence[tuple[str, int | None]],
    actions: Sequence[int],
    actors: Sequence[int],
    outcome: Outcome,
    accounts: Sequence[dict[str, Any] | None] | None = None,
    game: int | None = None,
) -> dict[str, Any]:
    """The replay document (a JSON-ready dict with its digest) of one finished game."""
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "package": f"clue-env {__version__}",
        "rules": rules.to_dict(),
        "num_players": int(num_players),
        "seed": int(seed),
        "seats": [{"spec": str(s), "agent_seed": None if a is None else int(a)} for s, a in seats],
        "actions": [int(a) for a in actions],
        "actors": [int(a) for a in actors],
        "outcome": outcome.to_json(),
    }
    if game is not None:
        doc["game"] = int(game)
    if accounts is not None and any(a is not None for a in accounts):
        doc["accounts"] = [_plain(a) for a in accounts]
    doc["digest"] = digest(doc)
    return doc


def digest(doc: dict[str, Any]) -> str:
    """``sha256:HEX`` of the canonical JSON of every key but ``digest``."""
    body = {k: v for k, v in doc.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def dumps(doc: dict[str, Any]) -> bytes:
    """The file's bytes: one JSON object, keys in a fixed order, a newline at the end."""
    return (json.dumps(doc, separators=(",", ":"), allow_nan=False) + "\n").encode()


def write_replay(path: str, doc: dict[str, Any]) -> None:
    """Write a replay document atomically (:func:`clue_env.fileio.write_output`)."""
    write_output(path, dumps(doc), prefix=".clue_replay.")


def replay_name(index: int, seed: int, control: bool = False) -> str:
    """The file name of game ``index`` of a tournament (reset with ``seed``)."""
    return f"game_{index:05d}_seed_{seed}{'_control' if control else ''}.json"


def _plain(value: Any) -> Any:
    """``value`` as plain JSON data (numpy scalars and tuples converted; anything else refused)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        f = float(value)
        if not np.isfinite(f):
            raise ValueError(f"an account holds a non-finite number {value!r}")
        return round(f, 6)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _plain(v) for k, v in value.items()}
    raise ValueError(f"an account holds {type(value).__name__} {value!r}, which is not plain JSON data")


# ---------------------------------------------------------------------- reading
def load_replay(path: str) -> Replay:
    """Read and validate a replay file (:class:`ReplayError` naming the problem): a regular file
    of at most :data:`MAX_REPLAY_BYTES`, then :func:`parse_replay`."""
    try:
        data = read_regular(path, MAX_REPLAY_BYTES, "replay file")
    except InputError as e:
        raise ReplayError(f"cannot read replay: {e}") from None
    return parse_replay(data, source=path)


def parse_replay(data: bytes | str, source: str = "replay") -> Replay:
    """Validate a replay's text (see :func:`load_replay`): JSON within the bounds of
    :func:`clue_env.fileio.loads_json`, then :func:`from_document`."""
    try:
        doc = loads_json(data, f"{source}: not a replay file")
    except InputError as e:
        hint = "; is it truncated?" if "not valid JSON" in str(e) else ""
        raise ReplayError(f"{e}{hint}") from None
    return from_document(doc, source)


def check_account(account: Any, where: str = "account") -> None:
    """Refuse (``ValueError`` naming ``where``) an account that is not small plain JSON data: at
    most :data:`MAX_ACCOUNT_DEPTH` deep, lists and objects of at most :data:`MAX_ACCOUNT_ITEMS`
    entries, strings (keys too) of at most :data:`MAX_ACCOUNT_TEXT` characters, numbers finite
    and at most :data:`MAX_ACCOUNT_NUMBER` in size. Walked without recursion."""
    if depth(account) > MAX_ACCOUNT_DEPTH:
        raise ValueError(f"{where} is nested more than {MAX_ACCOUNT_DEPTH} deep")
    stack: list[Any] = [account]
    while stack:
        v = stack.pop()
        if v is None or isinstance(v, bool):
            continue
        if isinstance(v, str):
            if len(v) > MAX_ACCOUNT_TEXT:
                raise ValueError(f"{where} holds a string of {len(v):,} characters (at most {MAX_ACCOUNT_TEXT})")
        elif isinstance(v, (int, float)):
            if not (abs(v) <= MAX_ACCOUNT_NUMBER if isinstance(v, int) else math.isfinite(v) and abs(v) <= MAX_ACCOUNT_NUMBER):
                raise ValueError(f"{where} holds the number {short(v, 40)} (finite, at most {MAX_ACCOUNT_NUMBER:g} in size)")
        elif isinstance(v, (list, dict)):
            if len(v) > MAX_ACCOUNT_ITEMS:
                raise ValueError(f"{where} holds a list or object of {len(v):,} entries (at most {MAX_ACCOUNT_ITEMS})")
            if isinstance(v, dict):
                if not all(isinstance(k, str) for k in v):
                    raise ValueError(f"{where} holds an object whose keys are not all strings")
                stack.extend(v.keys())
                stack.extend(v.values())
            else:
                stack.extend(v)
        else:
            raise ValueError(f"{where} holds {type(v).__name__} {short(v, 40)}, which is not plain JSON data")


def from_document(doc: Any, source: str = "replay") -> Replay:
    def bad(what: str) -> ReplayError:
        return ReplayError(f"{source}: {what}")

    if not isinstance(doc, dict):
        raise bad(f"not a replay file: a JSON {type(doc).__name__}, not an object")
    if doc.get("format") != FORMAT:
        raise bad(f"not a replay file: format is {short(doc.get('format'))}, expected {FORMAT!r}")
    version = doc.get("version")
    if not _is_int(version):
        raise bad(f"key 'version' must be an integer, got {short(version)}")
    if version != VERSION:
        raise bad(f"replay format version {version} is not supported (this code reads version {VERSION})")
    missing = [k for k in REQUIRED if k not in doc]
    if missing:
        raise bad(f"missing key(s) {', '.join(repr(k) for k in missing)}")
    unknown = [k for k in doc if k not in REQUIRED and k not in OPTIONAL]
    if unknown:
        raise bad(f"unknown key(s) {', '.join(repr(k) for k in unknown)}")
    if not isinstance(doc["digest"], str):
        raise bad(f"key 'digest' must be a string, got {short(doc['digest'])}")
    try:
        expected = digest(doc)
    except ValueError as e:  # a NaN or an infinity somewhere
        raise bad(f"holds a value that is not plain JSON ({e})") from None
    if doc["digest"] != expected:
        raise bad("digest mismatch: the file was edited or damaged after it was written")
    if not isinstance(doc["package"], str):
        raise bad(f"key 'package' must be a string, got {short(doc['package'])}")
    if not isinstance(doc["rules"], dict):
        raise bad(f"key 'rules' must be an object (a rules config), got {type(doc['rules']).__name__}")
    try:
        rules = load_rules(dict(doc["rules"]))
    except (ClueError, TypeError, ValueError) as e:
        raise StaleReplay(f"{source}: {STALE}: its rules are refused: {one_line(str(e))}") from None
    n = doc["num_players"]
    if not _is_int(n) or not 2 <= n <= 6:
        raise bad(f"key 'num_players' must be an integer 2-6, got {short(n)}")
    seed = doc["seed"]
    if not _is_int(seed) or seed < 0:
        raise bad(f"key 'seed' must be a non-negative integer, got {short(seed)}")
    seats = doc["seats"]
    if not isinstance(seats, list) or len(seats) != n:
        raise bad(f"key 'seats' must be a list of {n} seats, got {short(seats)}")
    parsed_seats = []
    for i, s in enumerate(seats):
        if not isinstance(s, dict) or set(s) != {"spec", "agent_seed"}:
            raise bad(f"seats[{i}] must be an object with 'spec' and 'agent_seed', got {short(s)}")
        if not isinstance(s["spec"], str) or not s["spec"]:
            raise bad(f"seats[{i}].spec must be a non-empty string, got {short(s['spec'])}")
        if s["agent_seed"] is not None and not _is_int(s["agent_seed"]):
            raise bad(f"seats[{i}].agent_seed must be an integer or null, got {short(s['agent_seed'])}")
        parsed_seats.append(Seat(s["spec"], s["agent_seed"]))
    actions, actors = doc["actions"], doc["actors"]
    for key, values in (("actions", actions), ("actors", actors)):
        if isinstance(values, list) and len(values) > MAX_STEPS:
            raise bad(f"key {key!r} holds {len(values):,} steps; a replay holds at most {MAX_STEPS:,}")
        if not isinstance(values, list) or not all(_is_int(v) and v >= 0 for v in values):
            raise bad(f"key {key!r} must be a list of non-negative integers")
    if len(actors) != len(actions):
        raise bad(f"'actions' has {len(actions)} entries but 'actors' has {len(actors)}")
    if any(a >= n for a in actors):
        raise bad(f"'actors' names a seat outside 0..{n - 1}")
    outcome = doc["outcome"]
    if not isinstance(outcome, dict) or set(outcome) != {"winner", "turns", "reason", "truncated"}:
        raise bad(f"key 'outcome' must be an object with winner, turns, reason and truncated, got {short(outcome)}")
    w = outcome["winner"]
    if not (w is None or _is_int(w) and 0 <= w < n):
        raise bad(f"outcome.winner must be a seat 0..{n - 1} or null, got {short(w)}")
    if not _is_int(outcome["turns"]) or outcome["turns"] < 0:
        raise bad(f"outcome.turns must be a non-negative integer, got {short(outcome['turns'])}")
    if not isinstance(outcome["reason"], str) or not isinstance(outcome["truncated"], bool):
        raise bad("outcome.reason must be a string and outcome.truncated true or false")
    accounts = doc.get("accounts")
    if accounts is not None:
        if not isinstance(accounts, list) or len(accounts) != len(actions):
            raise bad(f"key 'accounts' must be a list of {len(actions)} entries (one per action)")
        if not all(a is None or isinstance(a, dict) for a in accounts):
            raise bad("every entry of 'accounts' must be an object or null")
        for i, a in enumerate(accounts):
            if a is not None:
                try:
                    check_account(a, f"accounts[{i}]")
                except ValueError as e:
                    raise bad(str(e)) from None
    game = doc.get("game")
    if game is not None and (not _is_int(game) or game < 0):
        raise bad(f"key 'game' must be a non-negative integer, got {short(game)}")
    return Replay(
        rules=rules,
        num_players=n,
        seed=seed,
        seats=tuple(parsed_seats),
        actions=tuple(actions),
        actors=tuple(actors),
        outcome=Outcome(w, outcome["turns"], outcome["reason"], outcome["truncated"]),
        accounts=None if accounts is None else tuple(accounts),
        game=game,
        package=doc["package"],
        digest=doc["digest"],
    )


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# ---------------------------------------------------------------------- playback
class Playback:
    """A replay re-run by the current code, step by step. Step ``k`` (1-based) is the ``k``-th
    recorded decision; position ``k`` is the game after ``k`` steps (position 0: the deal).

    Built only when the whole game reproduces: every recorded action legal for the recorded seat
    at its step, the game over after the last one, with the recorded outcome; else
    :class:`StaleReplay` naming the first step that differs.

    While it checks the game it keeps a copy of the env every :attr:`snapshot_every` steps (at
    most :data:`MAX_SNAPSHOTS` + 1 copies, sharing the board, the codec and the immutable events),
    so :meth:`env_at` reaches any position by copying the nearest kept one at or before it and
    stepping at most ``snapshot_every - 1`` steps, or by stepping forward from where it is when
    that is nearer."""

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        #: steps between two kept copies of the game
        self.snapshot_every = max(SNAPSHOT_EVERY, -(-replay.steps // MAX_SNAPSHOTS))
        self._env = self._fresh()
        self._pos = 0
        #: ``len(game.log)`` and ``game.turn`` at each position
        self._log_len = [len(self._env.game.log)]
        self._turns = [int(self._env.game.turn)]
        #: position // snapshot_every -> a copy of the env at that position (never stepped)
        self._snapshots: dict[int, raw_env] = {}
        self._verify()

    @property
    def steps(self) -> int:
        return self.replay.steps

    def _fresh(self) -> raw_env:
        env = raw_env(num_players=self.replay.num_players, rules=self.replay.rules)
        env.reset(seed=self.replay.seed)
        return env

    def _verify(self) -> None:
        r, env = self.replay, self._env
        g = env.game
        every = self.snapshot_every
        self._snapshots[0] = _clone(env)
        for k, (action, actor) in enumerate(zip(r.actions, r.actors), start=1):
            if g.over:
                raise StaleReplay(f"{STALE}: the game is over after step {k - 1}, but {r.steps} steps are recorded")
            if int(g.acting) != actor:
                raise StaleReplay(f"{STALE}: step {k}: player_{g.acting} must decide, but the replay has player_{actor} deciding")
            text = env.action_to_text(action) if action < env.codec.n else f"index {action}"
            if action >= env.codec.n or not env.observe(env.agent_selection)["action_mask"][action]:
                raise StaleReplay(f"{STALE}: step {k}: {text!r} is not a legal action for player_{actor} now")
            env.step(action)
            self._log_len.append(len(g.log))
            self._turns.append(int(g.turn))
            if k % every == 0:
                self._snapshots[k // every] = _clone(env)
        self._pos = r.steps
        if not g.over:
            raise StaleReplay(f"{STALE}: the game is not over after the {r.steps} recorded steps")
        got = outcome_of(env)
        if got != r.outcome:
            raise StaleReplay(f"{STALE}: the game ends {got.to_json()}, but the replay says {r.outcome.to_json()}")

    # ------------------------------------------------------------------ positions
    def env_at(self, k: int) -> raw_env:
        """The env at position ``k`` (0..steps). The object is reused: read it before the next call."""
        if not 0 <= k <= self.steps:
            raise ValueError(f"a position is 0..{self.steps}, got {k}")
        every = self.snapshot_every
        if k < self._pos or k - self._pos >= every:  # start from the nearest kept copy at or before k
            self._env, self._pos = _clone(self._snapshots[k // every]), k // every * every
        while self._pos < k:
            self._env.step(self.replay.actions[self._pos])
            self._pos += 1
        return self._env

    def turn(self, k: int) -> int:
        """The game's turn number at position ``k`` (0..steps), without moving the playback."""
        if not 0 <= k <= self.steps:
            raise ValueError(f"a position is 0..{self.steps}, got {k}")
        return self._turns[k]

    def actor(self, k: int) -> int:
        """The seat that decided at step ``k`` (1..steps)."""
        return self.replay.actors[self._step(k)]

    def action(self, k: int) -> int:
        return self.replay.actions[self._step(k)]

    def action_text(self, k: int) -> str:
        """Step ``k``'s action in its SPEC text form (card ids)."""
        return self._env.codec.to_text(self.action(k))

    def action_words(self, k: int) -> str:
        """Step ``k``'s action with the ruleset's display names (``suggest Professor Plum, Rope``)."""
        return action_words(self.replay.rules, self.action_text(k))

    def account(self, k: int) -> dict[str, Any] | None:
        """The acting agent's own account of step ``k``'s decision, when it recorded one."""
        i = self._step(k)
        return None if self.replay.accounts is None else self.replay.accounts[i]

    def events(self, k: int) -> list[Event]:
        """The engine events step ``k`` produced (unredacted: redact them for a seat's view)."""
        i = self._step(k)
        return list(self.env_at(k).game.log[self._log_len[i] : self._log_len[i + 1]])

    def _step(self, k: int) -> int:
        if not 1 <= k <= self.steps:
            raise ValueError(f"a step is 1..{self.steps}, got {k}")
        return k - 1


def _clone(env: raw_env) -> raw_env:
    """An independent copy of ``env`` that steps on by itself; the board, the codec and the log's
    events (immutable, shared by every env of the process or appended once) are shared, and the
    log itself is copied as a list of them."""
    log = env.game.log
    memo: dict[int, Any] = {id(env.board): env.board, id(env.codec): env.codec, id(log): list(log)}
    memo.update((id(ev), ev) for ev in log)
    return copy.deepcopy(env, memo)


def action_words(rules: RulesConfig, text: str) -> str:
    """An action's text form with card ids as the ruleset's display names."""
    verb, _, rest = text.partition(" ")
    words = rest.split()
    if words and all(w in CARDS for w in words):
        return f"{verb} {', '.join(rules.display(w) for w in words)}"
    return text


def open_replay(path: str) -> Playback:
    """Load, validate and re-run a replay (:class:`ReplayError` / :class:`StaleReplay`)."""
    replay = load_replay(path)
    try:
        return Playback(replay)
    except StaleReplay as e:
        raise StaleReplay(f"{path}: {e}") from None


__all__ = [
    "FORMAT",
    "VERSION",
    "Outcome",
    "Playback",
    "Replay",
    "ReplayError",
    "Seat",
    "StaleReplay",
    "MAX_ACCOUNT_DEPTH",
    "MAX_ACCOUNT_ITEMS",
    "MAX_ACCOUNT_NUMBER",
    "MAX_ACCOUNT_TEXT",
    "MAX_REPLAY_BYTES",
    "MAX_SNAPSHOTS",
    "MAX_STEPS",
    "SNAPSHOT_EVERY",
    "action_words",
    "check_account",
    "digest",
    "dumps",
    "from_document",
    "load_replay",
    "make_replay",
    "open_replay",
    "outcome_of",
    "parse_replay",
    "replay_name",
    "write_replay",
]
