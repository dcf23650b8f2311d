"""Play Clue against the agents: in the terminal, or in a browser with ``--web`` (SPEC "Scripts").

    python play.py [--seats SPEC,...] [--players N] [--rules classic|edition2023] [--seed S]
                   [--agent-seed A] [--notes off|facts|deduce]
    python play.py --web [--host 127.0.0.1] [--port 8000] [--agent-delay 0.3] [--forwarded-allow-ips IPS]
    python play.py --replay FILE   (a replay written by evaluate.py --replays; docs/replays.md)

(with ``--web`` the browser's new-game form chooses the seats, players, rules and seed: the
terminal's options are refused with it, and ``--web``'s without it)

``human`` marks the seats played at this terminal (several: hot seat); the other seats are
agent specs (see ``evaluate.py``). Default: you in ``player_0`` against the shipped policy
``ppo`` (``models/clue_ppo_4p_mixed.pt`` in the default 4-player game; in a two-player game
``models/clue_ppo_2p_mixed.pt``).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import secrets
import sys

import numpy as np

from agents import SpecFactory, play_factory, split_specs
from clue_env.engine.errors import ClueError
from clue_env.play import HUMAN, GameSession
from clue_env.play.notes import MODES
from clue_env.play.terminal import TerminalUI

DEFAULT_PLAYERS = 4
#: the default opponent: the shipped policy (agents.ppo_agent.shipped_policy: models/clue_ppo_4p_mixed.pt with 4 players)
DEFAULT_OPPONENT = "ppo"
WEB_EXTRA = "the web front end needs the play extra: pip install -e '.[play]'"
#: the options of a terminal game, which a --web server does not take (its new-game form asks)
TERMINAL_OPTIONS = ("seats", "players", "rules", "seed", "agent_seed", "notes")
#: the options of --web only, with their defaults
WEB_OPTIONS = {"host": "127.0.0.1", "port": 8000, "agent_delay": 0.3, "forwarded_allow_ips": None}


def default_opponent(players: int) -> str:
    return DEFAULT_OPPONENT


def build_seats(seats: str | None, players: int | None) -> list[str]:
    """The spec of every seat from ``--seats`` and ``--players``; ``ValueError`` saying what is wrong."""
    if players is not None and not 2 <= players <= 6:
        raise ValueError(f"--players must be 2-6, got {players}")
    if seats is None:
        n = players if players is not None else DEFAULT_PLAYERS
        return [HUMAN] + [default_opponent(n)] * (n - 1)
    specs = split_specs(seats)  # a spec's own key=value parameters stay with it
    if any(not s for s in specs):
        raise ValueError(f"--seats {seats!r} has an empty spec; write e.g. human,ppo,random")
    n = players if players is not None else len(specs)
    if len(specs) > n:
        raise ValueError(f"--seats names {len(specs)} seats but --players is {n}")
    specs += [default_opponent(n)] * (n - len(specs))
    if not 2 <= n <= 6:
        raise ValueError(f"a game has 2-6 players, --seats names {n}")
    if HUMAN not in specs:
        raise ValueError("--seats has no 'human' seat (to watch agents play each other, use evaluate.py)")
    return specs


def check_agents(specs: list[str]) -> None:
    """``ValueError`` naming the first agent spec that names no known agent (checked before the
    game is set up, so that a typo is not reported as something else, such as the player count)."""
    for spec in specs:
        if spec != HUMAN:
            SpecFactory(spec)


def serve_web(host: str, port: int, agent_delay: float = 0.3, forwarded_allow_ips: str | None = None) -> int:
    """``--web``: the server of :mod:`clue_env.play.web.server` (imported only here)."""
    if any(importlib.util.find_spec(m) is None for m in ("fastapi", "uvicorn")):
        print(WEB_EXTRA, file=sys.stderr)
        return 2
    try:
        server = importlib.import_module("clue_env.play.web.server")
    except ModuleNotFoundError as e:
        if (e.name or "").split(".")[0] in ("fastapi", "uvicorn", "starlette", "pydantic"):
            print(WEB_EXTRA, file=sys.stderr)
            return 2
        raise
    proxies: dict[str, str] = {}
    if forwarded_allow_ips is not None:  # proxy headers are the operator's opt-in
        try:
            server.proxy_options(forwarded_allow_ips)
        except ValueError as e:
            print(f"play.py: error: --{e}", file=sys.stderr)
            return 2
        proxies["forwarded_allow_ips"] = forwarded_allow_ips
    try:
        server.serve(host=host, port=port, agent_factory=play_factory, agent_delay=agent_delay, **proxies)
    except KeyboardInterrupt:
        return 130
    return 0


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 < port < 65536:
        raise argparse.ArgumentTypeError(f"a port is 1-65535, got {port}")
    return port


def _delay(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 <= value <= 10:
        raise argparse.ArgumentTypeError(f"the agent delay is 0-10 seconds, got {text}")
    return value


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="Play Clue against the agents in the terminal (or in a browser with --web).",
        epilog="At the prompt: an action's text form (roll, move R,C, enter ROOM, suggest SUSPECT WEAPON, "
        "show CARD, accuse SUSPECT WEAPON ROOM, end, ...), a menu number, or legal, board, hand, notes, "
        "log, help, quit. Accusations are confirmed with y, except one typed as text and read from a pipe, "
        "which is played as it stands. End of input quits (exit status 0).",
    )
    ap.add_argument(
        "--seats",
        default=None,
        help="comma-separated specs, one per seat: 'human' for a person at this terminal (several: hot seat), "
        f"else an agent spec as in evaluate.py; missing seats get the default opponent (default: human, then "
        f"'{DEFAULT_OPPONENT}', the shipped policy, which has its own policy file for the 2-player game)",
    )
    ap.add_argument(
        "--players", type=int, default=None, help=f"number of players, 2-6 (default: {DEFAULT_PLAYERS}, or as --seats)"
    )
    ap.add_argument(
        "--rules", default=None, help="classic (3-6 players) | edition2023 (2-6) | path to a rules YAML (default: classic)"
    )
    ap.add_argument("--seed", type=int, default=None, help="the game's seed: deal and dice (default: fresh; shown at the end)")
    ap.add_argument(
        "--agent-seed",
        type=int,
        default=None,
        help="entropy of the agents' seeds, never derived from --seed (default: fresh; shown at the end)",
    )
    ap.add_argument("--notes", choices=MODES, default=None, help="the notebook shown: off | seen | facts (default) | deduce")
    ap.add_argument(
        "--web",
        action="store_true",
        help="serve games in a browser instead (needs the play extra); its new-game form chooses the seats, "
        "players, rules and seed, so --seats, --players, --rules, --seed, --agent-seed and --notes are refused with it",
    )
    ap.add_argument("--host", default=None, help="--web: address to bind (default 127.0.0.1)")
    ap.add_argument("--port", type=_port, default=None, help="--web: port (default 8000)")
    ap.add_argument(
        "--agent-delay",
        type=_delay,
        default=None,
        help="--web: seconds between two agent decisions, so that their moves can be followed (default 0.3; 0: at once)",
    )
    ap.add_argument(
        "--forwarded-allow-ips",
        default=None,
        metavar="IPS",
        help="--web behind a reverse proxy: the proxy's addresses (comma-separated IP addresses or networks) "
        "whose X-Forwarded-For header names the client, for the per-client limits (default: none; every "
        "client is the address it connects from)",
    )
    ap.add_argument(
        "--replay",
        default=None,
        metavar="FILE",
        help="step through a replay written by evaluate.py --replays (n, p, g N, seat player_k, all, q); "
        "no other option goes with it",
    )
    args = ap.parse_args(argv)
    if args.replay is not None:
        given = [o for o in (*TERMINAL_OPTIONS, *WEB_OPTIONS) if getattr(args, o) is not None] + ["web"] * args.web
        if given:
            ap.error(f"--{given[0].replace('_', '-')} does not go with --replay: the replay file holds its game")
        from clue_env.play.replay_terminal import play_replay

        return play_replay(args.replay)
    if args.web:
        given = [o for o in TERMINAL_OPTIONS if getattr(args, o) is not None]
        if given:
            flag = "--" + given[0].replace("_", "-")
            ap.error(f"{flag} is for a game in the terminal: with --web, the browser's new-game form chooses it")
        web = {o: WEB_OPTIONS[o] if getattr(args, o) is None else getattr(args, o) for o in WEB_OPTIONS}
        proxies = {} if web["forwarded_allow_ips"] is None else {"forwarded_allow_ips": web["forwarded_allow_ips"]}
        return serve_web(web["host"], web["port"], web["agent_delay"], **proxies)
    given = [o for o in WEB_OPTIONS if getattr(args, o) is not None]
    if given:
        ap.error(f"--{given[0].replace('_', '-')} applies to --web only")
    rules = args.rules if args.rules is not None else "classic"
    try:
        seats = build_seats(args.seats, args.players)
        check_agents(seats)
    except ValueError as e:
        ap.error(str(e))
    # fresh seeds are drawn here so that the end can print them for a replay; the agent seed is
    # OS entropy, independent of the game's seed (R31)
    seed = args.seed if args.seed is not None else secrets.randbits(31)
    agent_seed = args.agent_seed if args.agent_seed is not None else int(np.random.SeedSequence().entropy)
    for stream in (sys.stdin, sys.stdout):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:  # undecodable input or output never crashes the prompt
            reconfigure(errors="replace" if stream is sys.stdin else "backslashreplace")
    try:
        session = GameSession(seats, agent_factory=play_factory, rules=rules, seed=seed, agent_seed=agent_seed)
    except (ClueError, ValueError) as e:
        print(f"play.py: error: {e}", file=sys.stderr)
        return 2
    ui = TerminalUI(session, notes=args.notes if args.notes is not None else "facts")
    try:
        status = ui.run()
        if session.over:
            replay = f"--seats {','.join(seats)} --rules {rules} --seed {seed} --agent-seed {agent_seed}"
            print(f"replay: python play.py {replay}")
            sys.stdout.flush()
    except BrokenPipeError:  # the output's reader went away (e.g. `| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
