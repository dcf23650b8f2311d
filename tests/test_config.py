"""Rules config: presets, validation, overrides (SPEC "Names")."""

from __future__ import annotations

import pathlib

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
