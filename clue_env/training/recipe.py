"""Recipes: the ordered stages that build one family of shipped policy files from nothing.

    python train.py --recipe classic_4p --out DIR [--resume] [--smoke] [--deps DIR]

A recipe is a YAML file, ``configs/recipes/NAME.yaml`` (its format: docs/training.md, "Recipes"):
``name``, ``about``, ``outputs`` (the files written at the top of DIR, ``policy`` required: each
``{stage: NAME, file: FILE}``) and ``stages``, each with a ``name`` and a ``kind`` (:data:`STAGE_KINDS`):

* ``train``: one ``train.py`` config (``config``, a path from the repository root), its ``init``
  replaced by the stage's ``init`` input; ``smoke`` is merged over it under ``--smoke`` (after
  :data:`SMOKE_TRAIN`). Resumes as ``train.py --resume`` does.
* ``room_values`` / ``refit_scores``: a network widened to read a teacher planner's scores, or its
  score weights fitted again (:mod:`clue_env.training.planner_fit`). Resumes from its recorded chunks.
* ``combine``: the network of ``network`` beside the accusation head of ``head`` (one input, a list
  bagged into one head, or ``null``), with ``planner`` as its ``meta["planner"]``; with ``link:
  NAME.pt`` the file names a copy of the network file instead of carrying its weights.

Stages other than ``train`` may have an ``eval`` (the stage's file in one seat against ``opponents``).
**Inputs** are ``{stage: NAME}`` (an earlier stage's file; ``output: network`` the network file a
linking ``combine`` wrote) or ``{recipe: NAME, output: NAME}`` (another recipe's output, built or
resumed first in ``--deps`` or ``DIR/deps``), never a path: a recipe starts from nothing and plays
no file of ``models/`` (an agent spec ``ppo...`` is refused).

**The run directory**: ``recipe.json`` (the recipe, commit, package versions, the outputs' SHA-256),
``stages/NN_NAME/`` with each stage's ``run.json`` and its ``done.json`` (written atomically last),
and the outputs at the top (``DIR/policy.pt`` plays as ``ppo:DIR/policy.pt``). ``--resume`` skips
every done stage (one whose settings or inputs changed is refused: move its folder away to make it
again) and resumes an interrupted one. Every check is made before any work. Agents and evaluations
are injected (``factory_for``, ``evaluate``): ``clue_env`` never imports ``agents``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..engine.errors import ConfigError
from ..fileio import InputError, finite, loads_json, loads_yaml, one_line, read_regular, short
from ..fileio import sha256_file as _sha256
from .config import CONFIG_FILE_LIMIT, TrainConfig, TrainConfigError, load_train_config

#: the stage kinds a recipe may name
STAGE_KINDS = ("train", "room_values", "refit_scores", "combine")
#: what ``--smoke`` merges over every ``train`` stage's config before the stage's own ``smoke``
SMOKE_TRAIN: dict[str, Any] = {"eval": {"opponents": ["deduction"], "games": 2, "workers": 1}}
#: the evaluation games of a ``room_values``, ``refit_scores`` or ``combine`` stage under ``--smoke``
SMOKE_EVAL_GAMES = 2
#: the largest recipe file and run record read
RECIPE_FILE_LIMIT = 1 << 20
RECORD_LIMIT = 16 << 20
#: where ``--recipe NAME`` is looked up, from the repository root
RECIPES_DIR = os.path.join("configs", "recipes")

_NAME = re.compile(r"[a-z][a-z0-9_]{0,62}")
_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}\.pt")
_COMMON = ("name", "kind", "about")
_PLANNER_REQUIRED = ("policy", "players", "rules", "teacher", "games", "seed", "agent_seed", "epochs", "lr")
_PLANNER_OPTIONAL = ("opponents", "new_lr", "held_out", "eval", "smoke")
_KEYS = {
    "train": (("config", "smoke"), ("init",)),
    "room_values": ((*_PLANNER_REQUIRED, "mode"), (*_PLANNER_OPTIONAL, "floor_squares", "fit_only_new")),
    "refit_scores": (_PLANNER_REQUIRED, (*_PLANNER_OPTIONAL, "moves", "suggestions", "roll_scores")),
    "combine": (("network", "head"), ("planner", "link", "eval")),
}
_EVAL_KEYS = ("opponents", "players", "rules", "games", "seed")
_PLANNER_SMOKE_KEYS = ("games", "epochs")

#: factory_for(spec) -> a factory (seat, num_players, rules, seed) -> agent (``agents.SpecFactory``)
FactoryFor = Callable[[str], Callable[[int, int, Any, int], Any]]
#: evaluate(policy, opponent, num_players, games, seed, agent_seed, rules, workers) -> a tournament summary
#: (``evaluate.py``'s JSON: ``results`` per spec); game g is reset with ``seed + g``
Evaluate = Callable[[str, str, int, int, int, int, str, int], dict[str, Any]]


class RecipeError(ConfigError):
    """A recipe that cannot be run (an unknown key or kind, a missing config, a path input, a cycle), or a
    run directory that does not hold what ``--resume`` needs; the message names the recipe and stage."""


@dataclass(frozen=True)
class Ref:
    """An input: an earlier stage's file (``stage``, ``output`` ``policy`` or ``network``) or another
    recipe's output (``recipe``, ``output``)."""

    stage: str = ""
    recipe: str = ""
    output: str = "policy"

    def text(self) -> str:
        if self.recipe:
            return f"{{recipe: {self.recipe}, output: {self.output}}}"
        return f"{{stage: {self.stage}}}" if self.output == "policy" else f"{{stage: {self.stage}, output: {self.output}}}"


@dataclass(frozen=True)
class Stage:
    index: int
    name: str
    kind: str
    params: dict[str, Any]
    smoke: dict[str, Any] = field(default_factory=dict)
    #: ``train``: the config file's data (the config at ``params["config"]``)
    config_data: dict[str, Any] = field(default_factory=dict)

    @property
    def folder(self) -> str:
        return f"{self.index + 1:02d}_{self.name}"

    def refs(self) -> list[Ref]:
        """The stage's inputs, in the order of its keys."""
        out: list[Ref] = []
        for key in ("init", "policy", "network", "head"):
            v = self.params.get(key)
            out += [v] if isinstance(v, Ref) else [r for r in v if isinstance(r, Ref)] if isinstance(v, list) else []
        return out


@dataclass(frozen=True)
class Output:
    name: str
    stage: str
    output: str
    file: str


@dataclass(frozen=True)
class Recipe:
    name: str
    path: str
    about: str
    stages: tuple[Stage, ...]
    outputs: dict[str, Output]

    def stage(self, name: str) -> Stage:
        return next(s for s in self.stages if s.name == name)


# ---------------------------------------------------------------------------------------------- loading


def recipe_path(name_or_path: str, root: str) -> str:
    """The file of a recipe named on the command line: ``NAME`` is ``ROOT/configs/recipes/NAME.yaml``; a path
    ending in ``.yaml`` is itself."""
    if name_or_path.endswith((".yaml", ".yml")) or os.sep in name_or_path or "/" in name_or_path:
        return name_or_path
    return os.path.join(root, RECIPES_DIR, f"{name_or_path}.yaml")


def load_recipe(path: str, root: str) -> Recipe:
    """The recipe in ``path``, read within bounds and checked on its own (its configs load and validate with
    their overrides); :class:`RecipeError` naming the file and the key. Inputs from other recipes are checked
    by :func:`load_chain`."""
    where = f"recipe {path!r}"
    if not os.path.lexists(path):
        raise RecipeError(f"{where} does not exist (the recipes are in {RECIPES_DIR}/)")
    try:
        data = loads_yaml(read_regular(path, RECIPE_FILE_LIMIT, "recipe"), where)
    except InputError as e:
        raise RecipeError(f"cannot read {e}") from None
    if not isinstance(data, dict):
        raise RecipeError(f"{where} must be a mapping with name, outputs and stages, got {short(data)}")
    _keys(where, data, ("name", "outputs", "stages"), ("about",))
    stem = os.path.splitext(os.path.basename(path))[0]
    if data["name"] != stem:
        raise RecipeError(f"{where}: name must be the file's name {stem!r}, got {short(data['name'])}")
    about = data.get("about", "")
    if not isinstance(about, str):
        raise RecipeError(f"{where}: about must be text, got {short(about)}")
    raw = data["stages"]
    if not isinstance(raw, list) or not raw or len(raw) > 99:
        raise RecipeError(f"{where}: stages must be a list of 1-99 stages, got {short(raw)}")
    stages: list[Stage] = []
    for i, s in enumerate(raw):
        stages.append(_stage(f"{where} stage {i + 1}", i, s, stages, root))
    outputs = _outputs(where, data["outputs"], stages)
    return Recipe(stem, path, about, tuple(stages), outputs)


def _keys(where: str, data: dict[str, Any], required: tuple[str, ...], optional: tuple[str, ...]) -> None:
    unknown = [k for k in data if k not in required + optional]
    if unknown:
        raise RecipeError(f"{where}: unknown key(s) {short(unknown)}; known: {', '.join(required + optional)}")
    missing = [k for k in required if k not in data]
    if missing:
        raise RecipeError(f"{where}: missing key(s) {', '.join(missing)}")


def _stage(where: str, index: int, data: Any, before: list[Stage], root: str) -> Stage:
    if not isinstance(data, dict):
        raise RecipeError(f"{where} must be a mapping with name and kind, got {short(data)}")
    name, kind = data.get("name"), data.get("kind")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise RecipeError(f"{where}: name must be lower-case letters, digits and _ (a folder name), got {short(name)}")
    where = f"{where.rsplit(' stage ', 1)[0]} stage {name!r}"
    if any(s.name == name for s in before):
        raise RecipeError(f"{where}: a second stage named {name!r}")
    if kind not in STAGE_KINDS:
        raise RecipeError(f"{where}: unknown kind {short(kind)}; known: {', '.join(STAGE_KINDS)}")
    required, optional = _KEYS[kind]
    _keys(where, data, _COMMON[:2] + required, _COMMON[2:] + optional)
    params = {k: v for k, v in data.items() if k not in _COMMON and k != "smoke"}
    for key in ("init", "policy", "network"):
        if key in params:
            params[key] = _ref(f"{where}: {key}", params[key], before)
    if kind == "combine":
        head = params["head"]
        if head is not None:
            heads = head if isinstance(head, list) else [head]
            if not heads or len(heads) > 16:
                raise RecipeError(f"{where}: head is an input, a list of 1-16 inputs (bagged) or null (no head)")
            params["head"] = [_ref(f"{where}: head", h, before) for h in heads]
        planner = params.get("planner")
        if planner is not None:
            from .combine import parse_planner

            if not isinstance(planner, str):
                raise RecipeError(f"{where}: planner is text such as tells=0.35,moves=own, got {short(planner)}")
            try:
                parse_planner(planner)
            except ValueError as e:
                raise RecipeError(f"{where}: planner: {e}") from None
        link = params.get("link")
        if link is not None and (not isinstance(link, str) or not _FILE.fullmatch(link) or link == "policy.pt"):
            raise RecipeError(f"{where}: link is a plain file name ending in .pt (not policy.pt), got {short(link)}")
    smoke = data.get("smoke", {})
    if not isinstance(smoke, dict):
        raise RecipeError(f"{where}: smoke must be a mapping of toy sizes, got {short(smoke)}")
    if "eval" in params:
        _eval_params(where, params["eval"])
    config_data: dict[str, Any] = {}
    if kind == "train":
        config_data = _train_config_data(where, params, root)
        if not smoke:
            raise RecipeError(f"{where}: smoke must give the stage's toy sizes (e.g. imitation.games, ppo.timesteps)")
        for smoke_flag in (False, True):
            train_config(Stage(index, name, kind, params, smoke, config_data), smoke_flag, params.get("init", Ref()).text())
    elif kind in ("room_values", "refit_scores"):
        _planner_params(where, kind, params)
        unknown = [k for k in smoke if k not in _PLANNER_SMOKE_KEYS]
        if unknown or not smoke:
            raise RecipeError(
                f"{where}: smoke gives the stage's toy sizes ({', '.join(_PLANNER_SMOKE_KEYS)}), got {short(smoke)}"
            )
        planner_params(Stage(index, name, kind, params, smoke), True)
    return Stage(index, name, kind, params, smoke, config_data)


def _ref(where: str, value: Any, before: list[Stage]) -> Ref:
    """An input (module docstring), checked against the stages before it."""
    if isinstance(value, str):
        hint = " (a file in models/ is what a recipe rebuilds)" if "models" in value else ""
        raise RecipeError(
            f"{where}: {short(value)} is a path; an input is {{stage: NAME}} or {{recipe: NAME, output: NAME}}, "
            f"never a file{hint}"
        )
    if not isinstance(value, dict) or not value:
        raise RecipeError(f"{where}: an input is {{stage: NAME}} or {{recipe: NAME, output: NAME}}, got {short(value)}")
    if "recipe" in value:
        unknown = [k for k in value if k not in ("recipe", "output")]
        if unknown or not isinstance(value.get("output"), str) or not isinstance(value["recipe"], str):
            raise RecipeError(f"{where}: another recipe's output is {{recipe: NAME, output: NAME}}, got {short(value)}")
        if not _NAME.fullmatch(value["recipe"]):
            raise RecipeError(f"{where}: {short(value['recipe'])} is not a recipe name (configs/recipes/NAME.yaml)")
        return Ref(recipe=value["recipe"], output=value["output"])
    unknown = [k for k in value if k not in ("stage", "output")]
    if unknown or not isinstance(value.get("stage"), str):
        raise RecipeError(f"{where}: an earlier stage's file is {{stage: NAME}}, got {short(value)}")
    output = value.get("output", "policy")
    stage = next((s for s in before if s.name == value["stage"]), None)
    if stage is None:
        known = ", ".join(s.name for s in before) or "none"
        raise RecipeError(f"{where}: no earlier stage named {short(value['stage'])} (earlier stages: {known})")
    if output == "network" and not (stage.kind == "combine" and stage.params.get("link")):
        raise RecipeError(f"{where}: stage {stage.name!r} writes no network file (only a combine stage with link does)")
    if output not in ("policy", "network"):
        raise RecipeError(f"{where}: a stage's output is policy (its file) or network, got {short(output)}")
    return Ref(stage=stage.name, output=output)


def _train_config_data(where: str, params: dict[str, Any], root: str) -> dict[str, Any]:
    path = params["config"]
    if not isinstance(path, str) or not path:
        raise RecipeError(f"{where}: config is the path of a training config, got {short(path)}")
    full = path if os.path.isabs(path) else os.path.join(root, path)
    if not os.path.lexists(full):
        raise RecipeError(f"{where}: config {path!r} does not exist (see configs/train/)")
    try:
        data = loads_yaml(read_regular(full, CONFIG_FILE_LIMIT, "training config"), f"training config {path!r}")
    except InputError as e:
        raise RecipeError(f"{where}: cannot read {e}") from None
    data = {} if data is None else data
    if not isinstance(data, dict):
        raise RecipeError(f"{where}: training config {path!r} must be a mapping, got {short(data)}")
    if data.get("init") and "init" not in params:
        raise RecipeError(
            f"{where}: config {path!r} starts from init: {short(data['init'])}, a file; give the stage an "
            "init input ({stage: NAME} or {recipe: NAME, output: NAME})"
        )
    return data


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``over`` merged into a copy of ``base``, mapping by mapping."""
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def train_config(stage: Stage, smoke: bool, init: str = "") -> TrainConfig:
    """A ``train`` stage's config: its file's, with ``init`` (the input's path) in place of the file's own and,
    under ``smoke``, :data:`SMOKE_TRAIN` and the stage's ``smoke`` merged over it (validated)."""
    data = dict(stage.config_data)
    if "init" in stage.params:
        data["init"] = init
    if smoke:
        data = _merge(_merge(data, SMOKE_TRAIN), stage.smoke)
    where = f"stage {stage.name!r} (config {stage.params['config']!r}{', smoke' if smoke else ''})"
    try:
        cfg = load_train_config(data)
    except TrainConfigError as e:
        raise RecipeError(f"{where}: {e}") from None
    for key, spec in _config_specs(cfg):
        if spec.strip().startswith("ppo"):
            raise RecipeError(f"{where}: {key}: agent spec {short(spec)} plays a policy file the recipe does not build")
    return cfg


def _config_specs(cfg: TrainConfig) -> list[tuple[str, str]]:
    specs = [("ppo.opponents", s) for s in cfg.ppo.opponents] + [("eval.opponents", s) for s in cfg.eval.opponents]
    if cfg.imitates():
        specs += [("imitation.lineups", s) for lu in cfg.imitation.lineups for s in lu]
    if cfg.accusation.games > 0:
        specs += [("accusation.lineups", s) for lu in cfg.accusation.lineups for s in lu]
    return specs


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and abs(v) != float("inf")


def _specs(where: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not value or not all(isinstance(s, str) and s.strip() for s in value):
        raise RecipeError(f"{where} must be a non-empty list of agent specs, got {short(value)}")
    for s in value:
        if s.strip().startswith("ppo"):
            raise RecipeError(f"{where}: agent spec {short(s)} plays a policy file the recipe does not build")
    return list(value)


def _eval_params(where: str, ev: Any) -> None:
    if not isinstance(ev, dict):
        raise RecipeError(f"{where}: eval must be a mapping of {', '.join(_EVAL_KEYS)}, got {short(ev)}")
    _keys(f"{where}: eval", ev, ("opponents", "players", "games", "seed"), ("rules",))
    _specs(f"{where}: eval.opponents", ev["opponents"])
    for k in ("players", "games", "seed"):
        if not _is_int(ev[k]) or ev[k] < 0:
            raise RecipeError(f"{where}: eval.{k} must be a non-negative integer, got {short(ev[k])}")
    if not 2 <= ev["players"] <= 6 or not 1 <= ev["games"] <= 1_000_000:
        raise RecipeError(f"{where}: eval needs players in 2..6 and games in 1..1,000,000")


def _planner_params(where: str, kind: str, params: dict[str, Any]) -> None:
    from ..engine.config import load_rules
    from .planner_fit import MODES

    if not isinstance(params["teacher"], str) or params["teacher"].strip().partition(":")[0] != "deduction":
        raise RecipeError(f"{where}: teacher is a deduction planner spec (deduction, deduction:tells=0.35,...), got "
                          f"{short(params['teacher'])}")  # fmt: skip
    if "opponents" in params:
        _specs(f"{where}: opponents", params["opponents"])
    try:
        rules = load_rules(params["rules"]) if isinstance(params["rules"], str) else None
    except ConfigError as e:
        raise RecipeError(f"{where}: rules: {e}") from None
    if rules is None:
        raise RecipeError(f"{where}: rules is a ruleset name, got {short(params['rules'])}")
    players = params["players"]
    if not _is_int(players) or not rules.min_players <= players <= rules.max_players:
        raise RecipeError(f"{where}: players must be in {rules.min_players}..{rules.max_players}, got {short(players)}")
    for k in ("games", "seed", "agent_seed", "epochs"):
        if not _is_int(params[k]) or params[k] < 0 or params[k] > 2**40:
            raise RecipeError(f"{where}: {k} must be a non-negative integer, got {short(params[k])}")
    if params["games"] < 2 or params["games"] > 1_000_000 or params["epochs"] < 1:
        raise RecipeError(f"{where}: games must be 2..1,000,000 (some are held out) and epochs at least 1")
    for k in ("lr", "new_lr"):
        if k in params and not (_is_number(params[k]) and params[k] > 0):
            raise RecipeError(f"{where}: {k} must be a positive number, got {short(params[k])}")
    if "held_out" in params and not (_is_number(params["held_out"]) and 0 < params["held_out"] < 1):
        raise RecipeError(f"{where}: held_out must be in (0, 1), got {short(params['held_out'])}")
    for k in ("floor_squares", "fit_only_new", "moves", "suggestions", "roll_scores"):
        if k in params and not isinstance(params[k], bool):
            raise RecipeError(f"{where}: {k} must be true or false, got {short(params[k])}")
    if kind == "room_values" and params["mode"] not in MODES:
        raise RecipeError(f"{where}: mode must be one of {', '.join(map(str, MODES))}, got {short(params['mode'])}")
    if kind == "refit_scores" and not (params.get("moves") or params.get("suggestions")):
        raise RecipeError(f"{where}: a refit_scores stage fits moves: true and/or suggestions: true")


def planner_params(stage: Stage, smoke: bool) -> Any:
    """A ``room_values`` / ``refit_scores`` stage's :class:`~clue_env.training.planner_fit.PlannerFitParams`
    (``smoke``: its toy ``games`` and ``epochs``)."""
    from .planner_fit import PlannerFitParams, widening_problem

    p = {**stage.params, **(stage.smoke if smoke else {})}
    refit = tuple(k for k in ("moves", "suggestions") if p.get(k))
    out = PlannerFitParams(
        players=p["players"], rules=p["rules"], teacher=p["teacher"], games=p["games"], seed=p["seed"],
        agent_seed=p["agent_seed"], epochs=p["epochs"], lr=float(p["lr"]), opponents=tuple(p.get("opponents", ())),
        mode=p.get("mode", 0), refit=refit, roll_scores=p.get("roll_scores", False),
        floor_squares=p.get("floor_squares", False), fit_only_new=p.get("fit_only_new", False),
        new_lr=float(p["new_lr"]) if "new_lr" in p else None, held_out=float(p.get("held_out", 0.1)),
    )  # fmt: skip
    where = f"stage {stage.name!r}{' (smoke)' if smoke else ''}"
    if out.games < 2 or out.epochs < 1:
        raise RecipeError(f"{where}: games must be at least 2 (some are held out) and epochs at least 1")
    if not out.opponents and out.players != 4:
        raise RecipeError(f"{where}: without opponents the recorded games seat the 4-player mix; name opponents")
    if out.roll_scores and not out.refit:
        raise RecipeError(f"{where}: {widening_problem(3, 0, (), True)}")
    if out.floor_squares and out.mode != 3:
        raise RecipeError(f"{where}: {widening_problem(0, out.mode, (), False, True)}")
    return out


def _outputs(where: str, data: Any, stages: list[Stage]) -> dict[str, Output]:
    if not isinstance(data, dict) or "policy" not in data:
        raise RecipeError(f"{where}: outputs must be a mapping with at least policy: {{stage: NAME, file: policy.pt}}")
    out: dict[str, Output] = {}
    files: dict[str, str] = {}
    for name, spec in data.items():
        w = f"{where}: outputs.{name}"
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise RecipeError(f"{where}: output names are lower-case words, got {short(name)}")
        if not isinstance(spec, dict):
            raise RecipeError(f"{w} must be {{stage: NAME, file: FILE.pt}}, got {short(spec)}")
        _keys(w, spec, ("stage", "file"), ("output",))
        ref = _ref(w, {k: v for k, v in spec.items() if k != "file"}, stages)
        file = spec["file"]
        if not isinstance(file, str) or not _FILE.fullmatch(file):
            raise RecipeError(f"{w}: file is a plain file name ending in .pt, got {short(file)}")
        if name == "policy" and file != "policy.pt":
            raise RecipeError(f"{w}: the policy output is the file policy.pt (what ppo:DIR/policy.pt plays)")
        if file in files:
            raise RecipeError(f"{w}: file {file!r} is output {files[file]!r} too")
        files[file] = name
        out[name] = Output(name, ref.stage, ref.output, file)
    for o in out.values():  # a file naming its network file needs that file beside it, byte for byte
        stage = next(s for s in stages if s.name == o.stage)
        link = stage.params.get("link") if stage.kind == "combine" and o.output == "policy" else None
        if link and not any(_same_network(stage, p, stages) for p in out.values() if p.file == link):
            raise RecipeError(
                f"{where}: outputs.{o.name} names its network file {link!r}, which no output writes: add "
                f"{{stage: {stage.name}, output: network, file: {link}}}"
            )
    return out


def _same_network(combine: Stage, o: Output, stages: list[Stage]) -> bool:
    """Whether output ``o`` is the network file ``combine`` links to (byte for byte)."""
    net = combine.params["network"]
    if o.output == "policy":
        return net == Ref(stage=o.stage)
    other = next(s for s in stages if s.name == o.stage)
    return other.params.get("link") == combine.params.get("link") and other.params["network"] == net


def load_chain(path: str, root: str) -> dict[str, Recipe]:
    """The recipe in ``path`` and every recipe it starts from (by name, in the same folder), each checked,
    every ``{recipe: NAME, output: NAME}`` input naming an output of that recipe, and no cycle; the recipes
    by name, ``path``'s first."""
    folder = os.path.dirname(path)
    chain: dict[str, Recipe] = {}

    def visit(p: str, stack: list[str]) -> Recipe:
        name = os.path.splitext(os.path.basename(p))[0]
        if name in stack:
            raise RecipeError(f"recipe cycle: {' -> '.join([*stack[stack.index(name) :], name])}")
        if name in chain:
            return chain[name]
        r = load_recipe(p, root)
        for s in r.stages:
            for ref in s.refs():
                if ref.recipe:
                    dep_path = os.path.join(folder, f"{ref.recipe}.yaml")
                    if not os.path.lexists(dep_path):
                        raise RecipeError(
                            f"recipe {r.name!r} stage {s.name!r}: no recipe named {ref.recipe!r} ({dep_path!r} does not exist)"
                        )
                    dep = visit(dep_path, [*stack, name])
                    if ref.output not in dep.outputs:
                        known = ", ".join(dep.outputs)
                        raise RecipeError(
                            f"recipe {r.name!r} stage {s.name!r}: recipe {dep.name!r} has no output {ref.output!r} ({known})"
                        )
        chain[name] = r
        return r

    first = visit(path, [])
    return {first.name: first, **{k: v for k, v in chain.items() if k != first.name}}


def check_specs(chain: dict[str, Recipe], factory_for: FactoryFor, smoke: bool) -> None:
    """Build every agent of every stage once, at each player count it plays with (a bad spec is found now,
    not hours into the chain); :class:`RecipeError` naming the recipe and stage."""
    from ..engine.config import load_rules

    seen: set[tuple[str, int, str]] = set()
    for r in chain.values():
        for s in r.stages:
            uses: list[tuple[str, int, str]] = []
            if s.kind == "train":
                cfg = train_config(s, smoke, "init")
                counts = {"ppo.opponents": list(cfg.num_players), "eval.opponents": [cfg.eval.num_players]}
                for key, spec in _config_specs(cfg):
                    for n in counts.get(key, []):
                        uses.append((spec, n, cfg.rules))
                uses += [(spec, len(lu), cfg.rules) for lu in cfg.imitation.lineups if cfg.imitates() for spec in lu]
                uses += [(spec, len(lu), cfg.rules) for lu in cfg.accusation.lineups if cfg.accusation.games for spec in lu]
            elif s.kind in ("room_values", "refit_scores"):
                p = s.params
                uses += [(spec, p["players"], p["rules"]) for spec in [p["teacher"], *p.get("opponents", [])]]
            ev = s.params.get("eval")
            if ev:
                uses += [(spec, ev["players"], ev.get("rules", "classic")) for spec in ev["opponents"]]
            for spec, n, rules in uses:
                if (spec, n, rules) in seen:
                    continue
                seen.add((spec, n, rules))
                try:
                    factory_for(spec)(n - 1, n, load_rules(rules), 0)
                except (ValueError, TypeError, OSError, ConfigError) as e:
                    raise RecipeError(
                        f"recipe {r.name!r} stage {s.name!r}: agent spec {spec!r} cannot play ({n} players): {e}"
                    ) from None


# ---------------------------------------------------------------------------------------------- running


def _write_json(path: str, doc: Any) -> None:
    from .run_support import atomic_write_text

    atomic_write_text(path, json.dumps(finite(doc), indent=2, allow_nan=False) + "\n")


def _read_json(path: str, what: str) -> dict[str, Any]:
    try:
        doc = loads_json(read_regular(path, RECORD_LIMIT, what), repr(path))
    except InputError as e:
        raise RecipeError(f"{e}; the run directory is damaged") from None
    if not isinstance(doc, dict):
        raise RecipeError(f"{path!r} is not a {what} (a JSON object); the run directory is damaged")
    return doc


def _digest(spec: dict[str, Any]) -> str:
    """The SHA-256 of what a stage's result depends on: its spec without where its inputs lie (a run directory
    moved, or named another way, resumes as it is), so each input counts by its SHA-256."""
    spec = json.loads(json.dumps(spec))
    for i in spec.get("inputs", {}).values():
        i.pop("path", None)
    if "config" in spec and spec["config"].get("init"):
        spec["config"]["init"] = spec["params"].get("init", "")
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()


def _copy(src: str, dst: str) -> None:
    """Copy ``src`` to ``dst`` atomically (a temporary file beside ``dst``, then a rename)."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(dst)), prefix=f".{os.path.basename(dst)}.tmp-")
    os.close(fd)
    try:
        shutil.copyfile(src, tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, dst)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class RecipeRunner:
    """Build one recipe into a run directory (module docstring): :meth:`validate`, then :meth:`run`."""

    def __init__(
        self,
        recipe: str,
        out: str,
        *,
        root: str,
        factory_for: FactoryFor,
        evaluate: Evaluate | None = None,
        resume: bool = False,
        smoke: bool = False,
        deps: str | None = None,
        workers: int = 2,
        progress: bool = True,
        command: list[str] | None = None,
    ) -> None:
        self.path = recipe_path(recipe, root)
        self.out = out
        self.root = root
        self.factory_for = factory_for
        self.evaluate = evaluate
        self.resume = resume
        self.smoke = smoke
        self.deps = deps if deps is not None else os.path.join(out, "deps")
        self.workers = max(1, int(workers))
        self.progress = progress
        self.command = command or ["python", "train.py", "--recipe", recipe, "--out", out]
        self.chain: dict[str, Recipe] = {}
        self._built: dict[str, str] = {}  # recipe name -> its run directory, once built this session
        self._validated = False

    # ------------------------------------------------------------------ checks
    def validate(self) -> None:
        """Every check before any work: the recipe and every recipe it starts from (keys, kinds, configs,
        inputs, cycles, agent specs) and the run directory (``--resume`` needs a recipe run of the same recipe
        and ``--smoke``; a new run needs a directory without one). :class:`RecipeError`, ``FileExistsError``,
        ``FileNotFoundError`` or ``ValueError``, each saying what to do."""
        self.chain = load_chain(self.path, self.root)
        self.recipe = next(iter(self.chain.values()))
        check_specs(self.chain, self.factory_for, self.smoke)
        self._check_dir(self.out, self.recipe.name, self.resume, "--out")
        self._validated = True

    def policy_game(self) -> tuple[int, str]:
        """The player count and ruleset the recipe's ``policy`` output is made for (after :meth:`validate`):
        those of the ``eval`` of the stage that makes it, else of the stage its network comes from (a ``train``
        stage's config: its ``eval.num_players`` and ``rules``; a planner stage's ``players`` and ``rules``);
        4 players, classic when none says."""
        recipe = self.recipe
        name = recipe.outputs["policy"].stage
        for _ in recipe.stages:  # each step follows an earlier stage: no cycle can hold it
            stage = recipe.stage(name)
            ev = stage.params.get("eval")
            if ev:
                return int(ev["players"]), str(ev.get("rules", stage.params.get("rules", "classic")))
            if stage.kind == "train":
                data = stage.config_data
                players = (data.get("eval") or {}).get("num_players", 4)
                return int(players), str(data.get("rules", "classic"))
            if stage.kind in ("room_values", "refit_scores"):
                return int(stage.params["players"]), str(stage.params["rules"])
            network = stage.params.get("network")
            if not isinstance(network, Ref) or not network.stage:
                break
            name = network.stage
        return 4, "classic"

    def _check_dir(self, out: str, name: str, resume: bool, what: str) -> None:
        full = os.path.abspath(out)
        if os.path.exists(full) and not os.path.isdir(full):
            raise ValueError(f"{what} {out!r} is a file, not a directory: give a run directory (it is created if missing)")
        parent = full
        while not os.path.exists(parent):
            parent = os.path.dirname(parent)
        if not os.path.isdir(parent) or not os.access(parent, os.W_OK | os.X_OK):
            raise ValueError(f"{what} {out!r} cannot be created or written ({parent!r})")
        record = os.path.join(out, "recipe.json")
        if not resume:
            if os.path.exists(record) or os.path.exists(os.path.join(out, "stages")):
                raise FileExistsError(
                    f"{out!r} already holds a recipe run: pass --resume to continue it, or choose another --out"
                )
            return
        if not os.path.exists(record):
            raise FileNotFoundError(f"nothing to resume in {out!r} (no recipe.json); start the run without --resume")
        doc = _read_json(record, "recipe run record")
        if doc.get("recipe") != name:
            raise ValueError(f"--resume: {out!r} holds a run of recipe {short(doc.get('recipe'))}, not {name!r}")
        if doc.get("smoke") is not self.smoke:
            was = "with" if doc.get("smoke") else "without"
            raise ValueError(f"--resume: {out!r} was built {was} --smoke; resume it the same way, or choose another --out")

    # ------------------------------------------------------------------ running
    def run(self) -> str:
        """Build the recipe (its dependencies first, as its stages need them); the path of ``DIR/policy.pt``."""
        if not self._validated:
            self.validate()
        return self._build(self.recipe, self.out, self.resume)

    def _log(self, msg: str) -> None:
        if self.progress:
            print(msg, file=sys.stdout, flush=True)

    def _build(self, recipe: Recipe, out: str, resume: bool) -> str:
        from .run_record import git_commit, package_versions

        t0 = time.time()
        os.makedirs(os.path.join(out, "stages"), exist_ok=True)
        record_path = os.path.join(out, "recipe.json")
        session: dict[str, Any] = {
            "command": self.command,
            "commit": git_commit(os.path.dirname(os.path.abspath(__file__))),
            "versions": package_versions(),
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        record = _read_json(record_path, "recipe run record") if resume and os.path.exists(record_path) else None
        if record is None:
            record = {"recipe": recipe.name, "path": os.path.relpath(recipe.path, self.root), "smoke": self.smoke, "sessions": []}
        record["sessions"] = [*record.get("sessions", []), session]
        record["finished"] = False
        _write_json(record_path, record)
        self._log(f"recipe {recipe.name}{' (smoke)' if self.smoke else ''}: {len(recipe.stages)} stages in {out}")
        paths: dict[tuple[str, str], str] = {}
        for stage in recipe.stages:
            paths.update(self._stage(recipe, stage, out, paths))
        outputs: dict[str, Any] = {}
        for o in recipe.outputs.values():
            dst = os.path.join(out, o.file)
            _copy(paths[(o.stage, o.output)], dst)
            outputs[o.name] = {"file": o.file, "stage": o.stage, "output": o.output}
        from ..policy.checkpoint import load_policy

        for o in recipe.outputs.values():  # every output loads where it lies (a linked file finds its network file)
            load_policy(os.path.join(out, o.file))
            outputs[o.name]["sha256"] = _sha256(os.path.join(out, o.file))
        record.update(outputs=outputs, finished=True)
        session["wall_seconds"] = round(time.time() - t0, 1)
        _write_json(record_path, record)
        self._log(f"recipe {recipe.name}: done; {', '.join(o.file for o in recipe.outputs.values())} in {out}")
        return os.path.join(out, "policy.pt")

    def _input(self, ref: Ref, paths: dict[tuple[str, str], str]) -> str:
        if not ref.recipe:
            return paths[(ref.stage, ref.output)]
        dep = self.chain[ref.recipe]
        if ref.recipe not in self._built:
            where = os.path.join(self.deps, ref.recipe)
            resume = os.path.exists(os.path.join(where, "recipe.json"))
            self._check_dir(where, dep.name, resume, "the dependency folder")
            self._log(f"recipe {ref.recipe}: needed as an input; building it in {where}")
            self._build(dep, where, resume)
            self._built[ref.recipe] = where
        return os.path.join(self._built[ref.recipe], dep.outputs[ref.output].file)

    def _stage(self, recipe: Recipe, stage: Stage, out: str, paths: dict[tuple[str, str], str]) -> dict[tuple[str, str], str]:
        from .run_record import git_commit, package_versions

        folder = os.path.join(out, "stages", stage.folder)
        inputs = {ref.text(): self._input(ref, paths) for ref in stage.refs()}
        spec = self._spec(stage, inputs)
        digest = _digest(spec)
        made = {(stage.name, "policy"): os.path.join(folder, "policy.pt")}
        if stage.kind == "combine" and stage.params.get("link"):
            made[(stage.name, "network")] = os.path.join(folder, stage.params["link"])
        where = f"recipe {recipe.name!r} stage {stage.folder}"
        done = os.path.join(folder, "done.json")
        if os.path.exists(done):
            marker = _read_json(done, "stage marker")
            if marker.get("digest") != digest:
                raise RecipeError(
                    f"{where} is done, but was made from other inputs or settings than the recipe's now: move "
                    f"{folder!r} away to make it again"
                )
            shas: dict[str, Any] = marker["sha256"] if isinstance(marker.get("sha256"), dict) else {}
            for (_, what), path in made.items():
                if not os.path.isfile(path) or _sha256(path) != shas.get(what):
                    why = "is missing" if not os.path.isfile(path) else "has changed since the stage made it"
                    raise RecipeError(f"{where} is done, but {path!r} {why}: move {folder!r} away to make it again")
            self._log(f"{where}: done")
            return made
        os.makedirs(folder, exist_ok=True)
        run_path = os.path.join(folder, "run.json")
        prev = _read_json(run_path, "stage record") if os.path.exists(run_path) else None
        if prev is not None and prev.get("digest") != digest:
            raise RecipeError(
                f"{where} was started from other inputs or settings than the recipe's now: move {folder!r} away to start it again"
            )
        record: dict[str, Any] = prev or {"recipe": recipe.name, "stage": stage.name, "kind": stage.kind, "digest": digest,
                                          "spec": spec, "wall_seconds": 0.0, "sessions": []}  # fmt: skip
        record["sessions"] = [*record.get("sessions", []), {
            "command": self.command, "commit": git_commit(os.path.dirname(os.path.abspath(__file__))),
            "versions": package_versions(), "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}]  # fmt: skip
        if not isinstance(record.get("eval_agent_seed"), int) or isinstance(record.get("eval_agent_seed"), bool):
            record["eval_agent_seed"] = secrets.randbits(63)  # secret entropy for the evaluation's agents (R31)
        _write_json(run_path, record)
        self._log(f"{where} ({stage.kind}){' resumed' if prev else ''}")
        t0 = time.time()
        evaluation = getattr(self, f"_run_{stage.kind}")(stage, folder, inputs, record)
        if "eval" in stage.params:
            evaluation["games"] = self._eval(stage, made[(stage.name, "policy")], record["eval_agent_seed"])
        record["evaluation"] = evaluation
        record["wall_seconds"] = round(float(record.get("wall_seconds", 0.0)) + time.time() - t0, 1)
        record["sessions"][-1]["wall_seconds"] = round(time.time() - t0, 1)
        _write_json(run_path, record)
        shas = {k[1]: _sha256(p) for k, p in made.items()}
        _write_json(done, {"stage": stage.name, "kind": stage.kind, "digest": digest, "sha256": shas})  # the last write
        return made

    def _spec(self, stage: Stage, inputs: dict[str, str]) -> dict[str, Any]:
        """What a stage's result depends on: its kind, settings (a ``train`` stage's whole config), ``--smoke``
        and each input's path and SHA-256; a done stage whose spec changed is refused on ``--resume``."""
        params = {k: (v.text() if isinstance(v, Ref) else [r.text() for r in v] if k == "head" and v else v)
                  for k, v in stage.params.items()}  # fmt: skip
        spec: dict[str, Any] = {"kind": stage.kind, "params": params, "smoke": self.smoke}
        spec["inputs"] = {text: {"path": path, "sha256": _sha256(path)} for text, path in inputs.items()}
        if stage.kind == "train":
            init = inputs.get(stage.params["init"].text(), "") if "init" in stage.params else ""
            spec["config"] = train_config(stage, self.smoke, init).to_dict()
        elif stage.kind in ("room_values", "refit_scores"):
            spec["fit"] = planner_params(stage, self.smoke).to_dict()
        return spec

    # ------------------------------------------------------------------ stage kinds
    def _run_train(self, stage: Stage, folder: str, inputs: dict[str, str], record: dict[str, Any]) -> dict[str, Any]:
        from .run_record import read_eval_log
        from .trainer import Trainer

        init = inputs.get(stage.params["init"].text(), "") if "init" in stage.params else ""
        cfg = train_config(stage, self.smoke, init)
        run_dir = os.path.join(folder, "train")
        record["seed"] = cfg.seed
        evaluate = None
        if self.evaluate is not None:
            ev = self.evaluate

            def evaluate(policy: str, opponent: str, n: int, games: int, seed: int, agent_seed: int) -> dict[str, Any]:
                return ev(policy, opponent, n, games, seed, agent_seed, cfg.rules, cfg.eval.workers)

        trainer = Trainer(
            cfg,
            run_dir,
            self.factory_for,
            evaluate,
            resume=os.path.exists(os.path.join(run_dir, "run.json")),
            progress=self.progress,
            command=[*self.command, f"(stage {stage.folder})"],
            workers=self.workers,
        )
        trainer.validate()
        final = trainer.run()
        _copy(final, os.path.join(folder, "policy.pt"))
        rows = read_eval_log(run_dir)
        last: dict[str, Any] = {}
        for r in rows:  # the last evaluation against each opponent
            last[str(r.get("opponent"))] = {k: r.get(k) for k in ("phase", "timesteps", "games", "win_rate", "ci95",
                                                                   "wrong_accusation_rate", "num_players")}  # fmt: skip
        out: dict[str, Any] = {"last_eval": last}
        fit = os.path.join(run_dir, "accusation", "fit.json")
        if cfg.accusation.games and os.path.exists(fit):
            try:  # a report that bounded JSON refuses is noted, not fatal
                f = _read_json(fit, "accusation fit report")
                out["accusation"] = {k: f.get(k) for k in ("trajectories", "held_out_gain", "held_out_gain_ci95", "shipped")}
            except RecipeError as e:
                out["accusation"] = {"report": one_line(str(e), 300)}
        return out

    def _run_planner(self, stage: Stage, folder: str, inputs: dict[str, str], record: dict[str, Any]) -> dict[str, Any]:
        from .planner_fit import run_planner_fit

        p = planner_params(stage, self.smoke)
        record["seed"] = {"seed": p.seed, "agent_seed": p.agent_seed}
        meta = {"command": " ".join(self.command), "stage": stage.folder, "commit": record["sessions"][-1]["commit"]}
        policy = inputs[stage.params["policy"].text()]

        def log(msg: str) -> None:
            self._log(f"  {msg}")

        try:
            return run_planner_fit(policy, p, folder, self.factory_for, workers=self.workers, meta=meta, log=log)
        except ValueError as e:
            if isinstance(e, RecipeError):
                raise
            raise RecipeError(f"stage {stage.folder}: {one_line(str(e))}") from None

    _run_room_values = _run_planner
    _run_refit_scores = _run_planner

    def _run_combine(self, stage: Stage, folder: str, inputs: dict[str, str], record: dict[str, Any]) -> dict[str, Any]:
        from .combine import combine_policy, parse_planner

        network = inputs[stage.params["network"].text()]
        heads = stage.params["head"]
        head_paths = None if heads is None else [inputs[h.text()] for h in heads]
        head: Any = head_paths[0] if head_paths and len(head_paths) == 1 else head_paths
        planner = parse_planner(stage.params["planner"]) if stage.params.get("planner") else None
        command = f"{' '.join(self.command)} (stage {stage.folder})"
        link = stage.params.get("link")
        if link:
            _copy(network, os.path.join(folder, link))
            network = os.path.join(folder, link)
        combine_policy(network, head, os.path.join(folder, "policy.pt"), command=command, planner=planner, reference=bool(link))
        return {"bag_of": len(head_paths or [])} if head_paths and len(head_paths) > 1 else {}

    def _eval(self, stage: Stage, policy: str, agent_seed: int) -> list[dict[str, Any]]:
        if self.evaluate is None:
            return []
        ev = stage.params["eval"]
        games = min(ev["games"], SMOKE_EVAL_GAMES) if self.smoke else ev["games"]
        rules = ev.get("rules", stage.params.get("rules", "classic"))
        rows = []
        for opp in ev["opponents"]:
            s = self.evaluate(policy, opp, ev["players"], games, ev["seed"], agent_seed, rules, 2 if self.workers > 1 else 1)
            key = next(k for k in s["results"] if k.startswith("ppo"))
            r = s["results"][key]
            rows.append({"opponent": opp, "players": ev["players"], "rules": rules, "games": r["games"],
                         "win_rate": r["win_rate"], "ci95": r["ci95"], "wrong_accusations": r["wrong_accusations"],
                         "seed": ev["seed"]})  # fmt: skip
            lo, hi = r["ci95"]
            self._log(f"  eval vs {ev['players'] - 1} {opp}: {r['win_rate']:.1%} [{lo:.1%}, {hi:.1%}] ({r['games']} games)")
        return rows


__all__ = [
    "RECIPES_DIR",
    "SMOKE_TRAIN",
    "STAGE_KINDS",
    "Output",
    "Recipe",
    "RecipeError",
    "RecipeRunner",
    "Ref",
    "Stage",
    "check_specs",
    "load_chain",
    "load_recipe",
    "planner_params",
    "recipe_path",
    "train_config",
]
