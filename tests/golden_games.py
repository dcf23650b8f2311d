"""Golden playthroughs (OpenSpiel style): deterministic games written as readable text files.

Each game in :data:`GAMES` is played through ``clue_env.raw_env`` with ``reset(seed=...)`` by a
seeded scripted policy (no ``agents`` package needed): uniform among the legal actions other
than accusations (a ``numpy`` generator seeded per game), plus scripted accusations — wrong ones
by given seats from given turns, and the true solution (read from ``env.game.envelope``) by
whoever may accuse once ``accuse_turn`` is reached.

One line per decision::

    0007 player_1 t3 SUGGEST legal=254 obs=1a2b3c4d5e6f mask=0a1b2c3d4e5f | suggest plum rope | rew 0 0 0

step number, acting agent, turn, phase, number of legal actions, the first 12 hex digits of
the sha1 of the acting agent's observation vector and of its action mask (as ``env.last()``
gives them before the step), the action text, and ``env.rewards`` after the step (seat order).
Below it, a ``~`` line spells out, as readable text, every observation piece (``python -m
clue_env observation``) that changed since that agent's previous decision: the piece's non-zero
entries as ``index:value`` (``piece{}`` when it became all zero), so a diff shows what changed::

         ~ roll{7:1} dice{2:1,9:1} current{1:1}
When the game is over every agent's final ``env.last()`` is recorded (``done`` lines).

``tests/test_golden.py`` replays each file's action texts and asserts every line is reproduced.
Regenerate the files after an intended change with ``python -m tests.golden_games`` (or run
the tests with ``CLUE_REGEN_GOLDEN=1``) and review the diff.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import clue_env
from clue_env.engine.cards import ROOMS, SUSPECTS, WEAPONS
from clue_env.observation import LAYOUT

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
#: hard cap on recorded decisions per game (keeps the files small)
MAX_STEPS = 400


@dataclass(frozen=True)
class GoldenGame:
    """One golden game: how the env is built and how the scripted policy plays."""

    name: str
    num_players: int
    seed: int
    #: from this turn on, whoever is to act and may accuse accuses the true solution
    accuse_turn: int | None = None
    #: (seat, turn): that seat accuses wrongly at its first chance from that turn on
    wrong_accusations: tuple[tuple[int, int], ...] = ()
    #: per-field rules overrides passed to ``raw_env`` (e.g. ``max_turns``)
    overrides: tuple[tuple[str, object], ...] = field(default=())
    rules: str = "classic"

    @property
    def path(self) -> Path:
        return GOLDEN_DIR / f"{self.name}.txt"

    def make_env(self) -> clue_env.raw_env:
        return clue_env.raw_env(num_players=self.num_players, rules=self.rules, **dict(self.overrides))

    def describe(self) -> list[str]:
        kwargs = ", ".join([f"num_players={self.num_players}", *(f"{k}={v!r}" for k, v in self.overrides)])
        if self.rules != "classic":
            kwargs += f", rules={self.rules!r}"
        policy = f"uniform over legal non-accuse actions, numpy seed {self.seed}"
        if self.wrong_accusations:
            policy += "; wrong accusation by " + ", ".join(f"player_{s} from turn {t}" for s, t in self.wrong_accusations)
        if self.accuse_turn is not None:
            policy += f"; accuse the true solution from turn {self.accuse_turn}"
        return [
            f"# golden playthrough {self.name} (regenerate: python -m tests.golden_games)",
            f"# env: clue_env.raw_env({kwargs}); reset(seed={self.seed})",
            f"# policy: {policy}",
            "# step agent turn phase legal obs-sha1 mask-sha1 | action | rewards after the step (player_0..)",
        ]


GAMES: tuple[GoldenGame, ...] = (
    GoldenGame("classic_p3_seed1", 3, 1, accuse_turn=30),
    GoldenGame("classic_p4_seed2_wrong_accusation", 4, 2, accuse_turn=32, wrong_accusations=((1, 10),)),
    GoldenGame("classic_p5_seed3", 5, 3, accuse_turn=35),
    GoldenGame("classic_p6_seed4_wrong_accusation", 6, 4, accuse_turn=36, wrong_accusations=((4, 12),)),
    GoldenGame("classic_p3_seed5_last_standing", 3, 5, wrong_accusations=((0, 12), (2, 18))),
    GoldenGame("classic_p3_seed6_max_turns30", 3, 6, overrides=(("max_turns", 30),)),
    GoldenGame("edition2023_p2_seed7", 2, 7, accuse_turn=24, rules="edition2023"),
    GoldenGame("edition2023_p4_seed8_wrong_accusation", 4, 8, accuse_turn=34, wrong_accusations=((2, 12),), rules="edition2023"),
    GoldenGame("edition2023_p3_seed9_max_turns40", 3, 9, overrides=(("max_turns", 40),), rules="edition2023"),
)

Chooser = Callable[[clue_env.raw_env, str, np.ndarray], int]


def _sha(a: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(a).tobytes()).hexdigest()[:12]


def _num(v: float) -> str:
    return "1" if v == 1 else f"{v:.4g}"


def piece_changes(before: np.ndarray | None, after: np.ndarray) -> str:
    """The observation pieces that differ between two vectors, as readable text."""
    out = []
    for name, _shape, _doc in LAYOUT.pieces:
        a = LAYOUT.view(after, name).reshape(-1)
        b = None if before is None else LAYOUT.view(before, name).reshape(-1)
        if b is not None and np.array_equal(a, b):
            continue
        if b is None and not a.any():
            continue
        entries = ",".join(f"{int(i)}:{_num(float(a[i]))}" for i in np.flatnonzero(a))
        out.append(f"{name}{{{entries}}}")
    return "     ~ " + " ".join(out) if out else "     ~ (no change)"


def _fmt(r: float) -> str:
    return "0" if r == 0 else f"{r:+g}"


def scripted_policy(game: GoldenGame) -> Chooser:
    """The seeded scripted policy of ``game`` (reads the envelope only to accuse correctly)."""
    rng = np.random.default_rng(game.seed)
    pending = dict(game.wrong_accusations)

    def choose(env: clue_env.raw_env, agent: str, mask: np.ndarray) -> int:
        g = env.game
        seat = env.possible_agents.index(agent)
        acc = env.codec.accuse_slice
        may_accuse = bool(mask[acc].any()) and seat == g.current
        s, w, r = g.envelope
        truth = env.text_to_action(f"accuse {SUSPECTS[s]} {WEAPONS[w]} {ROOMS[r]}")
        if may_accuse and seat in pending and g.turn >= pending[seat]:
            del pending[seat]
            wrong = [i for i in np.flatnonzero(mask[acc]) + acc.start if i != truth]
            return int(rng.choice(wrong))
        if may_accuse and game.accuse_turn is not None and g.turn >= game.accuse_turn:
            return truth
        legal = mask.copy()
        legal[acc] = 0
        return int(rng.choice(np.flatnonzero(legal)))

    return choose


def replay_policy(actions: list[str]) -> Chooser:
    """Plays the given action texts in order (``IndexError`` when they run out)."""
    it: Iterator[str] = iter(actions)

    def choose(env: clue_env.raw_env, agent: str, mask: np.ndarray) -> int:
        try:
            return env.text_to_action(next(it))
        except StopIteration:
            raise IndexError("the golden file has no more actions but the game is not over") from None

    return choose


def play(game: GoldenGame, choose: Chooser | None = None) -> list[str]:
    """Play ``game`` and return its golden lines (header included)."""
    env = game.make_env()
    env.reset(seed=game.seed)
    choose = choose or scripted_policy(game)
    lines = game.describe()
    step = 0
    last_obs: dict[str, np.ndarray] = {}
    for agent in env.agent_iter(max_iter=MAX_STEPS + 2 * env.num_players):
        obs, reward, term, trunc, _info = env.last()
        if term or trunc:
            how = "terminated" if term else "truncated"
            lines.append(f"done {agent} {how} reward={_fmt(reward)}")
            env.step(None)
            continue
        if step >= MAX_STEPS:
            lines.append(f"# capped at {MAX_STEPS} steps")
            break
        g = env.game
        mask = obs["action_mask"]
        head = (
            f"{step:04d} {agent} t{g.turn} {g.phase.name} legal={int(mask.sum())} "
            f"obs={_sha(obs['observation'])} mask={_sha(mask)}"
        )
        action = choose(env, agent, mask)
        text = env.action_to_text(action)
        env.step(action)
        rewards = " ".join(_fmt(env.rewards[a]) for a in env.possible_agents)
        lines.append(f"{head} | {text} | rew {rewards}")
        lines.append(piece_changes(last_obs.get(agent), obs["observation"]))
        last_obs[agent] = obs["observation"].copy()
        step += 1
    g = env.game
    winner = f"player_{g.winner}" if g.winner >= 0 else "nobody"
    lines.append(f"# result: winner={winner} reason={g.over_reason or 'unfinished'} turns={g.turn} steps={step}")
    return lines


def parse_actions(lines: list[str]) -> list[str]:
    """The action texts of a golden file's step lines."""
    return [line.split(" | ")[1] for line in lines if line[:1].isdigit()]


def read(game: GoldenGame) -> list[str]:
    return game.path.read_text(encoding="utf-8").splitlines()


def write(game: GoldenGame) -> Path:
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    game.path.write_text("\n".join(play(game)) + "\n", encoding="utf-8")
    return game.path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.golden_games", description="Regenerate the golden playthrough files.")
    ap.add_argument("names", nargs="*", help="games to regenerate (default: all)")
    ap.add_argument("--check", action="store_true", help="only report which files differ")
    args = ap.parse_args(argv)
    known = {g.name: g for g in GAMES}
    unknown = [n for n in args.names if n not in known]
    if unknown:
        ap.error(f"unknown game(s) {unknown}; known: {', '.join(known)}")
    differ = 0
    for game in [known[n] for n in args.names] or list(GAMES):
        if args.check:
            same = game.path.exists() and read(game) == play(game, replay_policy(parse_actions(read(game))))
            differ += not same
            print(f"{'ok     ' if same else 'DIFFERS'} {game.path}")
        else:
            path = write(game)
            print(f"wrote {path} ({len(read(game))} lines)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
