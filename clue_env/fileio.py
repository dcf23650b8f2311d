"""Writing result files (charts, JSON) without harming what is at the path.

A regular file, or a path that does not exist yet, is replaced atomically (a temp file in the
same directory, then a rename), so a reader never sees half a file. Anything else that already
exists (a symlink, ``/dev/stdout``, ``/dev/null``, a FIFO, a device) is written straight through
and left what it is: renaming over it would replace a device node or a link with a plain file.

``evaluate.py`` (through :mod:`agents.output`) and the trainer's learning curve both write this
way; the picture is rendered to bytes in memory first, never to a ``PATH.tmp.png`` beside the path.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any


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
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=prefix, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


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


__all__ = ["figure_png", "write_output"]
