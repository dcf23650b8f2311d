"""Rules config: presets, validation, overrides (SPEC "Names")."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest
import yaml

import clue_env
from clue_env.engine.config import FIELDS, RulesConfig, load_rules, preset_path
from clue_env.engine.errors import ConfigError

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_classic_preset_values():
    cfg = load_rules("classic")
    assert cfg.tokens_on_board == "all"
    assert cfg.full_roll is True
    assert cfg.accuse_anywhere is True
    assert cfg.last_player_standing is True
    assert cfg.repeat_suggestion == "classic"
    assert cfg.display("white") == "Mrs. White"


def test_repo_configs_match_the_packaged_presets():
    for path in (ROOT / "configs" / "rules").glob("*.yaml"):
        packaged = pathlib.Path(preset_path(path.stem)).read_text(encoding="utf-8")
        assert yaml.safe_load(path.read_text(encoding="utf-8")) == yaml.safe_load(packaged)


def test_every_preset_key_is_a_field():
    data = yaml.safe_load(pathlib.Path(preset_path("classic")).read_text(encoding="utf-8"))
    assert set(data) <= set(FIELDS)


def test_config_is_frozen():
    cfg = load_rules("classic")
    with pytest.raises(AttributeError):
        cfg.full_roll = False  # type: ignore[misc]


@pytest.mark.parametrize(
    "key, value",
    [
        ("full_roll", "yes"),
        ("tokens_on_board", "some"),
        ("repeat_suggestion", "never"),
        ("max_turns", 0),
        ("num_dice", 9),
        ("reward_win", "lots"),
        ("characters", ["scarlet", "scarlet"]),
        ("first_player", "youngest"),
    ],
)
def test_bad_values_name_the_key(key, value):
    with pytest.raises(ConfigError, match=key):
        load_rules("classic", **{key: value})


def test_unknown_key_in_yaml_file_names_it(tmp_path):
    p = tmp_path / "mine.yaml"
    p.write_text("full_roll: false\nsecret_rule: 3\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="secret_rule"):
        load_rules(str(p))


def test_yaml_file_and_overrides(tmp_path):
    p = tmp_path / "mine.yaml"
    p.write_text("full_roll: false\nmax_turns: 50\n", encoding="utf-8")
    cfg = load_rules(str(p), max_turns=60)
    assert cfg.full_roll is False and cfg.max_turns == 60
    e = clue_env.raw_env(num_players=3, rules=str(p))
    assert e.rules.max_turns == 50


def test_bad_rules_argument():
    with pytest.raises(ConfigError, match="neither a preset"):
        load_rules("no_such_rules")
    p = "not: [valid"
    with pytest.raises(ConfigError):
        load_rules({"x": p})


def test_config_object_and_mapping_accepted():
    cfg = RulesConfig(max_turns=10)
    assert clue_env.raw_env(num_players=3, rules=cfg).rules.max_turns == 10
    assert clue_env.raw_env(num_players=3, rules={"max_turns": 12}).rules.max_turns == 12


def test_edition2023_preset_values():
    cfg = load_rules("edition2023")
    assert (cfg.full_roll, cfg.accuse_anywhere, cfg.last_player_standing) == (False, False, False)
    assert cfg.repeat_suggestion == "stay" and cfg.clue_cards is True and cfg.roll_first is True
    assert (cfg.num_dice, cfg.magnifying_glass, cfg.first_player) == (2, True, "highest_roll")
    assert (cfg.min_players, cfg.two_player_board_cards) == (2, 4)
    assert cfg.display("white") == "Chef White" and cfg.victim == "Mr. Black"


def test_clue_deck_is_configurable_and_validated():
    cfg = load_rules("edition2023", clue_deck=["reveal:rope", "reveal:hall"])
    assert cfg.clue_deck == ("reveal:rope", "reveal:hall")
    e = clue_env.raw_env(num_players=3, rules=cfg)
    e.reset(seed=0)
    assert sorted(eff.text() for eff in e.game.clue_deck) == ["reveal:hall", "reveal:rope"]
    with pytest.raises(ConfigError, match="unknown Clue card effect 'teleport'"):
        load_rules("edition2023", clue_deck=["teleport:hall"])
    with pytest.raises(ConfigError, match="clue_deck.*unicorn"):
        load_rules("edition2023", clue_deck=["reveal:unicorn"])


def test_default_clue_deck_has_one_reveal_per_card():
    e = clue_env.raw_env(num_players=4, rules="edition2023")
    e.reset(seed=1)
    assert sorted(eff.card for eff in e.game.clue_deck) == list(range(21))
    assert {eff.kind for eff in e.game.clue_deck} == {"reveal"}


@pytest.mark.parametrize(("key", "value"), [("num_dice", 3), ("num_dice", 4), ("die_faces", 7), ("die_faces", 20)])
def test_dice_that_do_not_fit_the_observation_are_refused(key, value):
    """R12/R16: every accepted dice config fits the observation and plays at normal speed."""
    with pytest.raises(ConfigError, match=key):
        clue_env.raw_env(num_players=3, full_roll=True, **{key: value})


def test_largest_accepted_full_roll_config_plays_at_normal_speed():
    import time

    e = clue_env.raw_env(num_players=3, num_dice=2, die_faces=6, full_roll=True)
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    for _ in range(600):
        if e.game.over:
            e.reset()
        legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
        e.step(int(rng.choice(legal[legal < e.codec.ACCUSE])))
        assert e.observation_space(e.agent_selection).contains(e.observe(e.agent_selection))
    assert time.perf_counter() - t0 < 10


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("name", 5),
        ("suspect_names", {"scarlet": 5}),
        ("reward_win", float("nan")),
        ("reward_lose", float("inf")),
        ("clue_deck", 5),
        ("characters", 5),
    ],
)
def test_values_that_used_to_be_accepted_silently_are_refused_naming_the_key(key, value):
    with pytest.raises(ConfigError, match=key):
        clue_env.raw_env(num_players=3, **{key: value})
