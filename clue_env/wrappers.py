"""PettingZoo's standard AEC wrappers, with one-hop attribute forwarding.

``clue_env.env()`` wraps the raw env exactly as PettingZoo's classic envs do
(``TerminateIllegalWrapper`` -> ``AssertOutOfBoundsWrapper`` -> ``OrderEnforcingWrapper``).
The stock wrappers reach the env's public attributes (``agent_selection``, ``terminations``,
``rewards``, ...) through a chain of ``__getattr__`` calls, one per wrapper level, dozens of
times per step; in a fast env that chain costs more than the game itself. The classes here are
subclasses of the stock wrappers (``isinstance`` checks still hold) that read and write those
attributes on the unwrapped env in one hop, and whose ``step`` (and ``last``, ``observe``) take a
short path for the common case: an in-range int action the mask allows, a live agent after
``reset()``. Anything else runs the stock method, so behaviour, checks and error messages are the
stock ones: the order-enforcing wrapper still refuses them before ``reset()``. The one thing left
out is the terminate-illegal wrapper's copy of the agent's info on every ``observe``, which the
stock wrapper reads only for observations that are not dicts (this env's are).
"""

from __future__ import annotations

from typing import Any

from gymnasium.spaces import Discrete
from pettingzoo.utils import wrappers

_HOT = ("agent_selection", "agents", "terminations", "truncations", "rewards", "infos", "_cumulative_rewards")
_BEFORE_RESET = {"rewards", "terminations", "truncations", "infos", "agent_selection", "agents"}


def _forward(name: str, guarded: bool) -> property:
    def get(self: Any) -> Any:
        if guarded and not self._has_reset and name in _BEFORE_RESET:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    def set_(self: Any, value: Any) -> None:
        setattr(self._raw, name, value)

    return property(get, set_, doc=f"``{name}`` of the unwrapped env")


def _fast(cls: type, guarded: bool = False, hot: dict[str, Any] | None = None) -> type:
    ns: dict[str, Any] = {name: _forward(name, guarded) for name in _HOT}
    ns.update(hot or {})

    def __init__(self: Any, env: Any, *args: Any) -> None:
        object.__setattr__(self, "_raw", env.unwrapped)
        cls.__init__(self, env, *args)  # type: ignore[misc]

    ns["__init__"] = __init__
    ns["__doc__"] = f"{cls.__doc__}\n\n    (clue_env: one-hop forwarding of {', '.join(_HOT)}.)"
    return type(cls.__name__, (cls,), ns)


# The hot methods below take a short path for the common case (a legal in-range int action, a
# dict observation, a live agent after reset) and otherwise run the stock method, so every check,
# warning and error is the stock one.


def _terminate_illegal_observe(self: Any, agent: Any) -> Any:
    obs = self.env.observe(agent)
    raw = self._raw
    if agent == raw.agent_selection:
        self._prev_obs = obs
        # the stock wrapper also keeps the agent's info, which it reads only for an observation
        # that is not a dict (the mask is then in the info); this env's observations are dicts
        if not isinstance(obs, dict):
            self._prev_info = raw.infos[agent] if agent in raw.infos else {}
    return obs


def _terminate_illegal_step(self: Any, action: Any) -> None:
    raw = self._raw
    prev = self._prev_obs
    if type(action) is int and type(prev) is dict and not self._terminated:
        agent = raw.agent_selection
        mask = prev.get("action_mask")
        if (
            mask is not None
            and not raw.terminations[agent]
            and not raw.truncations[agent]
            and 0 <= action < len(mask)
            and mask[action]
        ):
            self._prev_obs = None
            self._prev_info = None
            self.env.step(action)
            return
    wrappers.TerminateIllegalWrapper.step(self, action)


def _assert_out_of_bounds_step(self: Any, action: Any) -> None:
    if type(action) is int:
        space = self.env.action_space(self._raw.agent_selection)
        if type(space) is Discrete and space.start <= action < space.start + space.n:
            self.env.step(action)
            return
    wrappers.AssertOutOfBoundsWrapper.step(self, action)


def _order_enforcing_step(self: Any, action: Any) -> None:
    if self._has_reset and self._raw.agents:
        self._has_updated = True
        self.env.step(action)
        return
    wrappers.OrderEnforcingWrapper.step(self, action)


def _order_enforcing_last(self: Any, observe: bool = True) -> tuple[Any, Any, Any, Any, Any]:
    if not self._has_reset:
        return wrappers.OrderEnforcingWrapper.last(self, observe)  # the stock error
    raw = self._raw
    agent = raw.agent_selection
    assert agent is not None
    observation = self.observe(agent) if observe else None
    return (observation, raw._cumulative_rewards[agent], raw.terminations[agent], raw.truncations[agent], raw.infos[agent])


TerminateIllegalWrapper = _fast(
    wrappers.TerminateIllegalWrapper, hot={"observe": _terminate_illegal_observe, "step": _terminate_illegal_step}
)
AssertOutOfBoundsWrapper = _fast(wrappers.AssertOutOfBoundsWrapper, hot={"step": _assert_out_of_bounds_step})
OrderEnforcingWrapper = _fast(
    wrappers.OrderEnforcingWrapper, guarded=True, hot={"step": _order_enforcing_step, "last": _order_enforcing_last}
)
