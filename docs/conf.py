"""Sphinx configuration of the clue_env documentation site (``make docs``; strict in ``make test``)."""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))  # clue_env and agents from this checkout
sys.path.insert(0, str(DOCS / "_ext"))

project = "clue_env"
author = "clue_env contributors"
copyright = "clue_env contributors, MIT License"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "clue_tables",  # docs/_ext/clue_tables.py: the env page's tables, generated from the code
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "**/.ipynb_checkpoints"]

# MyST: GitHub-style heading anchors, so that page.md#a-heading links work on GitHub and here alike
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence", "deflist"]

html_theme = "furo"
html_title = "clue_env"
html_static_path: list[str] = []

# autodoc: signatures without type hints (they name numpy, gymnasium and pettingzoo classes this
# site has no pages for); the hints stay in the descriptions of the members that document them
autodoc_typehints = "description"
autodoc_typehints_description_target = "documented"
autodoc_member_order = "bysource"
autodoc_default_options: dict[str, bool] = {}
# a method without a docstring of its own shows none, rather than its base class's (gymnasium's and
# pettingzoo's docstrings are Google-style Markdown-ish text, not reStructuredText)
autodoc_inherit_docstrings = False

# Strict mode (-n -W): every internal cross-reference must resolve. Types of the libraries this
# site does not document (no network, so no intersphinx) are the only names let through.
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|gymnasium|pettingzoo|torch|collections|typing|typing_extensions|pathlib|argparse|random)(\..*)?"),
    (r"py:.*", r"(AECEnv|Any|Callable|Iterable|Iterator|Mapping|Sequence|Path|ndarray|Generator|Self|NDArray|ArrayLike)"),
]


def _docstring_reference(app, env, node, contnode):  # noqa: ANN001 - Sphinx's missing-reference event
    """A Python cross-reference written in a docstring (``:class:`X```, ``:data:`Y``` or a type hint) to
    an object this site has no entry for is shown as code, not as a link, and does not warn: the
    reference documents only the public API, and a docstring may name internals. References written
    in the pages themselves stay strict (-n -W)."""
    if node.get("refdomain") != "py":
        return None
    source = node.source or ""
    if source and "docstring of" not in source:
        return None  # written in a page: the strict build reports it
    return contnode


def setup(app):  # noqa: ANN001, ANN201
    app.connect("missing-reference", _docstring_reference)
