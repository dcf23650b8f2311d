"""What evaluate.py and train.py tell the user: an earlier result is never lost unsaid, ``--help``
lists the agent specs and the real ``--workers`` default, the main job says which file ``ppo``
played, and train.py ends with the one command that evaluates its policy."""

from __future__ import annotations

import inspect
import json
import os
from pathlib import Path

import pytest

import evaluate

ROOT = Path(__file__).resolve().parent.parent
FAST = ["--seats", "random,notebook,random", "--games", "2", "--workers", "1", "--quiet"]


def _evaluate(capsys, *args: str) -> tuple[int, str]:
    rc = evaluate.main([*FAST, *args])
    return rc, capsys.readouterr().out


def test_the_default_json_is_never_overwritten_and_the_new_name_is_said(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    rc, out = _evaluate(capsys, "--chart", "")
    first = (tmp_path / "results" / "evaluate.json").read_bytes()
    assert rc == 0 and out.splitlines()[-1] == "wrote results/evaluate.json"
    for n in (2, 3):  # `make run` run again: a new name each time, the earlier results kept
        rc, out = _evaluate(capsys, "--chart", "")
        assert rc == 0
        assert out.splitlines()[-1] == (
            f"wrote results/evaluate-{n}.json (results/evaluate.json exists and is kept; --json PATH chooses the name)"
        )
    assert (tmp_path / "results" / "evaluate.json").read_bytes() == first
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == ["evaluate-2.json", "evaluate-3.json", "evaluate.json"]
    assert json.loads((tmp_path / "results" / "evaluate-3.json").read_text())["games"] == 2


def test_a_named_json_is_replaced_and_that_is_said(tmp_path, capsys):
    path = tmp_path / "mine.json"
    rc, out = _evaluate(capsys, "--json", str(path), "--chart", "")
    assert rc == 0 and out.splitlines()[-1] == f"wrote {path}"
    path.write_text("an earlier result")
    rc, out = _evaluate(capsys, "--json", str(path), "--chart", "")
    assert rc == 0 and out.splitlines()[-1] == f"wrote {path} (replacing the file that was there)"
    assert json.loads(path.read_text())["games"] == 2


def test_the_default_json_and_chart_move_together_to_the_first_free_number(tmp_path):
    json_path, chart = str(tmp_path / "evaluate.json"), str(tmp_path / "evaluate.png")
    paths = {"--json": json_path, "--chart": chart}
    assert evaluate.free_names(paths) == paths
    Path(chart).write_bytes(b"")  # either one existing moves both
    assert evaluate.free_names(paths) == {
        "--json": str(tmp_path / "evaluate-2.json"),
        "--chart": str(tmp_path / "evaluate-2.png"),
    }
    (tmp_path / "evaluate-2.json").write_text("{}")
    os.symlink("nowhere", tmp_path / "evaluate-3.png")  # a dangling link is something there too
    assert evaluate.free_names(paths)["--json"] == str(tmp_path / "evaluate-4.json")
    assert evaluate.free_names({"--json": json_path}) == {"--json": json_path}  # the chart alone was there


def _help(capsys) -> str:
    with pytest.raises(SystemExit):
        evaluate.main(["--help"])
    return capsys.readouterr().out


def test_help_lists_every_agent_spec_and_deductions_parameters(capsys):
    from agents import agent_names
    from agents.deduction import DeductionAgent

    text = _help(capsys)
    specs = text.split("agent specs (--seats, --league, --control):")[1].splitlines()[1:]
    listed = {line.split()[0].split("[")[0].split(":")[0] for line in specs if line.strip() and line[2:3] != " "}
    assert listed == set(agent_names()), (listed, agent_names())
    assert "ppo:PATH" in text and "deduction[:k=v,...]" in text
    skip = ("self", "seat", "num_players", "rules", "seed")
    params = [p for p in inspect.signature(DeductionAgent.__init__).parameters if p not in skip]
    assert params and all(f" {p}," in text or f" {p} (" in text for p in params), params


@pytest.mark.parametrize("cores", [1, 2, 16])
def test_help_gives_the_workers_default_of_this_machine(cores, monkeypatch, capsys):
    import agents.tournament

    monkeypatch.setattr(agents.tournament.os, "cpu_count", lambda: cores)
    text = " ".join(_help(capsys).split())
    assert f"processes (default: one per core, at most 2; {min(cores, 2)} on this machine)" in text
    assert agents.tournament.default_workers() == min(cores, 2)


def test_the_main_job_says_which_file_ppo_played_and_why_it_accuses_wrongly(capsys):
    pytest.importorskip("torch")
    from agents.manifest import shipped_file

    rc = evaluate.main(
        ["--seats", "ppo,random,random,random", "--games", "1", "--workers", "1", "--quiet", "--json", "", "--chart", ""]
    )
    out = capsys.readouterr().out
    name = os.path.relpath(shipped_file("ppo", 4, "classic"), ROOT)
    assert rc == 0 and name.startswith("models/")
    assert f"ppo played {name}, the file models/manifest.yaml names for classic with 4 players." in out
    assert "Its accusation head accuses before proof when the odds favour it, so some of its accusations are wrong." in out
    assert evaluate.DEFAULT_SEATS.split(",")[0] == "ppo"  # so `python evaluate.py` alone prints it too


def test_no_note_without_a_shipped_policy_spec(capsys):
    rc, out = _evaluate(capsys, "--json", "", "--chart", "")
    assert rc == 0 and "models/manifest.yaml" not in out


def test_train_ends_with_the_command_that_evaluates_its_policy_against_deduction(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    import train

    cfg = tmp_path / "tiny.yaml"
    cfg.write_text(
        "name: tiny\nseed: 0\nrules: classic\nnum_players: [3]\nnet: {hidden: 16, card_hidden: 8, context_to_card: 8}\n"
        "imitation: {lineups: [[deduction, notebook, notebook]], games: 1, epochs: 1}\n"
        "ppo: {timesteps: 0}\neval: {opponents: [random], games: 1, workers: 1, num_players: 3}\n"
    )
    out = tmp_path / "run"
    assert train.main(["--config", str(cfg), "--out", str(out), "--quiet", "--workers", "1"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    policy = out / "policy.pt"
    assert last == (
        f"evaluate it against 2 deduction (the strongest baseline): python evaluate.py --seats "
        f"ppo:{policy},deduction,deduction --games 240"
    )
    assert train.evaluate_command("runs/a b/policy.pt", 2, "edition2023") == (
        "evaluate it against 1 deduction (the strongest baseline): python evaluate.py --seats "
        "'ppo:runs/a b/policy.pt,deduction' --rules edition2023 --games 240"
    )


@pytest.mark.parametrize(
    ("recipe", "game"),
    [("classic_3p", (3, "classic")), ("classic_4p", (4, "classic")), ("edition2023", (4, "edition2023")),
     ("two_player", (2, "edition2023"))],
)  # fmt: skip
def test_a_recipes_hint_plays_its_policy_in_its_own_game(recipe, game, tmp_path):
    from agents import SpecFactory
    from clue_env.training.recipe import RecipeRunner

    runner = RecipeRunner(recipe, str(tmp_path / "out"), root=str(ROOT), factory_for=SpecFactory)
    runner.validate()
    assert runner.policy_game() == game
