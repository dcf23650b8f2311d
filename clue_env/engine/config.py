"""Rules configuration: one frozen, validated object per ruleset (SPEC "Names").

Every variant named in RULES.md is a field; the presets ``classic`` and ``edition2023`` are YAML
files shipped in ``clue_env/presets`` (mirrored in the repository's ``configs/rules``).
Unknown keys and bad values raise :class:`ConfigError` naming the key.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from ..fileio import InputError, loads_yaml, read_regular, short
from .cards import DEFAULT_DISPLAY, SUSPECTS
from .errors import ConfigError

PRESETS = ("classic", "edition2023")
#: the largest rules file read (the presets are under 2 KiB)
RULES_FILE_LIMIT = 1 << 20


#: the most dice, and faces per die, that the observation encodes (a roll of at most 12)
MAX_DICE = 2
MAX_FACES = 6


class FrozenDict(dict[str, str]):
    """A read-only ``dict`` (a ruleset's ``suspect_names``): a ruleset is shared by the game and
    handed to agents, so no part of it may be writable. Still a ``dict`` for ``json`` and
    ``dataclasses.asdict``; pickles and copies as itself."""

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("a ruleset is read-only: make another one (RulesConfig.with_overrides, load_rules)")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _refuse  # type: ignore[assignment]

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self),))

    def __repr__(self) -> str:
        return f"FrozenDict({dict.__repr__(self)})"


@dataclass(frozen=True)
class RulesConfig:
    """A ruleset. Field docs cite the rule each one implements."""

    #: ruleset name (informational; the preset it came from)
    name: str = "classic"
    #: R7: ``all`` places all six suspect tokens, ``players_only`` only the played ones
    tokens_on_board: str = "all"
    #: R16: ``true`` move exactly the roll (rooms may be entered with pips left over);
    #: ``false`` move up to the roll
    full_roll: bool = True
    #: R28: ``true`` accuse wherever your token is; ``false`` only from inside a room
    accuse_anywhere: bool = True
    #: R29: ``true`` the last player not eliminated wins; ``false`` play on, nobody wins
    #: when every player has accused wrongly
    last_player_standing: bool = True
    #: R22: ``classic`` suggest again only after entering a room on this turn (or R21);
    #: ``stay`` a player who starts the turn in a room may stay and suggest again (2023)
    repeat_suggestion: str = "classic"
    #: R2/R23: number of dice (classic 1, 2023 2)
    num_dice: int = 1
    #: R2/R23: faces per die
    die_faces: int = 6
    #: R23: one face of each die (the 1) is a magnifying glass, counting as one when moving
    magnifying_glass: bool = False
    #: R10: ``scarlet`` (classic: Miss Scarlet first) or ``highest_roll`` (2023)
    first_player: str = "scarlet"
    #: R12 (2023): a turn starts with the roll; staying, a secret passage, moving or ending the
    #: turn are then chosen (``false``: classic R11, roll or passage or stay at the start)
    roll_first: bool = False
    #: R24-R25: the deck of Clue cards is in play (drawn when a magnifying glass shows)
    clue_cards: bool = False
    #: R25: the deck's cards as effect specs; ``None`` = one ``reveal:CARD`` per card of the game
    clue_deck: tuple[str, ...] | None = None
    #: R30: in a two-player game, this many dealt cards lie face down in rooms instead
    two_player_board_cards: int = 0
    #: R1: display name of the victim
    victim: str = ""
    #: R15: the episode is truncated when this many turns have been played
    max_turns: int = 300
    #: characters assigned to seats in clockwise order (default: the turn order R10)
    characters: tuple[str, ...] | None = None
    #: R1: display names of the suspects (by card id)
    suspect_names: Mapping[str, str] = field(default_factory=dict)
    #: rewards (SPEC): winner, every other seat still in the game on a win, a wrong accusation
    #: (at once, to the accuser), and everyone still in on truncation / nobody winning
    reward_win: float = 1.0
    reward_lose: float = -1.0
    reward_wrong_accusation: float = -1.0
    reward_draw: float = 0.0
    #: player counts this ruleset allows (R9)
    min_players: int = 3
    max_players: int = 6

    def __post_init__(self) -> None:
        _check_choice("tokens_on_board", self.tokens_on_board, ("all", "players_only"))
        _check_choice("repeat_suggestion", self.repeat_suggestion, ("classic", "stay"))
        _check_choice("first_player", self.first_player, ("scarlet", "highest_roll"))
        for name in ("full_roll", "accuse_anywhere", "last_player_standing", "magnifying_glass", "roll_first", "clue_cards"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"config key {name!r} must be true or false, got {short(getattr(self, name))}")
        # the observation encodes at most two dice of up to six faces (and a roll of up to 12), and
        # the exact-move search (full_roll, R16) stays a few milliseconds up to a roll of 12
        _check_int("num_dice", self.num_dice, 1, MAX_DICE, why="the observation encodes at most 2 dice")
        _check_int("die_faces", self.die_faces, 2, MAX_FACES, why="the observation's dice piece has 6 faces per die")
        _check_int("max_turns", self.max_turns, 1, 10**7)
        _check_int("two_player_board_cards", self.two_player_board_cards, 0, 9)
        if not isinstance(self.victim, str):
            raise ConfigError(f"config key 'victim' must be a name, got {short(self.victim)}")
        if not isinstance(self.name, str) or not self.name:
            raise ConfigError(f"config key 'name' must be a non-empty string, got {short(self.name)}")
        if self.clue_deck is not None and (isinstance(self.clue_deck, (str, bytes)) or not isinstance(self.clue_deck, Iterable)):
            raise ConfigError(f"config key 'clue_deck' must be a non-empty list of effects, got {short(self.clue_deck)}")
        if self.characters is not None and (
            isinstance(self.characters, (str, bytes)) or not isinstance(self.characters, Iterable)
        ):
            raise ConfigError(
                f"config key 'characters' must list distinct suspects from {SUSPECTS}, got {short(self.characters)}"
            )
        if self.clue_deck is not None:
            from .clue_cards import parse_effect

            if isinstance(self.clue_deck, str) or not self.clue_deck:
                raise ConfigError(f"config key 'clue_deck' must be a non-empty list of effects, got {short(self.clue_deck)}")
            deck = tuple(self.clue_deck)
            for spec in deck:
                try:
                    parse_effect(spec)
                except ValueError as e:
                    raise ConfigError(f"config key 'clue_deck': {e}") from None
            object.__setattr__(self, "clue_deck", deck)
        _check_int("min_players", self.min_players, 2, 6)
        _check_int("max_players", self.max_players, self.min_players, 6)
        for name in ("reward_win", "reward_lose", "reward_wrong_accusation", "reward_draw"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ConfigError(f"config key {name!r} must be a finite number, got {short(v)}")
            object.__setattr__(self, name, float(v))
        if self.characters is not None:
            chars = tuple(self.characters)
            bad = [c for c in chars if c not in SUSPECTS]
            if bad or len(set(chars)) != len(chars) or not chars:
                raise ConfigError(
                    f"config key 'characters' must list distinct suspects from {SUSPECTS}, got {short(self.characters)}"
                )
            object.__setattr__(self, "characters", chars)
        if (
            not isinstance(self.suspect_names, Mapping)
            or any(k not in SUSPECTS for k in self.suspect_names)
            or any(not isinstance(v, str) or not v for v in self.suspect_names.values())
        ):
            raise ConfigError(
                f"config key 'suspect_names' must map suspect ids to non-empty names (strings), got {short(self.suspect_names)}"
            )
        if not isinstance(self.suspect_names, FrozenDict):  # read-only, and no longer the caller's dict
            object.__setattr__(self, "suspect_names", FrozenDict(self.suspect_names))

    # ---------------------------------------------------------------- helpers
    def display(self, card: str) -> str:
        """Display name of a card id under this ruleset (R1)."""
        return self.suspect_names.get(card) or DEFAULT_DISPLAY[card]

    def with_overrides(self, **overrides: Any) -> RulesConfig:
        """A copy with some fields replaced (validated; unknown keys raise)."""
        _check_keys(overrides)
        return dataclasses.replace(self, **overrides)

    def seat_characters(self, num_players: int) -> tuple[str, ...]:
        """Suspect played by each seat, clockwise (SPEC: the turn order unless configured)."""
        if self.characters is None:
            return SUSPECTS[:num_players]
        if len(self.characters) < num_players:
            raise ConfigError(f"config key 'characters' names {len(self.characters)} suspects but num_players is {num_players}")
        return self.characters[:num_players]

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        for key in ("characters", "clue_deck"):
            if d[key] is not None:
                d[key] = list(d[key])
        d["suspect_names"] = dict(self.suspect_names)
        return d


FIELDS = tuple(f.name for f in dataclasses.fields(RulesConfig))


def _check_choice(key: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ConfigError(f"config key {key!r} must be one of {list(allowed)}, got {short(value)}")


def _check_int(key: str, value: Any, lo: int, hi: int, why: str = "") -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        reason = f" ({why})" if why else ""
        raise ConfigError(f"config key {key!r} must be an integer in {lo}..{hi}{reason}, got {short(value)}")


def _check_keys(d: dict[str, Any]) -> None:
    unknown = [k for k in d if k not in FIELDS]
    if unknown:
        raise ConfigError(f"unknown config key(s) {short(unknown)}; known keys: {', '.join(FIELDS)}")


def from_dict(d: dict[str, Any]) -> RulesConfig:
    """Build a config from a mapping (e.g. parsed YAML); unknown keys raise ConfigError."""
    if not isinstance(d, dict):
        raise ConfigError(f"a rules config must be a mapping of keys to values, got {type(d).__name__}")
    _check_keys(d)
    return RulesConfig(**d)


def preset_path(name: str) -> str:
    return str(resources.files("clue_env.presets").joinpath(f"{name}.yaml"))


def load_rules(rules: str | RulesConfig | dict[str, Any] = "classic", **overrides: Any) -> RulesConfig:
    """Load a ruleset: a preset name, a path to a YAML file, a mapping, or a config object.

    Keyword overrides replace single fields (validated).
    """
    if isinstance(rules, RulesConfig):
        cfg = rules
    elif isinstance(rules, dict):
        cfg = from_dict(rules)
    elif isinstance(rules, str):
        if rules in PRESETS:
            path = preset_path(rules)
        elif os.path.isdir(rules):
            raise ConfigError(f"rules {rules!r} is a directory; give a preset ({', '.join(PRESETS)}) or a YAML file")
        elif os.path.exists(rules):
            path = rules
        else:
            raise ConfigError(f"rules {rules!r} is neither a preset ({', '.join(PRESETS)}) nor an existing YAML file")
        try:  # within bounds (clue_env.fileio): size, nesting, no YAML anchors or aliases
            data = loads_yaml(read_regular(path, RULES_FILE_LIMIT, "rules file"), f"rules file {path}")
        except InputError as e:
            raise ConfigError(str(e)) from None
        cfg = from_dict(data or {})
    else:
        raise ConfigError(f"rules must be a preset name, a YAML path, a mapping or a RulesConfig, got {short(rules)}")
    return cfg.with_overrides(**overrides) if overrides else cfg
