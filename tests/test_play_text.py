"""Text the way it is shown (issue 17, item 7): what a person types at the terminal.

Names as they are displayed, multi-word names and unique prefixes are read everywhere
(:mod:`clue_env.play.names`): in a typed action (``suggest mr green lead pipe``, ``toward dining
room``), at the menus (``plum`` at ``suspect>``) and at the refutation prompt (``dagger``). What
is still refused says why and asks again at the same prompt. The accusation's ``[y/N]`` takes
only yes or no. ``legal`` stays SPEC's full list; ``legal short`` groups. The notes mode ``seen``
shows only the cards the seat has seen (R3, R27, R31), nothing deduced.
"""

from __future__ import annotations

import ast
import io
import os
import subprocess
import sys
from collections.abc import Iterable
from typing import Any

import pytest

import agents
from clue_env.codec import default_codec
from clue_env.engine.cards import CARDS, ROOMS, SUSPECTS, WEAPONS
from clue_env.play import GameSession, notebook
from clue_env.play.names import AmbiguousName, NameProblem, Names, UnknownName, kind_names, read_action, words
from clue_env.play.notes import MODES
from clue_env.play.terminal import HINT, TerminalUI, legal_short

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CODEC = default_codec()
NAMES = kind_names()

# player_0 (the human, Miss Scarlet) starts in the Lounge (passage to the Conservatory), Colonel
# Mustard in the Kitchen (passage to the Study), Mrs. White in the Conservatory.
DEAL = {
    "envelope": ["plum", "candlestick", "hall"],
    "hands": {
        "player_0": ["scarlet", "dagger", "rope", "kitchen", "ballroom", "study"],
        "player_1": ["mustard", "green", "lead_pipe", "revolver", "conservatory", "dining_room"],
        "player_2": ["white", "peacock", "wrench", "billiard_room", "library", "lounge"],
    },
    "tokens": {"scarlet": "lounge", "mustard": "kitchen", "white": "conservatory"},
}


class Script:
    """Answers each prompt with the next line, then raises EOFError; records the prompts."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.lines = list(lines)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if not self.lines:
            raise EOFError
        return self.lines.pop(0)


class Replay:
    """An agent that plays a fixed list of text forms."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.texts = list(texts)

    def reset(self) -> None:
        pass

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> int:
        return CODEC.from_text(self.texts.pop(0))


def scripted(scripts: dict[int, list[str]], rules: str = "classic") -> GameSession:
    return GameSession(
        ["human", "replay", "replay"],
        agent_factory=lambda spec, seat, n, r, sd: Replay(scripts.get(seat, [])),
        rules=rules,
        seed=1,
        options=DEAL,
    )


def refuting() -> GameSession:
    """player_1 suggests Mr. Green with the Dagger in the Study; player_2 cannot refute, so the
    human (Dagger, Study) must show one (R27)."""
    return scripted({1: ["passage", "suggest green dagger", "end"], 2: ["passage", "end"]})


#: the human's lines up to that refutation prompt
TO_REFUTE = ["passage", "end"]


def dice_session() -> GameSession:
    return GameSession(["human", "random", "random"], agent_factory=agents.play_factory, seed=3, agent_seed=4)


def run(session: GameSession, lines: Iterable[str], **kw: Any) -> tuple[TerminalUI, str, Script]:
    script = Script(lines)
    out = io.StringIO()
    ui = TerminalUI(session, input_fn=script, out=out, **kw)
    assert ui.run() == 0
    return ui, out.getvalue(), script


def refusals(text: str) -> list[str]:
    return [x for x in text.splitlines() if x.startswith("?? ")]


# ---------------------------------------------------------------------- the names module
def test_names_module_is_pure_no_pettingzoo_or_gymnasium():
    path = os.path.join(ROOT, "clue_env", "play", "names.py")
    tree = ast.parse(open(path, encoding="utf-8").read())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(("." * node.level) + (node.module or ""))
    assert not {m for m in imported if m.split(".")[0] in ("pettingzoo", "gymnasium", "numpy", "torch")}, imported
    assert imported <= {"__future__", "unicodedata", "collections.abc", "itertools", "..engine.cards"}, imported


@pytest.mark.parametrize(
    "kind, typed, card",
    [
        ("suspect", "green", "green"),  # the id
        ("suspect", "Mr. Green", "green"),  # the display name (R1)
        ("suspect", "mr green", "green"),
        ("suspect", "MR_GREEN", "green"),
        ("suspect", "  mr.   green ", "green"),
        ("suspect", "plum", "plum"),
        ("suspect", "prof", "plum"),
        ("suspect", "mrs w", "white"),
        ("weapon", "dag", "dagger"),
        ("weapon", "lead pipe", "lead_pipe"),
        ("weapon", "lead_pipe", "lead_pipe"),
        ("weapon", "pipe", "lead_pipe"),
        ("weapon", "leadp", "lead_pipe"),
        ("weapon", "the rope", "rope"),
        ("room", "din", "dining_room"),
        ("room", "Dining Room", "dining_room"),
        ("room", "in the hall", "hall"),
        ("room", "hall", "hall"),  # exact beats any prefix
        ("card", "dagger", "dagger"),
        ("card", "cons", "conservatory"),
    ],
)
def test_a_name_resolves_by_id_display_name_or_unique_prefix(kind, typed, card):
    assert NAMES[kind].resolve(typed) == card


@pytest.mark.parametrize(
    "kind, typed, candidates",
    [
        ("suspect", "m", ("scarlet", "mustard", "white", "green", "peacock")),  # Miss, Mustard, Mrs., Mr.
        ("suspect", "mrs", ("white", "peacock")),
        ("suspect", "mr", ("white", "green", "peacock")),
        ("weapon", "r", ("revolver", "rope")),
        ("room", "room", ("dining_room", "billiard_room")),
        ("card", "d", ("dagger", "dining_room")),
    ],
)
def test_an_ambiguous_prefix_is_refused_naming_the_candidates(kind, typed, candidates):
    with pytest.raises(AmbiguousName) as exc:
        NAMES[kind].resolve(typed)
    assert exc.value.candidates == candidates
    message = str(exc.value)
    assert repr(typed) in message and "type more of the name" in message
    for c in candidates:
        assert NAMES[kind].display[c] in message


@pytest.mark.parametrize("kind, typed", [("suspect", "nobody"), ("suspect", "dagger"), ("room", ""), ("weapon", "7,4")])
def test_an_unknown_name_is_refused_listing_the_kind(kind, typed):
    with pytest.raises(UnknownName) as exc:
        NAMES[kind].resolve(typed)
    assert f"no {kind} is called" in str(exc.value)
    assert all(NAMES[kind].display[c] in str(exc.value) for c in NAMES[kind].ids)


def test_the_rulesets_display_names_are_read_R1():
    names = kind_names({"white": "Chef White", "green": "Mayor Green", "peacock": "Solicitor Peacock"})
    assert names["suspect"].resolve("chef white") == "white"
    assert names["suspect"].resolve("mayor") == "green"
    assert names["suspect"].resolve("sol") == "peacock"
    assert names["suspect"].resolve("white") == "white"
    with pytest.raises(UnknownName):
        names["suspect"].resolve("mrs white")  # not a name in this ruleset


def test_words_ignore_case_punctuation_spaces_and_the_in_with():
    assert words("  Accuse Professor Plum, with the Rope in the Dining-Room!  ") == (
        "accuse",
        "professor",
        "plum",
        "rope",
        "dining",
        "room",
    )


@pytest.mark.parametrize(
    "line, text",
    [
        ("suggest mr green lead pipe", "suggest green lead_pipe"),
        ("Suggest Mr. Green, Lead Pipe", "suggest green lead_pipe"),
        ("suggest green lead_pipe", "suggest green lead_pipe"),  # the SPEC form itself
        ("accuse plum rope dining room", "accuse plum rope dining_room"),
        ("accuse Professor Plum with the Rope in the Dining Room", "accuse plum rope dining_room"),
        ("accuse pl can ha", "accuse plum candlestick hall"),
        ("toward dining room", "toward dining_room"),
        ("toward din", "toward dining_room"),
        ("enter the billiard room", "enter billiard_room"),
        ("show dagger", "show dagger"),
        ("show dag", "show dagger"),
        ("roll", None),  # not a verb taking names: left to the SPEC parser
        ("move 7,4", None),
        ("plum", None),
    ],
)
def test_a_typed_line_reads_as_its_spec_text_form(line, text):
    assert read_action(line, NAMES) == text
    if text is not None:
        assert CODEC.to_text(CODEC.from_text(text)) == text  # a real SPEC form


@pytest.mark.parametrize(
    "line, message",
    [
        ("suggest plum", "suggest needs a suspect and a weapon: suggest SUSPECT WEAPON"),
        ("accuse plum rope", "accuse needs a suspect and a weapon and a room"),
        ("suggest m rope", "'m' could be Miss Scarlet, Colonel Mustard, Mrs. White, Mr. Green, Mrs. Peacock"),
        ("suggest mrs rope", "'mrs' could be Mrs. White, Mrs. Peacock"),
        ("accuse nobody rope hall", "no suspect is called 'nobody'"),
        ("toward room", "'room' could be Dining Room, Billiard Room"),
        ("accuse plum candlestick hall; rm -rf /", "no room is called"),
    ],
)
def test_a_typed_line_that_does_not_name_one_action_says_why(line, message):
    with pytest.raises(NameProblem) as exc:
        read_action(line, NAMES)
    assert message in str(exc.value)


def test_restricted_names_resolve_prefixes_among_the_choices_only():
    shows = Names(["dagger", "study"])
    assert shows.resolve("d") == "dagger"  # Dining Room is not among the choices
    assert shows.resolve("s") == "study"
    with pytest.raises(UnknownName):
        shows.resolve("plum")


# ---------------------------------------------------------------------- typed actions
def test_suggest_mr_green_lead_pipe_is_played_as_suggest_green_lead_pipe_R26():
    session = scripted({1: ["show green"]})
    ui, text, _ = run(session, ["passage", "suggest mr green lead pipe"])
    assert ui.played == ["passage", "suggest green lead_pipe"] and ui.refusals == 0
    assert "(you see: Mr. Green)" in text


def test_accuse_plum_rope_dining_room_is_played_R28():
    session = scripted({1: ["accuse plum candlestick hall"]})  # then player_1 wins
    ui, _, _ = run(session, ["accuse plum rope dining room"])
    assert ui.played == ["accuse plum rope dining_room"] and session.game.eliminated[0]


def test_accuse_with_display_names_and_filler_words_wins_R28():
    session = scripted({})
    ui, text, _ = run(session, ["accuse Professor Plum with the Candlestick in the Hall", "y"], confirm_typed=True)
    assert ui.played == ["accuse plum candlestick hall"]
    assert session.over and session.result()["winner"] == "player_0"
    assert "accuse Professor Plum with the Candlestick in the Hall? A wrong accusation ends your game. [y/N]" in text


def test_toward_dining_room_as_shown_in_the_menu_is_played_R16():
    session = dice_session()
    session.act(0, "roll")
    assert "toward dining_room" in session.legal(0)
    ui, text, _ = run(session, ["toward", "", "toward dining room"])
    assert "toward Dining Room" in text  # how the menu shows it
    assert ui.played == ["toward dining_room"] and ui.refusals == 0


def test_toward_by_prefix_and_in_the_toward_menu():
    for lines in (["toward din"], ["toward", "din"], ["toward", "Dining Room"]):
        session = dice_session()
        session.act(0, "roll")
        ui, _, script = run(session, lines)
        assert ui.played == ["toward dining_room"], (lines, script.prompts)


def test_a_square_typed_in_the_move_menu_is_played_R17():
    session = dice_session()
    session.act(0, "roll")
    square = next(t for t in session.legal(0) if t.startswith("move ")).split(" ", 1)[1]
    r, c = square.split(",")
    ui, _, _ = run(session, ["move", f"{r} {c}"])
    assert ui.played == [f"move {square}"]


def test_the_spec_text_forms_and_menu_numbers_still_work():
    session = scripted({1: ["show mustard"]})
    ui, _, _ = run(session, ["2", "suggest", "2", "3"])  # passage; suggest: Mustard, Lead Pipe
    assert ui.played == ["passage", "suggest mustard lead_pipe"]
    session = scripted({1: ["show green"]})
    ui, _, _ = run(session, ["passage", "suggest green lead_pipe"])
    assert ui.played == ["passage", "suggest green lead_pipe"]


def test_a_bare_name_at_the_top_prompt_is_refused_with_a_hint():
    session = scripted({})
    ui, text, script = run(session, ["plum"])
    assert session.version == 0 and ui.played == [] and ui.refusals == 1
    (line,) = refusals(text)
    assert "'plum' is a name, not an action: start with a verb" in line and "accuse SUSPECT WEAPON ROOM" in line
    assert line.endswith(f"({HINT})")


@pytest.mark.parametrize(
    "line, message",
    [
        ("suggest m rope", "could be Miss Scarlet, Colonel Mustard"),
        ("accuse mrs rope hall", "'mrs' could be Mrs. White, Mrs. Peacock: type more of the name"),
        ("accuse nobody rope hall", "no suspect is called 'nobody'"),
        ("toward room", "could be Dining Room, Billiard Room"),
    ],
)
def test_an_ambiguous_or_unknown_name_in_a_typed_action_is_refused_and_changes_nothing(line, message):
    session = scripted({})
    ui, text, script = run(session, [line])
    assert session.version == 0 and ui.played == [] and ui.refusals == 1
    assert message in refusals(text)[0]
    assert script.prompts == ["> ", "> "]  # asked again at the same prompt


# ---------------------------------------------------------------------- menus
def test_plum_at_suspect_prompt_picks_plum_and_the_menus_go_on():
    session = scripted({})
    ui, text, script = run(session, ["accuse", "plum", "rope", "din", "n"])
    assert script.prompts[:4] == ["> ", "suspect> ", "weapon> ", "room> "]
    assert script.prompts[4].startswith("accuse Professor Plum with the Rope in the Dining Room?")
    assert ui.refusals == 0 and ui.played == [] and "not accused" in text


def test_names_in_the_suggest_menus_R26():
    session = scripted({1: ["show green"]})
    ui, _, script = run(session, ["passage", "suggest", "mr green", "lead pipe"])
    assert ui.played == ["passage", "suggest green lead_pipe"] and ui.refusals == 0
    assert script.prompts[1:4] == ["> ", "suspect> ", "weapon> "]


def test_an_ambiguous_prefix_at_suspect_prompt_lists_the_candidates_and_asks_again():
    session = scripted({})
    ui, text, script = run(session, ["accuse", "m", "mrs", "mrs w"])
    assert script.prompts == ["> ", "suspect> ", "suspect> ", "suspect> ", "weapon> "]
    first, second = refusals(text)
    assert "'m' could be Miss Scarlet, Colonel Mustard, Mrs. White, Mr. Green, Mrs. Peacock" in first
    assert "'mrs' could be Mrs. White, Mrs. Peacock: type more of the name" in second
    assert ui.refusals == 2 and session.version == 0


@pytest.mark.parametrize(
    "line, message",
    [
        ("nobody", "no choice here is called 'nobody'; the choices: Miss Scarlet"),
        ("dagger", "Dagger is not a choice here; the choices: Miss Scarlet"),
        ("fly", "no choice here is called 'fly'"),
        ("enter kitchen", "'enter kitchen' is not legal now"),
        ("suggest plum", "suggest needs a suspect and a weapon"),
        ("7", "no choice 7: pick 1-6, or Enter to go back"),
    ],
)
def test_refused_lines_at_suspect_prompt_ask_again_there_never_the_top_menu(line, message):
    session = scripted({})
    ui, text, script = run(session, ["accuse", line])
    assert script.prompts == ["> ", "suspect> ", "suspect> "]  # then end of input, still there
    assert ui.refusals == 1 and message in refusals(text)[0] and session.version == 0
    assert text.count("your choices:") == 1  # never fell back to the top menu


def test_a_command_at_a_menu_is_answered_and_the_menu_asks_again():
    session = scripted({})
    ui, text, script = run(session, ["accuse", "hand", "legal short", "plum"])
    assert script.prompts == ["> ", "suspect> ", "suspect> ", "suspect> ", "weapon> "]
    assert "your hand: Miss Scarlet, Dagger, Rope, Kitchen, Ballroom, Study" in text
    assert "accuse SUSPECT WEAPON ROOM (324 choices" in text and ui.refusals == 0


def test_an_action_typed_at_a_menu_is_played_SPEC_any_prompt():
    session = scripted({})
    ui, _, _ = run(session, ["accuse", "passage"])
    assert ui.played == ["passage"]


# ---------------------------------------------------------------------- refuting (R27)
@pytest.mark.parametrize("line", ["dagger", "Dagger", "dag", "d", "show dagger", "show dag", "1"])
def test_a_bare_card_name_or_prefix_at_the_card_prompt_shows_it_R27(line):
    session = refuting()
    ui, text, script = run(session, [*TO_REFUTE, line])
    assert script.prompts[2] == "card to show> "
    assert ui.played == [*TO_REFUTE, "show dagger"] and ui.refusals == 0
    assert "(you showed: Dagger)" in text


def test_a_card_name_in_the_show_menu_R27():
    session = refuting()
    ui, _, script = run(session, [*TO_REFUTE, "show", "stu"])
    assert script.prompts[2:4] == ["card to show> ", "card> "]
    assert ui.played == [*TO_REFUTE, "show study"]


@pytest.mark.parametrize(
    "line, message",
    [
        ("plum", "Professor Plum is not a choice here; the choices: Dagger, Study"),
        ("rope", "Rope is not a choice here"),  # held, but not named in the suggestion
        ("xyz", "no choice here is called 'xyz'; the choices: Dagger, Study"),
        ("show rope", "'show rope' is not legal now"),
    ],
)
def test_a_card_that_cannot_be_shown_is_refused_at_the_card_prompt_R27(line, message):
    session = refuting()
    ui, text, script = run(session, [*TO_REFUTE, line, "dag"])
    assert script.prompts[2:4] == ["card to show> ", "card to show> "]
    assert ui.refusals == 1 and message in refusals(text)[0]
    assert ui.played == [*TO_REFUTE, "show dagger"]


# ---------------------------------------------------------------------- [y/N]
def test_roll_at_the_accusation_confirmation_neither_rolls_nor_accuses():
    # the bug: the answer to [y/N] was played as a command ('roll' cancelled and rolled)
    session = scripted({})
    ui, text, script = run(session, ["accuse plum candlestick hall", "roll"], confirm_typed=True)
    assert session.version == 0 and ui.played == [] and not session.over and not session.game.eliminated[0]
    assert "rolls" not in text and "not accused" not in text
    assert [p.endswith("[y/N] ") for p in script.prompts] == [False, True, True]  # asked again, then EOF
    (line,) = refusals(text)
    assert line == "?? answer y (accuse) or n (do not accuse), not 'roll'"


def test_roll_at_the_confirmation_of_a_menu_accusation_is_refused_then_n_cancels():
    session = scripted({})
    ui, text, script = run(session, ["accuse", "6", "1", "8", "roll", "legal", "maybe", "n", "roll"])
    assert ui.refusals == 3 and ui.played == ["roll"]  # the last 'roll', at the top prompt
    assert text.count("not accused") == 1 and not session.game.eliminated[0]
    assert sum(p.endswith("[y/N] ") for p in script.prompts) == 4


@pytest.mark.parametrize(
    "answer, accused", [("y", True), ("YES", True), (" Yes ", True), ("n", False), ("No", False), ("", False)]
)
def test_the_confirmation_takes_yes_or_no_in_any_case(answer, accused):
    session = scripted({})
    ui, text, _ = run(session, ["accuse plum candlestick hall", answer], confirm_typed=True)
    assert session.over is accused and ui.refusals == 0
    assert ("not accused" in text) is not accused


# ---------------------------------------------------------------------- legal
def test_legal_prints_every_legal_text_one_per_line_as_SPEC_says():
    session = scripted({})
    for command in ("legal", "legal all", "LEGAL  ALL"):
        ui, text, _ = run(scripted({}), [command])
        lines = text.splitlines()
        legal = list(session.legal(0))
        assert len(legal) == 2 + 324  # roll, passage, every accusation (R28: accuse anywhere)
        i = lines.index(legal[0])
        assert lines[i : i + len(legal)] == legal and lines[i + len(legal)] == ">"
        assert ui.refusals == 0


def test_legal_short_groups_the_accusations_into_one_line_with_a_count():
    ui, text, _ = run(scripted({}), ["legal short"])
    lines = text.splitlines()
    i = lines.index("roll")
    assert lines[i : i + 4] == ["roll", "passage", "accuse SUSPECT WEAPON ROOM (324 choices: 'legal accuse' lists them)", ">"]
    ui, text, _ = run(scripted({}), ["legal accuse"])
    assert sum(x.startswith("accuse ") for x in text.splitlines()) == 324


def test_legal_short_groups_long_suggestion_lists_too_R26():
    session = scripted({})
    session.act(0, "passage")
    lines = legal_short(session.legal_groups(0))
    assert "suggest SUSPECT WEAPON (36 choices: 'legal suggest' lists them)" in lines
    assert "end" in lines and len(lines) == 3
    groups = {"toward": tuple(f"toward {r}" for r in ROOMS[:8]), "end": ("end",)}
    assert legal_short(groups) == [*groups["toward"], "end"]  # short lists stay one per line


@pytest.mark.parametrize("line, message", [("legal suggest", "'suggest' is not legal now"), ("legal bogus", "is not a command")])
def test_legal_with_a_bad_word_is_refused(line, message):
    ui, text, _ = run(scripted({}), [line])
    assert ui.refusals == 1 and message in refusals(text)[0]


# ---------------------------------------------------------------------- notes: seen
def test_notes_modes_go_from_least_to_most_help():
    assert MODES == ("off", "seen", "facts", "deduce")


def test_seen_notes_list_the_hand_and_the_cards_shown_to_me_nothing_deduced_R27_R31():
    session = scripted({1: ["show conservatory"]})
    ui, text, _ = run(session, ["passage", "suggest plum candlestick"], notes="seen")
    assert "notebook (seen):" in text
    book = session.notes(0, "seen")
    assert book.mode == "seen"
    rows = {r.card: r for r in book.rows}
    for card in DEAL["hands"]["player_0"]:
        assert rows[card].where == "player_0" and rows[card].how == "in my hand"
    assert rows["conservatory"].where == "player_1" and rows["conservatory"].how == "shown to me by player_1"
    known = {c for c, r in rows.items() if r.where is not None}
    assert known == set(DEAL["hands"]["player_0"]) | {"conservatory"}
    assert not any("deduced" in r.how for r in book.rows)
    assert "[X] Conservatory" in text.split("(you see: Conservatory)")[1]


def test_seen_notes_know_no_more_than_facts_and_deduce_nothing_R3():
    session = GameSession(["human", "notebook", "notebook"], agent_factory=agents.play_factory, seed=5, agent_seed=6)
    while not session.over and session.game.turn < 40:
        session.advance()
        if session.over:
            break
        seen, facts = session.notes(0, "seen"), session.notes(0, "facts")
        view = session.view(0)
        direct = set(view.hand) | {c for c, _ in view.shown_to_me} | {c for c, _ in view.revealed}
        direct |= {c for _r, c in view.peeked}
        for a, b in zip(seen.rows, facts.rows):
            if a.where is not None:
                assert CARDS.index(a.card) in direct and a.where == b.where, (a, b)
            else:
                assert CARDS.index(a.card) not in direct
        legal = session.legal(0)
        session.act(0, next((t for t in legal if t.startswith("suggest")), "end" if "end" in legal else legal[0]))


def test_seen_notes_are_built_from_the_seat_view_alone_R31():
    # two deals that differ only in cards the human has not seen give the same notebook
    other = {k: list(v) for k, v in DEAL["hands"].items()}
    other["player_1"][other["player_1"].index("mustard")] = "white"
    other["player_2"][other["player_2"].index("white")] = "mustard"
    a = GameSession(["human", "random", "random"], agent_factory=agents.play_factory, seed=1, options=DEAL)
    b = GameSession(["human", "random", "random"], agent_factory=agents.play_factory, seed=1, options={**DEAL, "hands": other})
    assert notebook(a.view(0), "seen") == notebook(b.view(0), "seen")
    assert a.game.hands != b.game.hands


def test_notes_command_takes_a_mode():
    ui, text, _ = run(scripted({}), ["notes seen", "notes facts", "notes", "notes bogus"], notes="off")
    assert "notebook (seen):" in text and "notebook (facts):" in text and "the notebook is off" in text
    assert ui.refusals == 1 and "no notes mode 'bogus'" in refusals(text)[0]


def test_play_py_takes_notes_seen():
    play = [sys.executable, os.path.join(ROOT, "play.py")]
    args = ["--seed", "3", "--agent-seed", "4", "--seats", "human,random,random", "--notes", "seen"]
    proc = subprocess.run(play + args, input="", capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "notebook (seen):" in proc.stdout and "in my hand" in proc.stdout and "deduced" not in proc.stdout


def test_typed_names_resolve_to_every_card_by_its_display_name():
    # every card, by its display name and by its id, in every kind it belongs to
    for kind, ids in (("suspect", SUSPECTS), ("weapon", WEAPONS), ("room", ROOMS), ("card", CARDS)):
        for c in ids:
            assert NAMES[kind].resolve(NAMES[kind].display[c]) == c
            assert NAMES[kind].resolve(c) == c


@pytest.mark.parametrize("rules", ["classic", "edition2023"])
def test_every_spec_text_form_and_its_shown_form_read_back_to_itself(rules):
    # SPEC "Actions as text": the ids keep working; the same action in display names reads the same
    session = GameSession(["human", "random", "random"], agent_factory=agents.play_factory, rules=rules, seed=1)
    display = {c: session.game.cfg.display(c) for c in CARDS}
    assert (display["white"] == "Chef White") is (rules == "edition2023")  # R1
    names = kind_names(display)
    checked = 0
    for i in range(CODEC.n):
        text = CODEC.to_text(i)
        verb, *args = text.split()
        if verb not in ("enter", "toward", "show", "suggest", "accuse"):
            assert read_action(text, names) is None
            continue
        assert read_action(text, names) == text
        assert read_action(" ".join([verb, *(display[a] for a in args)]), names) == text
        checked += 1
    assert checked == 9 + 9 + 21 + 36 + 324


def test_the_notebook_names_the_seat_that_showed_a_card_by_its_character():
    """The news says "Colonel Mustard shows you ..."; the notebook says who by the same name,
    in one line a card and in the grid a short terminal gets (a column per seat)."""
    session = scripted({1: ["show conservatory"]})
    _ui, text, _ = run(session, ["passage", "suggest plum candlestick", "notes seen", "notes facts"], notes="seen")
    assert "shown to me by Colonel Mustard" in text and "shown to me by player_1" not in text
    book = session.notes(0, "facts")
    display = {c: session.game.cfg.display(c) for c in CARDS}
    assert "  [X] Conservatory       shown to me by Colonel Mustard" in book.text(display).split("\n")
    grid = book.grid(display, 79)
    assert grid[0].startswith("1 Miss Scarlet (me), 2 Colonel Mustard, 3 Mrs. White, E the envelope")
    row = next(line for line in grid if " Conservatory " in f" {line} ")
    cells = row[row.index("Conservatory") :].split()[1:5]
    assert cells == ["-", "X", "-", "-"], row  # Colonel Mustard's column
    assert len(grid) <= 18 and all(len(line) <= 79 for line in grid)
