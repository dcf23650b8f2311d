"""The documentation site's structure, checked without running Sphinx (make test runs the strict
build): every page is in the index's toctree and linked from the README, every relative link and
anchor between pages resolves, the environment page has PettingZoo's env-page sections and its
version table names the current env ids, and its generated tables cover the code's layouts."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(p.stem for p in DOCS.glob("*.md"))

_TOCTREE = re.compile(r"```\{toctree\}\n(.*?)```", re.S)
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
_IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)


def _text(name: str) -> str:
    return (DOCS / f"{name}.md").read_text(encoding="utf-8")


def toctree_entries() -> list[str]:
    entries = []
    for block in _TOCTREE.findall(_text("index")):
        for line in block.splitlines():
            line = line.strip()
            if line and not line.startswith(":"):
                entries.append(line)
    return entries


def slug(heading: str) -> str:
    """GitHub's (and MyST's myst_heading_anchors') anchor of a heading."""
    text = re.sub(r"[`*_]|<[^>]+>", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(name: str) -> set[str]:
    prose = _FENCE.sub("", _text(name))
    seen: dict[str, int] = {}
    out = set()
    for m in re.finditer(r"^#{1,6} +(.+?) *$", prose, re.M):
        s = slug(m.group(1))
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else f"{s}-{n}")
    return out


def test_every_page_is_in_the_index_toctree_and_every_entry_is_a_page():
    entries = toctree_entries()
    assert len(entries) == len(set(entries)), f"listed twice: {sorted(e for e in entries if entries.count(e) > 1)}"
    missing = sorted(set(PAGES) - {"index"} - set(entries))
    assert not missing, f"docs pages not in docs/index.md's toctree: {missing}"
    unknown = sorted(set(entries) - set(PAGES))
    assert not unknown, f"toctree entries with no docs/NAME.md: {unknown}"


@pytest.mark.parametrize("page", PAGES)
def test_relative_links_and_anchors_resolve(page):
    prose = _FENCE.sub("", _text(page))
    bad = []
    for target in _LINK.findall(prose):
        if re.match(r"[a-z]+:", target):
            continue  # a web address: not checked (no network)
        path, _, anchor = target.partition("#")
        name = Path(path).stem if path else page
        if path and not path.endswith(".md"):
            if not (DOCS / path).exists():
                bad.append(f"{target}: no such file under docs/")
            continue
        if path and (Path(path).parent != Path(".") or not (DOCS / path).exists()):
            bad.append(f"{target}: not a docs page (link to pages beside this one; name repository files as code)")
        elif anchor and anchor not in anchors(name):
            bad.append(f"{target}: no heading with that anchor in {name}.md")
    for target in _IMAGE.findall(prose):
        if not re.match(r"[a-z]+:", target) and not (DOCS / target).exists():
            bad.append(f"image {target}: no such file under docs/")
    assert not bad, f"docs/{page}.md: " + "; ".join(bad)


_REPO_PATH = re.compile(r"\b(?:benchmarks|configs|tests|clue_env|agents|examples|models)/[\w/.-]*\w\.(?:py|yaml|json|pt)\b")
#: the history page names files as they were at the tag its experiments ran at
HISTORY_PAGES = {"what-was-tried"}


@pytest.mark.parametrize("page", sorted(set(PAGES) - HISTORY_PAGES))
def test_every_repository_file_a_reference_page_names_exists(page):
    named = {p for p in _REPO_PATH.findall(_text(page)) if not re.search(r"(^|/)[A-Z_]+(/|\.)", p)}  # not NAME.yaml
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert not missing, f"docs/{page}.md names files that do not exist: {missing}"


def test_the_readme_links_to_the_docs_index_and_every_page():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = {
        Path(t.partition("#")[0]).stem
        for t in _LINK.findall(readme)
        if t.startswith("docs/") and t.partition("#")[0].endswith(".md")
    }
    missing = sorted(set(PAGES) - linked)
    assert not missing, f"README.md does not link to these docs pages (docs/NAME.md): {missing}"


def test_the_environment_page_has_pettingzoos_env_page_sections():
    text = _text("environment")
    headings = {m.strip() for m in re.findall(r"^#{2,4} +(.+)$", text, re.M)}
    for section in ("Arguments", "Observation Space", "Legal Actions Mask", "Action Space", "Rewards", "Version History"):
        assert section in headings, f"docs/environment.md has no '{section}' section"
    for directive in ("clue-env-header", "clue-observation-table", "clue-action-table", "clue-rules-table"):
        assert "{" + directive + "}" in text, f"docs/environment.md does not use the {directive} directive"


def test_the_version_history_names_the_current_env_ids():
    import clue_env

    v = clue_env.ENV_VERSION
    text = _text("environment")
    history = text[text.index("## Version History") :]
    for env_id in (f"clue/clue-v{v}", f"clue_env/Clue-v{v}"):
        assert f"`{env_id}`" in history, f"docs/environment.md's Version History has no row for {env_id}"


@pytest.fixture(scope="module")
def tables():
    pytest.importorskip("sphinx", reason="the docs extra is not installed (make setup installs it)")
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import clue_tables
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    return clue_tables


def test_the_generated_tables_cover_the_code(tables):
    from clue_env.codec import default_codec
    from clue_env.engine.config import RulesConfig
    from clue_env.observation import LAYOUT, LAYOUT_WITH_BELIEF

    for lay, belief in ((LAYOUT, False), (LAYOUT_WITH_BELIEF, True)):
        rows = tables.observation_rows(belief)
        assert [r[0].strip("`") for r in rows[:-1]] == [name for name, _s, _d in lay.pieces]
        assert rows[-1][2] == str(lay.size)
        last = rows[-2][1].split("–")[-1]
        assert int(last) == lay.size - 1, "the pieces' index ranges do not reach the end of the vector"
    codec = default_codec()
    rows = tables.action_rows()
    assert [r[0].strip("`") for r in rows[:-1]] == [s[0] for s in codec.segments]
    assert rows[-1][2] == str(codec.n)
    fields = [r[0].strip("`") for r in tables.rules_rows()]
    import dataclasses

    assert fields == [f.name for f in dataclasses.fields(RulesConfig)]
    assert all(r[3] for r in tables.rules_rows()), "a rules field without a meaning"
    header = dict((k, v) for k, v in tables.header_rows() if k not in ("Agents",))
    assert header["Action Values"] == f"Discrete({codec.n})"
    assert str(LAYOUT.size) in header["Observation Shape"]


def test_make_test_builds_the_docs_strictly():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    sphinx = re.search(r"^SPHINX := (.+)$", makefile, re.M)
    assert sphinx, "the Makefile defines no SPHINX command"
    for flag in ("-W", "-n", "--keep-going", "-b html docs"):
        assert flag in sphinx.group(1), f"the docs build is not strict: {flag} missing"
    test_recipe = re.search(r"^test:.*\n((?:\t.*\n)+)", makefile, re.M)
    assert test_recipe and "$(SPHINX)" in test_recipe.group(1), "make test does not build the docs"
