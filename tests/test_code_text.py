"""The text of the code says what is true now: no dates, issue numbers or commit hashes in comments,
strings or docstrings of the non-test modules, and no module docstring over 30 lines. History goes
to CHANGELOG.md."""

from __future__ import annotations

import ast
import io
import os
import re
import tokenize

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: the folders whose modules are checked (those present), with the top-level scripts
FOLDERS = ("clue_env", "agents", "benchmarks", "examples")
MAX_MODULE_DOCSTRING_LINES = 30

DATE = re.compile(r"(?<![0-9])20\d\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])(?![0-9])")
ISSUE = re.compile(r"\bissues?\s*(?:no\.?\s*)?#?\s*\d+", re.IGNORECASE)
_HEX = r"[`'\"(]?([0-9a-fA-F]{7,40})(?![0-9A-Za-z_])"
#: after "commit": any 7-40 hex digits
COMMIT_WORD = re.compile(r"\bcommits?\s*(?:at\s+|of\s+|:\s*)?" + _HEX, re.IGNORECASE)
#: after "at", "since" and the like: 7-40 hex digits with both a digit and a letter that are not a number
COMMIT_PLACE = re.compile(r"\b(?:at|since|before|after|until|from|in|on|by|of|revision|rev|sha)\s+" + _HEX, re.IGNORECASE)


def _looks_like_commit(token: str) -> bool:
    """A hex token next to a place word is a commit when it mixes digits and letters and is not a
    number written with an exponent (``1e10000``)."""
    if not (re.search(r"[0-9]", token) and re.search(r"[a-fA-F]", token)):
        return False
    try:
        float(token)
    except ValueError:
        return True
    return False


def commit_hashes(text: str) -> list[str]:
    """The commit hashes ``text`` names: after "commit", or after "at", "since", ... when they look like one."""
    found = [m.group(1) for m in COMMIT_WORD.finditer(text)]
    found += [m.group(1) for m in COMMIT_PLACE.finditer(text) if _looks_like_commit(m.group(1))]
    return found


def checked_files() -> list[str]:
    """Every non-test ``.py`` file of the checked folders, and the top-level scripts."""
    files = [os.path.join(ROOT, n) for n in sorted(os.listdir(ROOT)) if n.endswith(".py")]
    for folder in FOLDERS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, folder)):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            files += [os.path.join(dirpath, n) for n in sorted(filenames) if n.endswith(".py")]
    return [f for f in files if not os.path.basename(f).startswith(("test_", "conftest"))]


def text_pieces(source: str) -> list[tuple[int, str]]:
    """``(line, text)`` of every comment and string literal (docstrings included) of ``source``."""
    pieces = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.COMMENT, tokenize.STRING) or tok.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
            pieces.append((tok.start[0], tok.string))
    return pieces


def problems(path: str) -> list[str]:
    """What ``path`` says that it should not, one ``file:line: what`` each."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    rel = os.path.relpath(path, ROOT)
    found = []
    for line, text in text_pieces(source):
        for pattern, what in ((DATE, "a date"), (ISSUE, "an issue number")):
            found += [f"{rel}:{line}: {what}: {m.group(0)!r}" for m in pattern.finditer(text)]
        found += [f"{rel}:{line}: a commit hash: {h!r}" for h in commit_hashes(text)]
    docstring = ast.get_docstring(ast.parse(source), clean=True)
    if docstring is not None and len(docstring.splitlines()) > MAX_MODULE_DOCSTRING_LINES:
        found.append(f"{rel}:1: a module docstring of {len(docstring.splitlines())} lines")
    return found


def test_the_checked_files_include_each_folder_and_the_scripts():
    rels = {os.path.relpath(f, ROOT) for f in checked_files()}
    assert {"evaluate.py", "train.py", "play.py", "clue_env/engine/board.py", "agents/league.py"} <= rels
    assert not any(os.path.basename(r).startswith("test_") for r in rels)


@pytest.mark.parametrize(
    "text",
    [
        "measured at 3f730d7 on 4 players",
        "(commit c034793)",
        "Run at commit 13262fc",
        "since `6e7528f`, the",
        "the file of commit 1234567",
        "written before 0841a65ea77509",
    ],
)
def test_a_commit_hash_next_to_its_word_is_found(text):
    assert commit_hashes(text)


@pytest.mark.parametrize(
    "text",
    [
        "at 1000000 steps",
        "at 1e10000 the float overflows",
        "the SHA-256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "colour #1f2e3d and 0x7fffffff",
        "the deadbeef0 marker, accessed at decade",
        "a seed of 20261207",
        "bytes at 3f730d7e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca49",
    ],
)
def test_hex_data_that_is_no_commit_is_not_found(text):
    assert commit_hashes(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("(issue 15: where)", [ISSUE]),
        ("issue #9, item 10", [ISSUE]),
        ("Issues 15 and 16", [ISSUE]),
        ("since 2026-12-07", [DATE]),
        ("the issue of 3 players; 2026-13-45 and 12026-12-07x", []),
    ],
)
def test_dates_and_issue_numbers_are_found(text, expected):
    assert [p for p in (DATE, ISSUE) if p.search(text)] == expected


def test_no_date_issue_number_commit_hash_or_long_module_docstring_in_the_code():
    found = [p for path in checked_files() for p in problems(path)]
    assert not found, "\n".join(found)
