"""Sphinx directives that write the environment page's tables from the code, so they cannot drift.

- ``clue-env-header``: PettingZoo's header table (import, agents, action and observation spaces),
  read from a ``clue_env.raw_env`` of each player count.
- ``clue-observation-table`` (option ``:belief:``): the observation vector's pieces, from
  ``clue_env.observation.LAYOUT`` (or ``LAYOUT_WITH_BELIEF``).
- ``clue-action-table``: the flat action space's segments, from ``clue_env.codec.default_codec()``,
  with the text forms of each segment's first and last index.
- ``clue-rules-table``: every ``RulesConfig`` field with its value in each preset and its comment.
- ``clue-policies-table`` (option ``:strength:``): the shipped policy files from ``models/manifest.yaml``:
  which file ``ppo`` / ``ppo_accuse`` play for each configuration, or each file's measured rows with
  the commands that measured them.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.pycode import ModuleAnalyzer
from sphinx.util.docutils import SphinxDirective

_CODE = re.compile(r"``?([^`]+)``?")


def _cell(text: str) -> nodes.entry:
    """A table cell; text between backticks becomes inline code."""
    para = nodes.paragraph()
    pos = 0
    for m in _CODE.finditer(text):
        if m.start() > pos:
            para += nodes.Text(text[pos : m.start()])
        para += nodes.literal(m.group(1), m.group(1))
        pos = m.end()
    if pos < len(text):
        para += nodes.Text(text[pos:])
    return nodes.entry("", para)


def table(header: list[str], rows: list[list[str]], widths: list[int] | None = None) -> nodes.table:
    """A docutils table of plain-text cells (backticked text as code)."""
    tab = nodes.table(classes=["clue-generated"])
    group = nodes.tgroup(cols=len(header))
    tab += group
    for w in widths or [1] * len(header):
        group += nodes.colspec(colwidth=w)
    head = nodes.thead()
    row = nodes.row()
    for h in header:
        row += _cell(h)
    head += row
    group += head
    body = nodes.tbody()
    for r in rows:
        if len(r) != len(header):
            raise ValueError(f"row {r!r} has {len(r)} cells, the header {len(header)}")
        row = nodes.row()
        for c in r:
            row += _cell(c)
        body += row
    group += body
    return tab


def header_rows() -> list[list[str]]:
    import clue_env
    from clue_env.engine.config import load_rules

    counts = {name: (load_rules(name).min_players, load_rules(name).max_players) for name in ("classic", "edition2023")}
    lo = min(c[0] for c in counts.values())
    hi = max(c[1] for c in counts.values())
    e = clue_env.raw_env(num_players=lo, rules="edition2023")
    import gymnasium

    gym_id = f"clue_env/Clue-v{clue_env.ENV_VERSION}"
    gym_row = (
        [["Gymnasium (one learning seat)", f'`gymnasium.make("{gym_id}", opponents=["deduction"] * 3)`']]
        if gym_id in gymnasium.registry
        else []
    )
    obs = e.observation_space("player_0")["observation"]
    act = e.action_space("player_0")
    mask = e.observation_space("player_0")["action_mask"]
    return [
        ["Import", "`import clue_env; env = clue_env.env(num_players=4)`"],
        ["Creation", f'`pettingzoo.make("aec", "clue/clue-v{clue_env.ENV_VERSION}", num_players=4)`'],
        *gym_row,
        ["Actions", "Discrete"],
        ["Parallel API", "No"],
        ["Manual Control", "Yes (`python play.py`)"],
        ["Agents", f"`agents = ['player_0', ..., 'player_{{n-1}}']` (`{e.metadata['name']}`)"],
        [
            "Agents",
            f"{lo}–{hi} (classic {counts['classic'][0]}–{counts['classic'][1]}, "
            f"edition2023 {counts['edition2023'][0]}–{counts['edition2023'][1]})",
        ],
        ["Action Shape", "(1,)"],
        ["Action Values", f"Discrete({act.n})"],
        ["Observation Shape", f"`observation`: {obs.shape}, `action_mask`: {mask.shape}"],
        [
            "Observation Values",
            f"`observation`: [{obs.low.min():g}, {obs.high.max():g}] {obs.dtype}; `action_mask`: {{0, 1}} {mask.dtype}",
        ],
    ]


class EnvHeader(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        return [table(["", ""], header_rows(), [24, 72])]


def observation_rows(belief: bool = False) -> list[list[str]]:
    from clue_env.observation import LAYOUT, LAYOUT_WITH_BELIEF

    lay = LAYOUT_WITH_BELIEF if belief else LAYOUT
    rows = []
    for name, shape, doc in lay.pieces:
        size = 1
        for s in shape:
            size *= s
        o = lay.offset[name]
        rows.append([f"`{name}`", f"{o}–{o + size - 1}", str(size), "×".join(map(str, shape)), doc])
    rows.append(["total", "", str(lay.size), "", ""])
    return rows


class ObservationTable(SphinxDirective):
    has_content = False
    option_spec = {"belief": lambda arg: True}

    def run(self) -> list[nodes.Node]:
        rows = observation_rows("belief" in self.options)
        return [table(["piece", "indices", "size", "shape", "meaning"], rows, [16, 10, 6, 8, 60])]


def action_rows() -> list[list[str]]:
    from clue_env.codec import default_codec

    c = default_codec()
    rows = []
    for name, _kind, size, doc in c.segments:
        b = c.base[name]
        last = b + size - 1
        texts = f"`{c.to_text(b)}`" if size == 1 else f"`{c.to_text(b)}` … `{c.to_text(last)}`"
        rows.append([f"`{name}`", str(b) if size == 1 else f"{b}–{last}", str(size), texts, doc])
    rows.append(["total", "", str(c.n), "", ""])
    return rows


class ActionTable(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        return [table(["segment", "indices", "size", "text forms (first … last)", "meaning"], action_rows(), [10, 8, 6, 50, 40])]


def _show(v: Any) -> str:
    if v is None:
        return "`None`"
    if isinstance(v, bool):
        return f"`{str(v).lower()}`"
    if isinstance(v, tuple):
        return f"{len(v)} entries" if len(v) > 3 else ", ".join(f"`{x}`" for x in v)
    if isinstance(v, dict) or hasattr(v, "items"):
        return f"{len(v)} names" if v else "{}"
    if v == "":
        return '`""`'
    return f"`{v}`"


def rules_rows() -> list[list[str]]:
    from clue_env.engine.config import RulesConfig, load_rules

    docs = ModuleAnalyzer.for_module(RulesConfig.__module__).find_attr_docs()
    presets = [load_rules("classic"), load_rules("edition2023")]
    rows = []
    documented = ""
    for f in dataclasses.fields(RulesConfig):
        doc = " ".join(line.strip() for line in docs.get(("RulesConfig", f.name), [])).strip()
        if doc:
            documented = f.name
        else:  # one comment above a group of fields
            doc = f"see `{documented}`"
        rows.append([f"`{f.name}`", *(_show(getattr(p, f.name)) for p in presets), doc])
    return rows


class RulesTable(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        return [table(["field", "classic", "edition2023", "meaning"], rules_rows(), [26, 14, 14, 60])]


def policy_rows() -> list[list[str]]:
    from agents.manifest import load_manifest

    rows = []
    for p in load_manifest().policies:
        groups: dict[tuple[str, str], list[int]] = {}
        for spec, rules, n in p.plays:
            groups.setdefault((spec, rules), []).append(n)
        for (spec, rules), counts in groups.items():
            network = f"`models/{p.network}`" if p.network else "(its own)"
            players = ", ".join(map(str, sorted(counts)))
            rows.append([f"`{spec}`", rules, players, f"`models/{p.file}`", network, f"`{p.recipe}`"])
    return rows


def strength_rows() -> list[list[str]]:
    from agents.manifest import load_manifest

    rows = []
    for p in load_manifest().policies:
        for r in p.strength:
            lo, hi = r["ci95"]
            commands = " ; ".join(f"`{c}`" for c in r["commands"])
            rate = f"{100 * r['win_rate']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"
            rows.append([f"`models/{p.file}`", r["lineup"], rate, f"{r['games']:,}", commands])
    return rows


class PoliciesTable(SphinxDirective):
    has_content = False
    option_spec = {"strength": lambda arg: True}

    def run(self) -> list[nodes.Node]:
        if "strength" in self.options:
            return [
                table(["file", "line-up", "win rate [95% interval]", "games", "command"], strength_rows(), [30, 30, 20, 8, 80])
            ]
        return [table(["spec", "rules", "players", "file", "network it links", "recipe"], policy_rows(), [12, 12, 8, 32, 26, 32])]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("clue-env-header", EnvHeader)
    app.add_directive("clue-observation-table", ObservationTable)
    app.add_directive("clue-action-table", ActionTable)
    app.add_directive("clue-rules-table", RulesTable)
    app.add_directive("clue-policies-table", PoliciesTable)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
