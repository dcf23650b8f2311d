"""A run directory's records, read within bounds, and the provenance a run records.

The readers (:func:`read_run_record`, :func:`read_eval_log`, :func:`run_config`,
:func:`check_games_chunk`) read what a run directory holds (see
:mod:`~clue_env.training.trainer`) within the limits below (:mod:`clue_env.fileio`), each refusal a
``ValueError`` in one line saying what to do; :func:`git_commit` and :func:`package_versions` are
what a run records of the code that ran it (``run.json``, a recipe's record).
"""

from __future__ import annotations

import os
import platform
import subprocess
from typing import Any

from ..fileio import InputError, loads_json, read_regular
from ..policy.checkpoint import zip_members
from .config import TrainConfig, TrainConfigError, load_train_config

#: the largest run record (run.json) and evaluation log (eval.jsonl) read, and the most rows the log may hold
RUN_RECORD_LIMIT = 16 << 20
EVAL_LOG_LIMIT = 64 << 20
EVAL_MAX_ROWS = 100_000
#: the largest chunk of recorded games (accusation/*.npz) read, and the most its arrays may unpack to
NPZ_FILE_LIMIT = 256 << 20
NPZ_UNPACKED_LIMIT = 1 << 30


def read_run_record(out: str) -> dict[str, Any]:
    """The run record ``out/run.json`` (a JSON object), read within bounds (:mod:`clue_env.fileio`);
    ``ValueError`` naming the file and the problem, in one line."""
    path = os.path.join(out, "run.json")
    try:
        record = loads_json(read_regular(path, RUN_RECORD_LIMIT, "run record"), repr(path))
    except InputError as e:
        raise ValueError(f"{e}; the run directory is damaged") from None
    if not isinstance(record, dict):
        raise ValueError(f"{path!r} is not a run record (a JSON object); the run directory is damaged")
    return record


def read_eval_log(out: str) -> list[dict[str, Any]]:
    """The rows (JSON objects) of ``out/eval.jsonl``, none if it is missing, read within bounds: at
    most ``EVAL_LOG_LIMIT`` bytes in at most ``EVAL_MAX_ROWS`` lines, each line's JSON bounded as
    :func:`~clue_env.fileio.loads_json` bounds it. ``ValueError`` naming the file, the line and the
    problem, in one line."""
    path = os.path.join(out, "eval.jsonl")
    if not os.path.lexists(path):
        return []
    try:
        raw = read_regular(path, EVAL_LOG_LIMIT, "evaluation log")
        if raw.count(b"\n") > EVAL_MAX_ROWS:
            raise InputError(f"{path!r} has more than {EVAL_MAX_ROWS:,} lines")
        rows = [loads_json(ln, f"{path!r} line {i}") for i, ln in enumerate(raw.split(b"\n"), 1) if ln.strip()]
    except InputError as e:
        raise ValueError(f"{e}; move it away to start its rows afresh") from None
    return [r for r in rows if isinstance(r, dict)]


def check_games_chunk(path: str) -> None:
    """Refuse, with a ``ValueError`` naming it, a chunk of recorded games (``accusation/*.npz``) that
    is not a regular file of at most ``NPZ_FILE_LIMIT`` bytes, not a zip archive, or whose arrays
    declare more than ``NPZ_UNPACKED_LIMIT`` bytes in all. ``np.load`` reads a compressed array no
    further than its declared size, so a deflate bomb is refused before anything is unpacked."""
    todo = "move it away to record that chunk again"
    try:
        members = zip_members(read_regular(path, NPZ_FILE_LIMIT, "recorded games"))
    except InputError as e:
        raise ValueError(f"{e}; {todo}") from None
    except ValueError as e:
        raise ValueError(f"recorded games {path!r}: {e}; {todo}") from None
    unpacked = sum(m.file_size for m in members)
    if unpacked > NPZ_UNPACKED_LIMIT:
        raise ValueError(f"recorded games {path!r} would unpack to {unpacked:,} bytes, more than {NPZ_UNPACKED_LIMIT:,}; {todo}")


def run_config(out: str) -> TrainConfig | None:
    """The config recorded in the run directory ``out`` (``config.yaml``, with the overrides the run
    was started or last resumed with, e.g. its ``--timesteps`` target), or ``None`` if it has none."""
    path = os.path.join(out, "config.yaml")
    if not os.path.isfile(path):
        return None
    try:
        return load_train_config(path)
    except TrainConfigError as e:
        raise ValueError(f"the run's recorded config {path!r} cannot be used ({e}); it is damaged") from None


def git_commit(cwd: str | None = None) -> str:
    """The current commit (``+dirty`` when the tree has changes), or ``unknown``."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=cwd, timeout=10)
        if head.returncode != 0:
            return "unknown"
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True, cwd=cwd, timeout=10
        )
        return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def package_versions() -> dict[str, str]:
    """The versions of Python and of the packages a run uses (``not installed`` for one missing)."""
    from importlib import metadata

    out = {"python": platform.python_version()}
    for name in ("clue-env", "torch", "stable-baselines3", "sb3-contrib", "gymnasium", "pettingzoo", "numpy", "ray"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


__all__ = [
    "EVAL_LOG_LIMIT",
    "EVAL_MAX_ROWS",
    "NPZ_FILE_LIMIT",
    "NPZ_UNPACKED_LIMIT",
    "RUN_RECORD_LIMIT",
    "check_games_chunk",
    "git_commit",
    "package_versions",
    "read_eval_log",
    "read_run_record",
    "run_config",
]
