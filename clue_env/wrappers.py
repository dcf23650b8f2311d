"""PettingZoo's standard AEC wrappers, with one-hop attribute forwarding.

``clue_env.env()`` wraps the raw env exactly as PettingZoo's classic envs do
(``TerminateIllegalWrapper`` -> ``AssertOutOfBoundsWrapper`` -> ``OrderEnforcingWrapper``).
The stock wrappers reach the env's public attributes (``agent_selection``, ``terminations``,
``rewards``, ...) through a chain of ``__getattr__`` calls, one per wrapper level, dozens of
times per step; in a fast env that chain costs more than the game itself. The classes here are
subclasses of the stock wrappers (``isinstance`` checks still hold) that read and write those
attributes on the unwrapped env in one hop. Behaviour, checks and error messages are the stock
ones: the order-enforcing wrapper still refuses them before ``reset()``.
"""

from __future__ import annotations

from typing import Any

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


def _fast(cls: type, guarded: bool = False) -> type:
    ns: dict[str, Any] = {name: _forward(name, guarded) for name in _HOT}

    def __init__(self: Any, env: Any, *args: Any) -> None:
        object.__setattr__(self, "_raw", env.unwrapped)
        cls.__init__(self, env, *args)  # type: ignore[misc]

    ns["__init__"] = __init__
    ns["__doc__"] = f"{cls.__doc__}\n\n    (clue_env: one-hop forwarding of {', '.join(_HOT)}.)"
    return type(cls.__name__, (cls,), ns)


TerminateIllegalWrapper = _fast(wrappers.TerminateIllegalWrapper)
AssertOutOfBoundsWrapper = _fast(wrappers.AssertOutOfBoundsWrapper)
OrderEnforcingWrapper = _fast(wrappers.OrderEnforcingWrapper, guarded=True)
