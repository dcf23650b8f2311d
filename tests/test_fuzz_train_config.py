"""Property-based fuzzing of ``train.py`` configs (issue 16): a random mutation of a valid config
(keys deleted or added, values of the wrong type or out of range, bad agent specs in line-ups and
opponent lists, bad rules names and player counts) is either accepted (it loads and
:meth:`Trainer.validate` passes) or refused before any work with a :class:`TrainConfigError` (or,
for the ``init`` file, the documented ``FileNotFoundError`` / ``CheckpointError``) whose message
names a mutated key, and nothing is written. A few refused mutations go through ``train.main``
itself: exit status 2, one ``train.py: error:`` line naming the key, no traceback, no run directory.

Budgets: ``FUZZ_EXAMPLES`` examples per property (default 60; raise it locally with the
environment variable ``CLUE_FUZZ_EXAMPLES``).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import io
import itertools
import os
import tempfile

import pytest

hypothesis = pytest.importorskip("hypothesis")
pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import yaml  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from agents import SpecFactory  # noqa: E402
from clue_env.training.config import _SECTIONS, TrainConfig, TrainConfigError, load_train_config  # noqa: E402
from clue_env.training.trainer import Trainer  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASES = {name: os.path.join(ROOT, "configs", "train", f"{name}.yaml") for name in ("smoke", "accusation_classic")}
FUZZ_EXAMPLES = int(os.environ.get("CLUE_FUZZ_EXAMPLES", "60"))
FUZZ = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def _base(name: str) -> dict:
    with open(BASES[name], encoding="utf-8") as f:
        data = yaml.safe_load(f)
    assert load_train_config(data)  # the bases are valid
    return data


#: every (section, key) of the schema, and the top-level keys
KEYS = [(s, f.name) for s, cls in _SECTIONS.items() for f in dataclasses.fields(cls)]
TOP = [f.name for f in dataclasses.fields(TrainConfig) if f.name not in _SECTIONS]
SPEC_LISTS = [("ppo", "opponents"), ("eval", "opponents"), ("accusation", "record")]
LINEUPS = [("imitation", "lineups"), ("accusation", "lineups")]

# ---------------------------------------------------------------- values
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.integers(-3, 10),
    st.sampled_from([0, -1, 1, 2**31, 2**32, 2**63, 10**400, 0.5, -0.5, 1.5, 1e308, -1e-9]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=10),
)
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8
)
specs = st.one_of(
    st.sampled_from(
        [
            "random",
            "notebook",
            "deduction",
            "deduction:samples=16",
            "ppo",
            "notebok",
            "",
            " ",
            "deduction:",
            "deduction:samples=0",
            "deduction:samples=-5",
            "deduction:samples=1.5",
            "deduction:samples=true",
            "deduction:samples=100000000",
            "deduction:threshold=2",
            "random:x=1",
            "ppo:no/such/policy.pt",
            "ppo:configs",
            "ppo:configs/train/smoke.yaml",
            "human",
            "deduction:=1",
        ]
    ),
    st.text(max_size=12),
)
key_names = st.one_of(st.sampled_from([k for _, k in KEYS] + TOP + list(_SECTIONS)), st.text(min_size=1, max_size=8))


# ---------------------------------------------------------------- mutations
@st.composite
def mutation(draw, data: dict) -> tuple[tuple, dict]:
    """One random mutation of ``data`` (in place); returns (the mutated path, data)."""
    kind = draw(st.sampled_from(["delete", "set", "unknown", "spec", "lineup_size", "rules", "players", "section", "number"]))
    if kind == "delete":
        present = [(k,) for k in data] + [(s, k) for s in _SECTIONS if isinstance(data.get(s), dict) for k in data[s]]
        if present:
            path = draw(st.sampled_from(present))
            parent = data if len(path) == 1 else data[path[0]]
            del parent[path[-1]]
            return path, data
        kind = "set"
    if kind == "unknown":
        where = draw(st.sampled_from([None, *_SECTIONS]))
        key = draw(key_names)
        target = data if where is None else data.setdefault(where, {})
        if not isinstance(target, dict):
            return ((where,) if where else ()), data
        target[key] = draw(values)
        return ((key,) if where is None else (where, key)), data
    if kind == "set":
        path = draw(st.sampled_from([(k,) for k in TOP] + KEYS))
        value = draw(values)
    elif kind == "number":
        path = draw(st.sampled_from([(k,) for k in ("seed",)] + KEYS))
        value = draw(
            st.sampled_from(
                [0, -1, 1, 2, 7, 2**32, 2**70, 10**400, -(10**400), 0.0, -0.5, 1.5, 1e308, float("inf"), float("nan")]
            )
        )
    elif kind == "rules":
        path, value = (
            ("rules",),
            draw(st.one_of(st.sampled_from(["classic", "edition2023", "clasic", "", "CLASSIC", "../classic"]), values)),
        )
    elif kind == "players":
        choice = draw(st.sampled_from([("num_players",), ("eval", "num_players")]))
        path = choice
        value = draw(st.one_of(st.integers(-2, 9), st.lists(st.integers(-2, 9), max_size=4), values))
    elif kind == "section":
        path, value = (draw(st.sampled_from(list(_SECTIONS))),), draw(values)
    elif kind == "spec":
        section, key = draw(st.sampled_from(SPEC_LISTS + LINEUPS + [("imitation", "teacher")]))
        path = (section, key)
        sec = data.setdefault(section, {})
        if not isinstance(sec, dict):
            return (section,), data
        spec = draw(specs)
        cur = sec.get(key)
        if key == "teacher":
            sec[key] = spec
        elif (section, key) in LINEUPS:
            lineups = copy.deepcopy(cur) if isinstance(cur, list) and cur else [["deduction"] * 4]
            i = draw(st.integers(0, len(lineups) - 1))
            if isinstance(lineups[i], list) and lineups[i]:
                lineups[i][draw(st.integers(0, len(lineups[i]) - 1))] = spec
            sec[key] = lineups
        else:
            items = list(cur) if isinstance(cur, list) else []
            if items and draw(st.booleans()):
                items[draw(st.integers(0, len(items) - 1))] = spec
            else:
                items.append(spec)
            sec[key] = items
        return path, data
    else:  # lineup_size
        section, key = draw(st.sampled_from(LINEUPS))
        path = (section, key)
        sec = data.setdefault(section, {})
        if not isinstance(sec, dict):
            return (section,), data
        lineups = copy.deepcopy(sec.get(key)) if isinstance(sec.get(key), list) and sec.get(key) else [["deduction"] * 4]
        i = draw(st.integers(0, len(lineups) - 1))
        n = draw(st.integers(0, 8))
        lineups[i] = (["deduction"] + ["notebook"] * 7)[:n]
        sec[key] = lineups
        return path, data
    target = data if len(path) == 1 else data.setdefault(path[0], {})
    if not isinstance(target, dict):
        return path[:1], data
    target[path[-1]] = value
    return path, data


@st.composite
def mutated(draw, base: str | None = None) -> tuple[str, list[tuple], dict]:
    name = base or draw(st.sampled_from(sorted(BASES)))
    data = _base(name)
    paths = []
    for _ in range(draw(st.integers(1, 3))):
        path, data = draw(mutation(data))
        paths.append(path)
    return name, paths, data


#: keys whose value another key's check depends on: a refusal may name the dependent key
RELATED = {
    "rules": ["num_players", "lineups", "eval.num_players"],
    "num_players": ["lineups", "ppo.opponents", "eval.opponents"],
    "eval.num_players": ["eval.opponents"],
    "ppo.opponents": ["ppo.opponent_weights"],
    "ppo.opponent_weights": ["ppo.opponents"],
    "ppo.n_envs": ["ppo.n_steps"],
    "ppo.n_steps": ["ppo.n_envs"],
    "imitation.teacher": ["imitation.lineups"],
    "imitation.games": ["imitation.lineups"],
    "imitation.lineups": ["imitation.teacher"],
    "init": ["imitation.lineups"],
    "accusation.games": ["accusation.lineups", "accusation.record"],
    "accusation.lineups": ["accusation.record"],
    "accusation.record": ["accusation.lineups"],
}


def _names(path: tuple) -> list[str]:
    """How a message may name the key at ``path``: its dotted path (or, for a key in a section, the
    section with the key), or a key whose check depends on it."""
    dotted = ".".join(str(p) for p in path)
    out = [dotted, *RELATED.get(dotted, [])]
    if len(path) == 1 and path[0] in _SECTIONS:
        out += [f"{path[0]}.", f"in {path[0]}"]  # the section itself: any of its keys
    return out


def _names_a_key(msg: str, paths: list[tuple]) -> bool:
    for path in paths:
        for name in _names(path):
            if name in msg:
                return True
        if path and repr(path[-1]) in msg and (len(path) == 1 or str(path[0]) in msg):
            return True  # "unknown key(s) ['x'] in ppo"
        if len(path) == 2 and f"{path[0]}:" in msg and str(path[1]) in msg:
            return True  # "ppo: workers and update_threads must be >= 0"
    return False


_outs = itertools.count()
_OUT_ROOT = tempfile.mkdtemp(prefix="fuzz-train-")


def _check(data: dict) -> Exception | None:
    """Load and validate ``data`` as train.py does; the refusal, or ``None`` when accepted."""
    out = os.path.join(_OUT_ROOT, f"run{next(_outs)}")
    try:
        cfg = load_train_config(data)
        Trainer(cfg, out, SpecFactory, None, progress=False, workers=1).validate()
    except (TrainConfigError, FileNotFoundError) as e:
        return e
    finally:
        assert not os.path.exists(out)  # nothing is written by the checks
    return None


def _refused_properly(e: Exception, paths: list[tuple]) -> None:
    msg = str(e)
    if isinstance(e, FileNotFoundError):
        assert msg.startswith("init: policy file"), msg
    assert _names_a_key(msg, paths), f"{paths}: {msg}"


@FUZZ
@given(m=mutated())
def test_fuzz_train_config_mutations_are_accepted_or_refused_naming_the_key(m):
    _, paths, data = m
    e = _check(data)
    if e is not None:
        _refused_properly(e, paths)


@settings(max_examples=min(FUZZ_EXAMPLES, 8), deadline=None, suppress_health_check=list(HealthCheck))
@given(m=mutated("smoke"))
def test_fuzz_train_main_refuses_bad_configs_before_writing_anything(m):
    """The refused mutations through ``train.main``: status 2, one message naming the key, no
    traceback, no run directory (an accepted one is not run: it would train)."""
    import train

    _, paths, data = m
    if _check(data) is None:
        return
    d = tempfile.mkdtemp(prefix="fuzz-main-", dir=_OUT_ROOT)
    path = os.path.join(d, "c.yaml")
    with open(path, "w", encoding="utf-8") as f:
        yaml.safe_dump(data, f)
    out = os.path.join(d, "run")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = train.main(["--config", path, "--out", out, "--quiet", "--workers", "1"])
    text = err.getvalue()
    assert rc == 2 and text.startswith("train.py: error:") and "Traceback" not in text, text
    assert _names_a_key(text, paths), f"{paths}: {text}"
    assert sorted(os.listdir(d)) == ["c.yaml"]  # no run directory, nothing else written


#: wrong types and out-of-range values for every key (the grid below tries each on each key)
BAD_VALUES = [None, True, 0, -1, 1, 2**32, 2**70, 10**400, -(10**400), 0.0, 0.5, -0.5, 1e308, float("inf"),
              float("nan"), "", "x", [], [1], [0], [[]], ["a"], {}, {"a": 1}, [10**400], [float("nan")], [True]]  # fmt: skip


def test_every_key_with_every_bad_value_is_accepted_or_refused_naming_it():
    """The exhaustive counterpart of the property, for the config alone: each key of the schema set
    to each of :data:`BAD_VALUES` loads or raises a TrainConfigError naming that key."""
    base = _base("smoke")
    for path in [(k,) for k in TOP] + KEYS:
        for value in BAD_VALUES:
            data = copy.deepcopy(base)
            (data if len(path) == 1 else data.setdefault(path[0], {}))[path[-1]] = value
            try:
                load_train_config(data)
            except TrainConfigError as e:
                assert _names_a_key(str(e), [path]), (path, value, str(e))


def test_fuzz_train_config_known_mutations():
    """Mutations refused with a traceback, or only after the imitation stage, or not at all,
    before the fix (the properties and the grid found them)."""
    cases = [
        ({"ppo": {"learning_rate": 10**400}}, "ppo.learning_rate"),  # OverflowError
        ({"ppo": {"opponent_weights": [0]}}, "ppo.opponent_weights"),  # refused by the env, after imitation
        ({"ppo": {"batch_size": 1}}, "ppo.batch_size"),  # an assertion in SB3, after imitation
        ({"ppo": {"max_grad_norm": -1}}, "ppo.max_grad_norm"),
        ({"ppo": {"target_kl": 0}}, "ppo.target_kl"),
        ({"ppo": {"n_envs": 10**9}}, "ppo.n_envs"),
        ({"ppo": {"n_steps": 10**7}}, "n_steps"),
        ({"ppo": {"torch_threads": 10**9}}, "ppo.torch_threads"),
        ({"imitation": {"games": 10**10}}, "imitation.games"),
        ({"eval": {"workers": 10**4}}, "eval.workers"),
        ({"name": "../elsewhere"}, "name"),  # the default run directory, runs/<name>
        ({"ppo": {"opponents": ["human"]}}, "ppo.opponents"),  # would wait for input in a worker
        ({"init": "configs/train/smoke.yaml"}, "init"),  # was a CheckpointError that did not name the key
        ({"ppo": {"opponent_draw": "pool"}}, "ppo.opponent_draw"),
        ({"ppo": {"opponent_draw": "lineup"}}, "ppo.opponent_draw"),  # smoke: 1 opponent spec for 4 players
        (
            {"ppo": {"opponent_draw": "lineup", "opponents": ["random"] * 3, "opponent_weights": [1, 1, 1]}},
            "ppo.opponent_weights",
        ),  # fmt: skip
    ]
    for changes, key in cases:
        data = _base("smoke")
        for k, v in changes.items():
            if isinstance(v, dict):
                data[k].update(v)
            else:
                data[k] = v
        e = _check(data)
        assert isinstance(e, TrainConfigError) and key in str(e), (changes, e)
