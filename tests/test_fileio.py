"""clue_env.fileio and the trainer's learning curve: regular and new files are replaced atomically,
anything else at the path (a symlink, a FIFO) is written straight through and stays what it is."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from clue_env.fileio import write_output

PNG = b"\x89PNG\r\n\x1a\n"
ROWS = [
    {
        "opponent": "random",
        "timesteps": t,
        "win_rate": w,
        "ci95": [w - 0.05, w + 0.05],
        "wrong_accusation_rate": 0.1,
        "num_players": 4,
    }
    for t, w in ((0, 0.3), (1000, 0.5))
]


def _leftovers(d):
    return sorted(p.name for p in d.iterdir() if p.name.endswith(".tmp") or ".tmp." in p.name)


def test_write_output_replaces_a_regular_file_atomically_and_creates_a_new_one(tmp_path):
    path = tmp_path / "out.bin"
    path.write_bytes(b"old")
    inode = path.stat().st_ino
    write_output(str(path), b"new")
    assert path.read_bytes() == b"new" and path.stat().st_ino != inode  # a new file renamed over the old
    umask = os.umask(0)
    os.umask(umask)
    assert (path.stat().st_mode & 0o777) == 0o666 & ~umask
    fresh = tmp_path / "a" / "b" / "c.bin"
    write_output(str(fresh), b"x")
    assert fresh.read_bytes() == b"x"
    assert _leftovers(tmp_path) == []


def test_write_output_writes_through_a_symlink_and_keeps_it(tmp_path):
    target = tmp_path / "target.bin"
    target.write_bytes(b"old")
    link = tmp_path / "link.bin"
    link.symlink_to(target)
    write_output(str(link), b"new")
    assert link.is_symlink() and target.read_bytes() == b"new"


def test_write_output_removes_its_temp_file_when_the_write_fails(tmp_path, monkeypatch):
    def boom(src, dst):
        raise OSError("disk on fire")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk on fire"):
        write_output(str(tmp_path / "x.bin"), b"data")
    assert list(tmp_path.iterdir()) == []


def _plot(path):
    pytest.importorskip("matplotlib")
    from clue_env.training.trainer import plot_curve

    plot_curve(ROWS, str(path), "test")


def test_plot_curve_writes_a_png_through_a_symlink_and_leaves_no_temp_file(tmp_path):
    target = tmp_path / "real_curve.png"
    target.write_bytes(b"old")
    link = tmp_path / "curve.png"
    link.symlink_to(target)
    _plot(link)
    assert link.is_symlink(), "the symlink was replaced by a plain file"
    assert target.read_bytes().startswith(PNG)
    assert _leftovers(tmp_path) == [] and not (tmp_path / "curve.png.tmp.png").exists()
    plain = tmp_path / "plain.png"
    _plot(plain)
    assert plain.read_bytes().startswith(PNG) and _leftovers(tmp_path) == []


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_plot_curve_writes_into_a_fifo_and_leaves_it_a_fifo(tmp_path):
    fifo = tmp_path / "curve.png"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def reader():
        with open(fifo, "rb") as f:  # blocks until the writer opens the FIFO
            got.append(f.read())

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    _plot(fifo)
    t.join(10)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced by a plain file"
    assert got and got[0].startswith(PNG)
    assert _leftovers(tmp_path) == []
