"""clue_env.fileio and the trainer's learning curve: regular and new files are replaced atomically,
anything else at the path (a symlink, a FIFO) is written straight through and stays what it is."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from clue_env.fileio import InputError, check_depth, depth, finite, loads_json, loads_yaml, read_regular, short, write_output

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
    from clue_env.training.curves import plot_curve

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


# ---------------------------------------------------------------- bounded readers (R31's files: bad input)
def test_read_regular_refuses_what_is_not_a_regular_file_without_blocking(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "big").write_bytes(b"x" * 101)
    (tmp_path / "ok").write_bytes(b"x" * 100)
    os.symlink(tmp_path / "ok", tmp_path / "link")
    cases = {fifo: "is a FIFO", tmp_path: "is a directory", tmp_path / "none": "does not exist", "/dev/zero": "is a device"}
    cases[tmp_path / "big"] = "over the limit of 100"
    for path, says in cases.items():
        with pytest.raises(InputError, match=says):
            read_regular(str(path), 100, "replay")
    assert read_regular(str(tmp_path / "ok"), 100) == b"x" * 100
    assert read_regular(str(tmp_path / "link"), 100) == b"x" * 100


@pytest.mark.parametrize(
    "text, says",
    [
        ("[" * 40 + "]" * 40, "nested more than 32 deep"),
        ("[" * 100_000, "nested more than 32 deep"),
        ("1" * 41, "integer of 41 digits"),
        ("9" * 5000, "integer of 5,000 digits"),
        ('{"value": 1e400}', "out of range"),
        ("[NaN]", "NaN is not a JSON number"),
        ("[Infinity]", "Infinity is not a JSON number"),
        (b"\xff\xfe", "not UTF-8|not valid JSON"),
        ('{"a": ', "not valid JSON"),
    ],
)
def test_loads_json_refuses_deep_huge_and_broken_documents_with_one_line(text, says):
    with pytest.raises(InputError, match=says) as e:
        loads_json(text, "league summary")
    assert str(e.value).startswith("league summary: ") and "\n" not in str(e.value)
    assert len(str(e.value)) < 200


def test_loads_json_reads_plain_documents():
    assert loads_json('{"a": [1, 2.5, "x", null, true], "b": {"c": -12}}') == {"a": [1, 2.5, "x", None, True], "b": {"c": -12}}
    assert loads_json("[" * 32 + "]" * 32) is not None


def test_loads_yaml_refuses_aliases_so_a_tiny_file_cannot_blow_up():
    levels = ['a0: &a0 ["xxxxxxxxxx"]'] + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    bomb = "\n".join(levels) + "\n"
    assert len(bomb) < 500
    with pytest.raises(InputError, match="anchors and aliases") as e:
        loads_yaml(bomb, "rules file r.yaml")
    assert len(str(e.value)) < 200


def test_loads_yaml_bounds_depth_and_reports_bad_yaml_on_one_line():
    with pytest.raises(InputError, match="nested more than 32 deep"):
        loads_yaml("[" * 40 + "]" * 40, "config")
    with pytest.raises(InputError, match="not valid YAML") as e:
        loads_yaml("a: [\n", "config")
    assert "\n" not in str(e.value)
    assert loads_yaml("a: 1\nb: [x, {c: 2}]\n") == {"a": 1, "b": ["x", {"c": 2}]}


def test_short_cuts_long_quotes():
    assert short("x" * 500, 40).endswith("...") and len(short("x" * 500, 40)) == 40
    assert short("abc") == "'abc'"


def test_short_describes_an_integer_too_long_to_print():
    assert "digits" in short(10**5000) and len(short(10**5000)) <= 80


def test_depth_walks_a_shared_structure_once_per_depth():
    import time

    inner: list = ["x"]
    for _ in range(30):
        inner = [inner, inner]  # 2**30 paths, 31 distinct lists
    t = time.perf_counter()
    assert depth(inner) == 31
    with pytest.raises(InputError, match="nested more than 16 deep"):
        check_depth(inner, "doc", 16)
    assert time.perf_counter() - t < 0.5


@pytest.mark.parametrize("doc", ["a: 2020-13-45\n", "a: " + "1" * 5000 + "\n"])
def test_loads_yaml_refuses_a_value_its_tag_cannot_build_with_an_input_error(doc):
    with pytest.raises(InputError, match="config: a value cannot be read") as e:
        loads_yaml(doc, "config")
    assert "\n" not in str(e.value)


def test_rules_and_training_configs_report_an_unbuildable_value_naming_the_file(tmp_path):
    from clue_env.engine.config import load_rules
    from clue_env.engine.errors import ConfigError
    from clue_env.training.config import TrainConfigError, load_train_config

    path = tmp_path / "bad.yaml"
    path.write_text("max_turns: 2020-13-45\n")
    with pytest.raises(ConfigError, match="bad.yaml: a value cannot be read: month must be in 1..12"):
        load_rules(str(path))
    with pytest.raises(TrainConfigError, match="bad.yaml.*: a value cannot be read: month must be in 1..12"):
        load_train_config(str(path))


def test_finite_writes_non_finite_numbers_as_null_so_bounded_json_reads_them_back():
    import json

    report = {"gain": float("nan"), "ci95": (float("-inf"), 0.5), "rows": [{"x": float("inf"), "n": 3}], "name": "x"}
    back = loads_json(json.dumps(finite(report)))
    assert back == {"gain": None, "ci95": [None, 0.5], "rows": [{"x": None, "n": 3}], "name": "x"}
