"""Agents behind one interface: ``make_agent(spec, seat=..., num_players=..., rules=..., seed=...)``.

Specs (SPEC "Agents"): ``random``, ``uniform``, ``notebook``, ``deduction`` (and parameterised
forms such as ``deduction:threshold=0.9``), ``ppo``, ``ppo_accuse``, ``ppo:PATH``, ``human``
(:func:`agent_names`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from clue_env.engine.config import RulesConfig

from .base import Agent
from .random_agents import RandomAgent, UniformAgent

_REGISTRY: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "uniform": UniformAgent,
}


def register_agent(name: str, factory: Callable[..., Agent]) -> None:
    """Make ``name`` (and ``name:key=value,...``) a spec that ``make_agent`` understands."""
    _REGISTRY[name] = factory


def parse_spec(spec: str) -> tuple[str, dict[str, Any] | str]:
    """``name`` / ``name:k=v,k2=v2`` / ``ppo:PATH`` -> (name, params or path)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec is a non-empty string such as 'random', got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    if name == "ppo":
        return name, rest  # '' = the shipped policy
    params: dict[str, Any] = {}
    if rest:
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            if not eq or not key:
                raise ValueError(f"bad agent parameter {item!r} in {spec!r}: write key=value")
            params[key.strip()] = _value(value.strip())
    return name, params


def split_specs(text: str) -> list[str]:
    """A comma-separated list of agent specs, as ``--seats`` takes it. A spec's own parameters are
    comma-separated too (``deduction:tells=0.35,pull=far``): an item ``key=value`` with no ``:``
    names no agent (agent names hold no ``=``), so it continues the parameters of the spec before it.
    Empty items are kept as ``''`` for the caller to refuse; a ``key=value`` item with no
    parameterised spec before it raises a ``ValueError`` that says how to write one."""
    out: list[str] = []
    for raw in text.split(","):
        item = raw.strip()
        if "=" in item and ":" not in item:
            prev = out[-1] if out else ""
            name, colon, rest = prev.partition(":")
            if not colon or not rest or name == "ppo":
                example = f"deduction:tells=0.35,{item}"
                raise ValueError(f"{item!r} in {text!r} is a parameter, not an agent: write it after a spec's, e.g. {example}")
            out[-1] = f"{prev},{item}"
            continue
        out.append(item)
    return out


class SpecFactory:
    """A picklable ``f(seat, num_players, rules, seed) -> Agent`` for one spec (training adapters)."""

    def __init__(self, spec: str) -> None:
        name, _params = parse_spec(spec)
        if name not in _REGISTRY:
            _load_optional()
        if name not in _REGISTRY:  # checked now, before any game is played with it
            raise ValueError(f"unknown agent {name!r} in spec {spec!r}; known agents: {', '.join(sorted(_REGISTRY))}")
        self.spec = spec

    def __call__(self, seat: int, num_players: int, rules: str | RulesConfig, seed: int | None) -> Agent:
        return make_agent(self.spec, seat=seat, num_players=num_players, rules=rules, seed=seed)

    def __repr__(self) -> str:
        return f"SpecFactory({self.spec!r})"


def _value(text: str) -> Any:
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def _load_optional() -> None:
    # agents that live in their own modules register themselves on import
    for mod in ("notebook", "deduction", "ppo_agent", "human"):
        try:
            __import__(f"{__name__}.{mod}")
        except ModuleNotFoundError as e:  # the module itself absent (not yet written)
            if e.name != f"{__name__}.{mod}":
                raise


def agent_names() -> list[str]:
    """The names a spec may start with (``deduction`` in ``deduction:tells=0.35``), sorted."""
    _load_optional()
    return sorted(_REGISTRY)


def make_agent(spec: str, *, seat: int, num_players: int, rules: str | RulesConfig = "classic", seed: int | None = None) -> Agent:
    """Build the agent named by ``spec`` for ``seat`` (see module docstring)."""
    name, params = parse_spec(spec)
    if name not in _REGISTRY:
        _load_optional()
    if name not in _REGISTRY:
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(sorted(_REGISTRY))}")
    factory = _REGISTRY[name]
    kwargs: dict[str, Any] = {"seat": seat, "num_players": num_players, "rules": rules, "seed": seed}
    if isinstance(params, str):
        kwargs["path"] = params
    else:
        kwargs.update(params)
    try:
        agent = factory(**kwargs)
    except (TypeError, ValueError) as e:
        if type(e) not in (TypeError, ValueError):
            raise  # a specific error (e.g. CheckpointError) already names the problem
        given = ", ".join(f"{k}={v!r}" for k, v in (params.items() if isinstance(params, dict) else []))
        raise ValueError(f"bad parameters for agent {name!r} in spec {spec!r} ({given or 'none'}): {e}") from None
    agent.spec = spec
    return agent


def play_factory(spec: str, seat: int, num_players: int, rules: str | RulesConfig, seed: int | None) -> Agent:
    """The agent factory a :class:`clue_env.play.GameSession` is given (``play.py``, the web server)."""
    return make_agent(spec, seat=seat, num_players=num_players, rules=rules, seed=seed)


__all__ = ["Agent", "SpecFactory", "agent_names", "make_agent", "parse_spec", "play_factory", "register_agent", "split_specs"]
