"""Reading input files within bounds, and writing result files without harming what is at the path.

Reading: every file that comes from a user or a run directory (rules and training configs, replays,
run records, league summaries, policy files) is read through :func:`read_regular`, which refuses
what is not a regular file (a directory, a FIFO, a device) and anything over a size limit before
reading it, and parsed with :func:`loads_json` or :func:`loads_yaml`, which bound nesting depth and
numbers and refuse YAML anchors and aliases. Each refusal is an :class:`InputError` (a
``ValueError``) whose message names the file and the problem in a line.

A regular file, or a path that does not exist yet, is replaced atomically (a temp file in the
same directory, then a rename), so a reader never sees half a file. Anything else that already
exists (a symlink, ``/dev/stdout``, ``/dev/null``, a FIFO, a device) is written straight through
and left what it is: renaming over it would replace a device node or a link with a plain file.

``evaluate.py`` (through :mod:`agents.output`) and the trainer's learning curve both write this
way; the picture is rendered to bytes in memory first, never to a ``PATH.tmp.png`` beside the path.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

#: the default bound on nesting (lists and mappings inside each other) of a JSON or YAML document
MAX_DEPTH = 32
#: the default bound on the digits of an integer in a JSON document
MAX_INT_DIGITS = 40


class InputError(ValueError):
    """A file or document refused: missing, not a regular file, too large, too deep, or not what it
    should be. The message names the source and says what is wrong in one line."""


def short(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters (``...`` marks the cut), for error messages that
    quote what they refuse. An integer too long to print is described by its digit count."""
    try:
        text = repr(value)
    except ValueError:  # an int over Python's digit limit for conversion to text
        text = f"<an integer of about {int(value.bit_length() * 0.30103):,} digits>"
    return text if len(text) <= limit else text[: max(limit - 3, 1)] + "..."


def one_line(text: str, limit: int = 300) -> str:
    """``text`` with its whitespace runs (newlines too) made single spaces, cut to ``limit``
    characters (``...`` marks the cut): a library's message quoted inside one of ours."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: max(limit - 3, 1)] + "..."


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def check_regular(path: str, what: str = "file") -> os.stat_result:
    """The ``os.stat`` of ``path`` (links followed) if it is a regular file; else :class:`InputError`
    saying what it is (missing, a directory, a FIFO, a device)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{what} {path!r} does not exist") from None
    except OSError as e:
        raise InputError(f"{what} {path!r} cannot be read: {e.strerror or e}") from None
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{what} {path!r} is {_kind(st.st_mode)}, not a regular file")
    return st


def read_regular(path: str, limit: int, what: str = "file") -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them.

    Refused with :class:`InputError` before any read: a missing path, a directory, a FIFO (opened
    without blocking, so a planted FIFO never hangs the reader), a device, a file over ``limit``
    bytes. A file that grows past ``limit`` while being read is refused too. What is not a regular
    file is refused from its ``stat`` alone, never opened (opening some devices acts on them)."""
    check_regular(path, what)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise InputError(f"{what} {path!r} does not exist") from None
    except OSError as e:
        raise InputError(f"{what} {path!r} cannot be read: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{what} {path!r} is {_kind(st.st_mode)}, not a regular file")
        if st.st_size > limit:
            raise InputError(f"{what} {path!r} is {st.st_size:,} bytes, over the limit of {limit:,}")
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise InputError(f"{what} {path!r} is over the limit of {limit:,} bytes")
        return b"".join(chunks)
    except OSError as e:
        raise InputError(f"{what} {path!r} cannot be read: {e.strerror or e}") from None
    finally:
        os.close(fd)


def sha256_file(path: str) -> str:
    """The SHA-256 of the file at ``path`` (hex), read in 1 MiB blocks."""
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def depth(doc: Any, limit: int | None = None) -> int:
    """How deeply lists and mappings nest in ``doc`` (a scalar 0, ``[]`` 1), walked without
    recursion. A container reached again (shared) is walked again only at a greater depth, so a
    document that reuses one list many times costs its distinct containers, not its expansion.
    With ``limit``, the walk stops as soon as the depth passes it (and returns ``limit + 1``)."""
    deepest = 0
    seen: dict[int, int] = {}
    stack: list[tuple[Any, int]] = [(doc, 0)]
    while stack:
        item, d = stack.pop()
        if isinstance(item, dict):
            children = list(item.values())
        elif isinstance(item, (list, tuple)):
            children = list(item)
        else:
            continue
        if seen.get(id(item), -1) >= d:
            continue
        seen[id(item)] = d
        deepest = max(deepest, d + 1)
        if limit is not None and deepest > limit:
            return limit + 1
        stack.extend((v, d + 1) for v in children if isinstance(v, (dict, list, tuple)))
    return deepest


def check_depth(doc: Any, what: str, max_depth: int = MAX_DEPTH) -> Any:
    """``doc`` itself if it nests at most ``max_depth`` deep; else :class:`InputError`."""
    if depth(doc, max_depth) > max_depth:
        raise InputError(f"{what}: nested more than {max_depth} deep")
    return doc


def finite(value: Any) -> Any:
    """``value`` with every float that is not finite (``NaN``, an infinity) made ``None``, in
    lists, tuples (as lists) and mappings: what a report may write as JSON that
    :func:`loads_json` reads back (a statistic of too few games is ``NaN``)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def loads_json(
    data: bytes | str,
    what: str = "document",
    *,
    max_depth: int = MAX_DEPTH,
    max_int_digits: int = MAX_INT_DIGITS,
) -> Any:
    """Parse JSON text within bounds: nesting at most ``max_depth`` deep, integers of at most
    ``max_int_digits`` digits, floats finite (no ``NaN``, ``Infinity`` or ``1e400``), UTF-8 text.
    Each refusal is an :class:`InputError` naming ``what``."""

    def parse_int(text: str) -> int:
        if len(text.lstrip("-")) > max_int_digits:
            raise InputError(f"{what}: an integer of {len(text.lstrip('-')):,} digits (at most {max_int_digits})")
        return int(text)

    def parse_float(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            raise InputError(f"{what}: the number {short(text, 40)} is out of range")
        return value

    def parse_constant(text: str) -> Any:
        raise InputError(f"{what}: {text} is not a JSON number")

    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputError(f"{what}: not valid JSON: not UTF-8 text ({e.reason} at byte {e.start})") from None
    # The number hooks cost a Python call per number. Only a document with a run of more digits
    # than an integer may have, or an exponent of 3 or more digits, can break the number bounds
    # (a float overflows only so), so only such a one is parsed with them.
    hooks: dict[str, Any] = {"parse_constant": parse_constant}
    if re.search(rf"\d{{{max_int_digits + 1},}}|[eE][-+]?\d{{3,}}", data):
        hooks.update(parse_int=parse_int, parse_float=parse_float)
    try:
        doc = json.loads(data, **hooks)
    except InputError:
        raise
    except RecursionError:
        raise InputError(f"{what}: nested more than {max_depth} deep") from None
    except UnicodeDecodeError as e:
        raise InputError(f"{what}: not valid JSON: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{what}: not valid JSON ({e.msg}: line {e.lineno} column {e.colno})") from None
    except ValueError as e:  # e.g. a string of digits over Python's own int limit
        raise InputError(f"{what}: not valid JSON ({one_line(str(e), 120)})") from None
    return check_depth(doc, what, max_depth)


def loads_yaml(data: bytes | str, what: str = "document", *, max_depth: int = MAX_DEPTH) -> Any:
    """Parse YAML text with PyYAML's safe loader within bounds: no anchors or aliases (their
    expansion is a document size bomb), nesting at most ``max_depth`` deep. Each refusal is an
    :class:`InputError` naming ``what``; text that is not YAML, or a value its tag cannot build, too."""
    import yaml

    if isinstance(data, bytes):  # YAML would also take UTF-16 by its byte-order mark: configs are UTF-8
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputError(f"{what}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    try:
        level = 0
        for event in yaml.parse(data, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
                raise InputError(f"{what}: YAML anchors and aliases (& and *) are not accepted")
            if isinstance(event, yaml.CollectionStartEvent):
                level += 1
                if level > max_depth:
                    raise InputError(f"{what}: nested more than {max_depth} deep")
            elif isinstance(event, yaml.CollectionEndEvent):
                level -= 1
        return yaml.safe_load(data)
    except InputError:
        raise
    except UnicodeDecodeError as e:
        raise InputError(f"{what}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except yaml.YAMLError as e:
        raise InputError(f"{what}: not valid YAML: {one_line(str(e))}") from None
    except RecursionError:
        raise InputError(f"{what}: nested more than {max_depth} deep") from None
    except ValueError as e:  # a value its tag cannot build: a date with month 13, an int over Python's digit limit
        raise InputError(f"{what}: a value cannot be read: {one_line(str(e), 200)}") from None


@contextmanager
def atomic_file(path: str, prefix: str = ".tmp-", suffix: str = ".tmp") -> Iterator[IO[bytes]]:
    """A binary file to write ``path`` through: a temporary file in the same directory (made if
    missing) with the umask's mode, flushed and synced, then renamed over ``path`` when the block
    ends; on any failure (a full disk, an exception in the block) the temporary file is removed
    and ``path`` is as it was."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=prefix, suffix=suffix)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; these are ordinary files
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_output(path: str, data: bytes, prefix: str = ".clue_env.") -> None:
    """Write ``data`` to ``path``: atomically (temp file named ``PREFIX*.tmp`` + rename, with the
    umask's mode) for a regular file or a new one; straight through for anything else
    (``/dev/stdout``, a pipe, a symlink's target), so that those work, stay what they are, and a
    write error is reported."""
    if os.path.lexists(path) and (os.path.islink(path) or not os.path.isfile(path)):
        with open(path, "wb") as f:
            f.write(data)
            f.flush()
        return
    with atomic_file(path, prefix=prefix) as f:
        f.write(data)


def figure_png(fig: Any, dpi: int = 100) -> bytes:
    """A matplotlib figure rendered to PNG bytes in memory; the figure is closed."""
    import io

    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    try:
        fig.savefig(buf, format="png", dpi=dpi)
    finally:
        plt.close(fig)
    return buf.getvalue()


__all__ = [
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "atomic_file",
    "InputError",
    "check_depth",
    "check_regular",
    "depth",
    "figure_png",
    "finite",
    "loads_json",
    "loads_yaml",
    "one_line",
    "read_regular",
    "sha256_file",
    "short",
    "write_output",
]
