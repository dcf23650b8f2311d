"""Recipes (``python train.py --recipe RECIPE --out DIR [--resume] [--smoke]``): the format and its checks,
the run directory (a record and a done marker per stage, the outputs at the top), ``--resume``, and every
shipped recipe run end to end at toy sizes, its ``DIR/policy.pt`` played as ``ppo:DIR/policy.pt``."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from agents import SpecFactory  # noqa: E402
from clue_env.policy.checkpoint import load_accusation, load_policy, read_policy_file  # noqa: E402
from clue_env.training.recipe import RecipeError, check_specs, load_chain, recipe_path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ("classic", "classic_3p", "classic_4p", "edition2023", "two_player")
#: the game each recipe's policy.pt is for: (players, rules)
PLAYS = {"classic": (5, "classic"), "classic_3p": (3, "classic"), "classic_4p": (4, "classic"),
         "edition2023": (4, "edition2023"), "two_player": (2, "edition2023")}  # fmt: skip


def _train(*args: str) -> tuple[int, str]:
    """``train.main`` with ``args``; its exit status and what it printed to stderr."""
    import contextlib
    import io

    import train

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = train.main([*args, "--quiet", "--workers", "1"])
    return rc, err.getvalue()


# ---------------------------------------------------------------------------------------------- the format


def test_the_shipped_recipes_load_with_their_chains_and_agents():
    for name in RECIPES:
        chain = load_chain(recipe_path(name, str(ROOT)), str(ROOT))
        first = next(iter(chain.values()))
        assert first.name == name and first.outputs["policy"].file == "policy.pt"
        assert set(chain) <= set(RECIPES)
        check_specs(chain, SpecFactory, smoke=False)
        check_specs(chain, SpecFactory, smoke=True)
    assert set(load_chain(recipe_path("classic_4p", str(ROOT)), str(ROOT))) == {"classic_4p", "classic"}
    assert sorted(p.stem for p in (ROOT / "configs" / "recipes").glob("*.yaml")) == sorted(RECIPES)


GOOD = {
    "name": "r",
    "outputs": {"policy": {"stage": "both", "file": "policy.pt"}, "network": {"stage": "net", "file": "net.pt"}},
    "stages": [
        {"name": "net", "kind": "train", "config": "configs/train/smoke.yaml", "smoke": {"ppo": {"timesteps": 0}}},
        {"name": "both", "kind": "combine", "network": {"stage": "net"}, "head": None, "link": "net.pt"},
    ],
}


def _recipe(tmp_path: Path, doc: dict, name: str = "r") -> str:
    import yaml

    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump({**doc, "name": name}, sort_keys=False))
    return str(path)


def _bad(tmp_path: Path, why: str, **change) -> None:
    doc = json.loads(json.dumps(GOOD))
    for key, value in change.items():
        if key.startswith("stage"):  # stage0=..., stage1=...: replace (a dict) or drop (None) keys of a stage
            doc["stages"][int(key[5:])].update(value)
            doc["stages"][int(key[5:])] = {k: v for k, v in doc["stages"][int(key[5:])].items() if v != "DROP"}
        else:
            doc[key] = value
    with pytest.raises(RecipeError, match=why):
        load_chain(_recipe(tmp_path, doc), str(ROOT))


def test_bad_recipes_are_refused_with_the_key_named(tmp_path):
    assert load_chain(_recipe(tmp_path, GOOD), str(ROOT))["r"].stages[1].params["link"] == "net.pt"
    _bad(tmp_path, r"unknown key\(s\) \['extra'\]", extra=1)
    _bad(tmp_path, r"stage 'net': unknown kind 'imitate'; known: train, room_values", stage0={"kind": "imitate"})
    _bad(tmp_path, r"stage 'net': unknown key\(s\) \['timesteps'\]", stage0={"timesteps": 5})
    _bad(tmp_path, r"config 'configs/train/nope.yaml' does not exist", stage0={"config": "configs/train/nope.yaml"})
    _bad(tmp_path, r"stage 'both': network: 'models/clue_ppo.pt' is a path.*never a file \(a file in models/",
         stage1={"network": "models/clue_ppo.pt"})  # fmt: skip
    _bad(tmp_path, r"no earlier stage named 'later'", stage1={"head": {"stage": "later"}})
    _bad(tmp_path, r"a second stage named 'net'", stage1={"name": "net"})
    _bad(tmp_path, r"stage 'net': missing key\(s\) smoke", stage0={"smoke": "DROP"})
    _bad(tmp_path, r"smoke must give the stage's toy sizes", stage0={"smoke": {}})
    _bad(tmp_path, r"smoke\): ppo.timesteps must be >= 0", stage0={"smoke": {"ppo": {"timesteps": -1}}})
    _bad(tmp_path, r"starts from init: 'models/clue_ppo.pt', a file; give the stage an init input",
         stage0={"config": "configs/train/finetune_3p.yaml"})  # fmt: skip
    _bad(tmp_path, r"names its network file 'net.pt', which no output writes",
         outputs={"policy": {"stage": "both", "file": "policy.pt"}})  # fmt: skip
    _bad(tmp_path, r"the policy output is the file policy.pt", outputs={"policy": {"stage": "both", "file": "p.pt"}})
    _bad(tmp_path, r"planner: tells must be a number", stage1={"planner": "tells=2"})
    _bad(tmp_path, r"link is a plain file name", stage1={"link": "../x.pt"})
    missing = r"recipe 'r' stage 'both': no recipe named 'no_such' \(.*no_such.yaml' does not exist\)"
    _bad(tmp_path, missing, stage1={"head": {"recipe": "no_such", "output": "policy"}})


def test_planner_stages_and_agent_specs_are_checked(tmp_path):
    fit = {"name": "fit", "kind": "room_values", "policy": {"stage": "both"}, "mode": 3, "players": 2,
           "rules": "edition2023", "teacher": "deduction", "opponents": ["deduction"], "games": 100, "seed": 1,
           "agent_seed": 2, "epochs": 1, "lr": 0.01, "smoke": {"games": 2}}  # fmt: skip
    doc = json.loads(json.dumps(GOOD))
    doc["stages"].append(fit)
    assert load_chain(_recipe(tmp_path, doc), str(ROOT))["r"].stage("fit").params["mode"] == 3
    for change, why in [
        ({"mode": 5}, r"mode must be one of 2, 3, 4"),
        ({"teacher": "notebook"}, r"teacher is a deduction planner spec"),
        ({"opponents": ["ppo:models/clue_ppo.pt"]}, r"plays a policy file the recipe does not build"),
        ({"smoke": {"games": 1}}, r"games must be at least 2"),
        ({"smoke": {"seed": 3}}, r"smoke gives the stage's toy sizes \(games, epochs\)"),
        ({"players": 7}, r"players must be in 2..6"),
        ({"roll_scores": True}, r"unknown key\(s\) \['roll_scores'\]"),
    ]:
        bad = json.loads(json.dumps(doc))
        bad["stages"][2].update(change)
        with pytest.raises(RecipeError, match=why):
            load_chain(_recipe(tmp_path, bad), str(ROOT))
    doc["stages"][2]["opponents"] = ["deduction:threshold=7"]
    with pytest.raises(RecipeError, match=r"stage 'fit': agent spec 'deduction:threshold=7' cannot play"):
        check_specs(load_chain(_recipe(tmp_path, doc), str(ROOT)), SpecFactory, smoke=False)


def test_a_cycle_of_recipes_is_refused(tmp_path):
    a = json.loads(json.dumps(GOOD))
    a["stages"][1]["head"] = {"recipe": "b", "output": "policy"}
    b = json.loads(json.dumps(GOOD))
    b["stages"][1]["head"] = {"recipe": "a", "output": "policy"}
    _recipe(tmp_path, b, "b")
    with pytest.raises(RecipeError, match=r"recipe cycle: a -> b -> a"):
        load_chain(_recipe(tmp_path, a, "a"), str(ROOT))
    b["stages"][1]["head"] = {"recipe": "r", "output": "nope"}
    _recipe(tmp_path, b, "b")
    _recipe(tmp_path, GOOD, "r")
    with pytest.raises(RecipeError, match=r"recipe 'r' has no output 'nope' \(policy, network\)"):
        load_chain(_recipe(tmp_path, a, "a"), str(ROOT))


def test_the_command_line_refuses_bad_combinations_in_one_line(tmp_path, capsys):
    import train

    out = str(tmp_path / "out")
    for args, why in [
        (["--recipe", "classic"], "--recipe needs --out DIR"),
        (["--recipe", "classic", "--out", out, "--timesteps", "5"], "--timesteps: only with --config"),
        (["--config", "configs/train/smoke.yaml", "--smoke"], "--smoke and --deps go with --recipe"),
        (["--recipe", "classic", "--config", "configs/train/smoke.yaml", "--out", out], "give one of --config"),
    ]:
        with pytest.raises(SystemExit):
            train.main(args)
        assert why in capsys.readouterr().err
    rc, err = _train("--recipe", "no_such_recipe", "--out", out)
    assert rc == 2 and err.startswith("train.py: error: recipe") and "does not exist" in err and err.count("\n") == 1
    assert not os.path.exists(out)


# ---------------------------------------------------------------------------------------------- running


def _tiny(tmp_path: Path) -> str:
    """A two-train-stage recipe with a combine (a network, an accusation head fitted beside it, the two
    linked): seconds under --smoke."""
    acc = tmp_path / "acc.yaml"
    acc.write_text(
        "name: acc\nseed: 1\nrules: classic\nnum_players: [4]\ninit: models/clue_ppo.pt\nppo: {timesteps: 0}\n"
        "accusation: {games: 400, lineups: [[deduction, deduction, deduction]]}\n"
    )
    doc = json.loads(json.dumps(GOOD))
    doc["stages"][0]["smoke"] = {"imitation": {"games": 2, "epochs": 1}, "ppo": {"timesteps": 0}}
    doc["stages"].insert(1, {"name": "head", "kind": "train", "config": str(acc), "init": {"stage": "net"},
                             "smoke": {"accusation": {"games": 3, "chunk_games": 1, "iterations": 1, "epochs": 1,
                                                      "hidden": 8}}})  # fmt: skip
    doc["stages"][2]["head"] = {"stage": "head"}
    doc["stages"][2]["eval"] = {"opponents": ["random"], "players": 4, "games": 100, "seed": 5}
    return _recipe(tmp_path, doc, "tiny")


def _sessions(out: Path) -> dict[str, int]:
    return {p.parent.name: len(json.loads(p.read_text())["sessions"]) for p in sorted(out.glob("stages/*/run.json"))}


def test_a_recipe_writes_its_records_and_outputs_and_resumes_without_redoing_stages(tmp_path):
    recipe, out = _tiny(tmp_path), tmp_path / "out"
    rc, err = _train("--recipe", recipe, "--out", str(out), "--smoke")
    assert rc == 0, err
    assert sorted(p.name for p in out.iterdir()) == ["net.pt", "policy.pt", "recipe.json", "stages"]
    assert _sessions(out) == {"01_net": 1, "02_head": 1, "03_both": 1}
    run = json.loads((out / "stages" / "02_head" / "run.json").read_text())
    assert run["seed"] == 1 and run["sessions"][0]["commit"] and "torch" in run["sessions"][0]["versions"]
    assert run["wall_seconds"] > 0 and run["spec"]["config"]["accusation"]["games"] == 3 and run["spec"]["smoke"] is True
    assert "last_eval" in run["evaluation"] and "accusation" in run["evaluation"]
    both = json.loads((out / "stages" / "03_both" / "run.json").read_text())
    assert both["evaluation"]["games"][0]["games"] == 2  # eval: 100 games, 2 under --smoke
    done = json.loads((out / "stages" / "03_both" / "done.json").read_text())
    assert set(done["sha256"]) == {"policy", "network"}
    assert read_policy_file(str(out / "policy.pt"))["meta"]["combined"]  # a linked file, its network beside it
    net, _ = load_policy(str(out / "policy.pt"))
    assert load_accusation(str(out / "policy.pt")) is not None and net.hidden == 64
    record = json.loads((out / "recipe.json").read_text())
    assert record["finished"] and record["smoke"] and set(record["outputs"]) == {"policy", "network"}

    rc, err = _train("--recipe", recipe, "--out", str(out), "--smoke")
    assert rc == 2 and "already holds a recipe run: pass --resume" in err
    rc, err = _train("--recipe", recipe, "--out", str(out), "--resume")
    assert rc == 2 and "was built with --smoke" in err
    before = {p: p.stat().st_mtime_ns for p in out.glob("stages/*/*.pt")}
    time.sleep(0.01)
    assert _train("--recipe", recipe, "--out", str(out), "--smoke", "--resume")[0] == 0
    assert _sessions(out) == {"01_net": 1, "02_head": 1, "03_both": 1}  # every stage done: none run again
    assert {p: p.stat().st_mtime_ns for p in out.glob("stages/*/*.pt")} == before
    # an interrupted stage (no done marker) is run again, the others are kept
    (out / "stages" / "03_both" / "done.json").unlink()
    assert _train("--recipe", recipe, "--out", str(out), "--smoke", "--resume")[0] == 0
    assert _sessions(out) == {"01_net": 1, "02_head": 1, "03_both": 2}
    # a done stage's file changed since is refused, naming it
    good = (out / "stages" / "01_net" / "policy.pt").read_bytes()
    (out / "stages" / "01_net" / "policy.pt").write_bytes(good + b"x")
    rc, err = _train("--recipe", recipe, "--out", str(out), "--smoke", "--resume")
    assert rc == 2 and "01_net is done, but" in err and "policy.pt' has changed since the stage made it" in err
    (out / "stages" / "01_net" / "policy.pt").write_bytes(good)
    # a done stage whose settings changed since is refused, naming its folder
    text = Path(recipe).read_text().replace("seed: 5", "seed: 6")
    Path(recipe).write_text(text)
    rc, err = _train("--recipe", recipe, "--out", str(out), "--smoke", "--resume")
    assert rc == 2 and "03_both is done, but was made from other inputs or settings" in err and "move" in err


def test_an_interrupted_train_stage_resumes_its_run_and_ctrl_c_says_how_to_continue(tmp_path, monkeypatch, capsys):
    import shutil

    import train
    from clue_env.training.recipe import RecipeRunner

    recipe, out = _tiny(tmp_path), tmp_path / "out"
    assert _train("--recipe", recipe, "--out", str(out), "--smoke")[0] == 0
    # stopped inside stage 1, after its imitation: no done marker, no file, nothing after it
    (out / "stages" / "01_net" / "done.json").unlink()
    (out / "stages" / "01_net" / "policy.pt").unlink()
    for later in ("02_head", "03_both"):
        shutil.rmtree(out / "stages" / later)
    imitation = out / "stages" / "01_net" / "train" / "checkpoints" / "imitation.pt"
    kept = imitation.stat().st_mtime_ns
    assert _train("--recipe", recipe, "--out", str(out), "--smoke", "--resume")[0] == 0
    assert imitation.stat().st_mtime_ns == kept  # the train stage resumed its run: imitation not done again
    assert len(json.loads((out / "stages" / "01_net" / "train" / "run.json").read_text())["resumed"]) == 1
    assert _sessions(out) == {"01_net": 2, "02_head": 1, "03_both": 1}

    def interrupted(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(RecipeRunner, "run", interrupted)
    capsys.readouterr()
    assert train.main(["--recipe", recipe, "--out", str(out), "--smoke", "--resume", "--quiet"]) == 130
    err = capsys.readouterr().err
    assert f"interrupted; continue with: python train.py --recipe {recipe} --out {out} --smoke --resume" in err
    assert "Traceback" not in err


def test_a_dependency_recipe_is_built_once_in_the_deps_folder(tmp_path):
    _tiny(tmp_path)
    doc = {"outputs": {"policy": {"stage": "again", "file": "policy.pt"}},
           "stages": [{"name": "again", "kind": "combine", "network": {"recipe": "tiny", "output": "network"},
                       "head": None, "planner": "tells=0.35"}]}  # fmt: skip
    top = _recipe(tmp_path, doc, "top")
    out, deps = tmp_path / "out", tmp_path / "deps"
    assert _train("--recipe", top, "--out", str(out), "--smoke", "--deps", str(deps))[0] == 0
    assert (deps / "tiny" / "policy.pt").is_file() and not (out / "deps").exists()
    net, meta = load_policy(str(out / "policy.pt"))
    assert meta["planner"] == {"tells": 0.35}
    want, _ = load_policy(str(deps / "tiny" / "net.pt"))
    assert all(torch.equal(a, b) for a, b in zip(net.state_dict().values(), want.state_dict().values()))
    rc, err = _train("--recipe", top, "--out", str(tmp_path / "real"), "--deps", str(deps))
    assert rc == 2 and "was built with --smoke" in err  # a smoke build never stands in for a real one


def test_every_shipped_recipe_runs_at_toy_sizes_and_its_policy_plays(tmp_path):
    """The acceptance check: every recipe, every stage, under --smoke (the recipes they start from built once,
    in a shared --deps folder), each DIR/policy.pt played for a game as ppo:DIR/policy.pt."""
    from agents.tournament import run_tournament

    deps = tmp_path / "deps"
    t0 = time.time()
    for name in RECIPES:
        out = tmp_path / name
        rc, err = _train("--recipe", name, "--out", str(out), "--smoke", "--deps", str(deps))
        assert rc == 0, err
        record = json.loads((out / "recipe.json").read_text())
        stages = load_chain(recipe_path(name, str(ROOT)), str(ROOT))[name].stages
        assert record["finished"] and len(list(out.glob("stages/*/done.json"))) == len(stages)
        players, rules = PLAYS[name]
        seats = [f"ppo:{out / 'policy.pt'}"] + ["random"] * (players - 1)
        assert run_tournament(seats, 1, rules=rules, seed=3, workers=1, progress=False)["games"] == 1
    assert time.time() - t0 < 240, f"the smoke recipes took {time.time() - t0:.0f} s"
