"""Every training config in ``configs/train`` stays runnable as the recipes and the README use it.

The folder holds the stages the recipes in ``configs/recipes`` name, CI's smoke configs and the
README's quick config; a config that no longer loads, or whose ``init`` names a file nothing makes,
breaks a documented command silently (the configs are only read when someone runs them). So: each
loads and validates, is named after its file (``--out runs/NAME`` in the comments), and starts from
a shipped model file or from the output of another config in the folder (``runs/OTHER/policy.pt``).
The experiment configs pruned from the folder live at the tag ``pre-prune``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from clue_env.training.config import load_train_config

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = sorted((ROOT / "configs" / "train").glob("*.yaml"))
NAMES = {p.stem for p in CONFIGS}


def test_every_config_a_recipe_stage_names_is_here_and_ci_and_the_readme_keep_theirs() -> None:
    from clue_env.training.recipe import load_recipe

    named = set()
    for recipe in sorted((ROOT / "configs" / "recipes").glob("*.yaml")):
        for stage in load_recipe(str(recipe), str(ROOT)).stages:
            if stage.kind == "train":
                named.add(Path(stage.params["config"]).stem)
    assert {"shipped", "finetune", "finetune_3p", "finetune_3p_b", "accusation_classic_4p_v5"} <= named <= NAMES
    assert {"smoke", "quick", "rllib_smoke"} <= NAMES  # CI's smoke configs and the README's quick config


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_config_loads_and_names_its_file(path: Path) -> None:
    cfg = load_train_config(str(path))
    assert cfg.name == path.stem


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_config_init_is_shipped_or_made_by_another_config(path: Path) -> None:
    init = load_train_config(str(path)).init
    if not init:
        return  # trains from scratch (imitation)
    if init.startswith("models/"):
        assert (ROOT / init).is_file(), f"{path.name}: init {init} is not a shipped file"
        return
    parts = Path(init).parts
    assert len(parts) == 3 and parts[0] == "runs" and parts[2] == "policy.pt", f"{path.name}: init {init}"
    assert parts[1] in NAMES and parts[1] != path.stem, f"{path.name}: no config makes {init}"


def test_a_broken_init_would_be_caught(tmp_path: Path) -> None:
    """The check above can fail: a config starting from a run nothing makes is reported."""
    text = (ROOT / "configs" / "train" / "finetune_3p_b.yaml").read_text()
    bad = tmp_path / "finetune_3p_b.yaml"
    bad.write_text(text.replace("init: runs/finetune_3p/policy.pt", "init: runs/no_such_stage/policy.pt"))
    assert load_train_config(str(bad)).init == "runs/no_such_stage/policy.pt"
    with pytest.raises(AssertionError, match="no config makes"):
        test_config_init_is_shipped_or_made_by_another_config(bad)
    assert os.path.basename(str(bad)) == "finetune_3p_b.yaml"
