"""Moving, both rulesets: R16-R22 (rules stated in docs/rules.md).

Expected destinations are worked out by hand from clue_env/data/classic_board.txt.
The squares used most (row, col; '#' = not a hallway square):

    Miss Scarlet's start (24,7) is a dead end below a two-wide corridor (cols 7-8, rows 18-23):
        row 18..23: (r,7) (r,8)        row 24: (24,7) only
    Mrs. White's start (0,9) is a dead end: (0,9) - (1,9) - (1,8) - (1,7) - (2,7) ...
    (24,16) is a dead end below (23,16).
    Kitchen: one door, front square (7,4).  Lounge: one door, front square (18,6).
    Dining Room doors: front squares (12,8) and (16,6).
    Ballroom doors: front squares (5,7), (5,16), (8,9), (8,14).
"""

from __future__ import annotations

import pytest
from helpers import (
    HANDS3,
    HANDS4,
    RULES,
    WITHIN_6,
    WITHIN_7,
    core,
    dests,
    do,
    events,
    finish_refutation,
    legal,
    make23,
    make_env,
    pass23,
    pass_turn,
    roll,
    roll2,
    roll_dests,
    where,
)

from clue_env import IllegalMoveError
from clue_env.engine.cards import N_ROOMS
from clue_env.engine.config import load_rules


# ---------------------------------------------------------------- R16
def test_R16_full_roll_moves_exactly_the_roll():
    # From Scarlet's start: every simple path of 4 / 5 steps up the two-wide corridor.
    assert roll_dests({}, 1) == ({(23, 7)}, set())
    assert roll_dests({}, 2) == ({(22, 7), (23, 8)}, set())
    assert roll_dests({}, 3) == ({(21, 7), (22, 8)}, set())
    assert roll_dests({}, 4) == ({(20, 7), (21, 8), (22, 7), (23, 8)}, set())
    assert roll_dests({}, 5) == ({(19, 7), (20, 8), (21, 7), (22, 8)}, set())


def test_R16_sideways_and_back_turns_are_allowed():
    # (22,7) is 2 squares away but reachable with a 4 by turning: 23,7 -> 23,8 -> 22,8 -> 22,7
    squares, _ = roll_dests({}, 4)
    assert (22, 7) in squares and (23, 8) in squares


def test_R16_no_diagonal_steps():
    # from (20,7) a 1 reaches its orthogonal neighbours, not the diagonal (19,8) / (21,8)
    squares, _ = roll_dests({"scarlet": "20,7"}, 1)
    assert squares == {(19, 7), (21, 7), (20, 8)}


def test_R16_hallway_destinations_have_the_parity_of_the_roll():
    # on a square grid an exact path of n steps ends at Manhattan distance <= n with the same parity
    for n in range(1, 7):
        squares, _ = roll_dests({"scarlet": "8,12"}, n)
        assert squares
        for r, c in squares:
            d = abs(r - 8) + abs(c - 12)
            assert d <= n and d % 2 == n % 2, (n, (r, c))


def test_R16_room_may_be_entered_with_pips_left_over():
    # (8,4) -> (7,4) -> Kitchen costs 2; a 3, 4 or 5 still enters it. The Ballroom needs 6.
    for n in (2, 3, 4, 5):
        assert roll_dests({"scarlet": "8,4"}, n)[1] == {"kitchen"}
    assert roll_dests({"scarlet": "8,4"}, 1)[1] == set()
    assert roll_dests({"scarlet": "8,4"}, 6)[1] == {"kitchen", "ballroom"}
    e = make_env(tokens={"scarlet": "8,4"})
    roll(e, 5)
    do(e, "enter kitchen")
    assert where(e, "scarlet") == "kitchen"
    assert e.public_state()["phase"] == "suggest"


def test_R16_full_roll_false_moves_up_to_the_roll():
    squares, rooms = roll_dests({}, 4, full_roll=False)
    assert squares == {(23, 7), (22, 7), (23, 8), (21, 7), (22, 8), (20, 7), (21, 8)}
    assert rooms == set()
    assert roll_dests({"scarlet": "8,4"}, 3, full_roll=False)[1] == {"kitchen"}
    # White stands on her start (0,9); from (1,9) up to 3 steps: (1,8) (1,7) (2,7)
    e = make_env(tokens={"scarlet": "1,9"}, full_roll=False)
    roll(e, 3)
    assert dests(e) == ({(1, 8), (1, 7), (2, 7)}, set())


def test_R16_no_destination_forfeits_the_move():
    # Scarlet in her dead end (24,7) with Mustard on the only neighbour (23,7)
    e = make_env(hands=HANDS4, tokens={"mustard": "23,7"})
    n = len(events(e))
    roll(e, 3)
    new = [ev["type"] for ev in events(e, n)]
    assert new == ["roll", "forfeit"]
    assert e.public_state()["phase"] == "accuse"
    assert where(e, "scarlet") == (24, 7)
    assert core(e) == {"end"}
    do(e, "end")
    assert e.agent_selection == "player_1"


def test_R16_blocked_room_exit_forfeits_the_move():
    e = make_env(tokens={"scarlet": "kitchen", "mustard": "7,4"})
    roll(e, 4)
    assert events(e)[-1]["type"] == "forfeit"
    assert e.public_state()["phase"] == "accuse"
    assert where(e, "scarlet") == "kitchen"
    assert not any(t.startswith("suggest ") for t in legal(e))


# ---------------------------------------------------------------- R17
def test_R17_no_square_twice_in_a_dead_end_corridor():
    # (1,9): up is the dead end (0,9), left is the corridor (1,8) (1,7) (2,7).
    tokens = {"white": "ballroom", "scarlet": "1,9"}
    assert roll_dests(tokens, 1)[0] == {(0, 9), (1, 8)}
    assert roll_dests(tokens, 2)[0] == {(1, 7)}  # 1,9 -> 0,9 -> 1,9 would revisit
    assert roll_dests(tokens, 3)[0] == {(2, 7)}  # 0,9 -> 1,9 -> 1,8 would revisit 1,9


def test_R17_start_square_is_not_re_entered():
    # the dead end (24,7): bouncing 23,7 -> 24,7 is never a destination
    for n in range(1, 7):
        assert (24, 7) not in roll_dests({}, n)[0]


def test_R17_dead_end_square_only_reachable_with_a_one():
    # (24,16)'s only neighbour is (23,16): with more than 1 the path would cross its start again
    for n in range(1, 7):
        squares, _ = roll_dests({"scarlet": "23,16"}, n)
        assert ((24, 16) in squares) == (n == 1), n


# ---------------------------------------------------------------- R18
def test_R18_occupied_square_blocks_passing():
    # Mustard on (22,7) in Scarlet's corridor
    tokens = {"mustard": "22,7"}
    assert roll_dests(tokens, 2)[0] == {(23, 8)}
    assert roll_dests(tokens, 3)[0] == {(22, 8)}  # (21,7) only through (22,7)
    assert roll_dests(tokens, 4)[0] == {(21, 8)}


def test_R18_occupied_square_cannot_be_landed_on():
    e = make_env(tokens={"mustard": "22,7"})
    roll(e, 2)
    with pytest.raises(IllegalMoveError):
        do(e, "move 22,7")
    assert where(e, "scarlet") == (24, 7)


def test_R18_occupied_door_square_blocks_the_room():
    free = roll_dests({"scarlet": "17,6"}, 2)
    assert free[1] == {"dining_room", "lounge"}
    blocked = {"scarlet": "17,6", "mustard": "18,6"}
    assert roll_dests(blocked, 1)[0] == {(16, 6), (17, 5), (17, 7)}
    for n in range(1, 7):
        assert "lounge" not in roll_dests(blocked, n)[1], n
    assert roll_dests(blocked, 2)[1] == {"dining_room"}


def test_R18_occupied_door_square_blocks_leaving_by_that_door():
    assert roll_dests({"scarlet": "ballroom"}, 1)[0] == {(5, 7), (5, 16), (8, 9), (8, 14)}
    assert roll_dests({"scarlet": "ballroom", "mustard": "5,7"}, 1)[0] == {(5, 16), (8, 9), (8, 14)}


def test_R18_rooms_hold_many_tokens_and_weapons():
    e = make_env(
        tokens={"mustard": "kitchen", "white": "kitchen", "scarlet": "7,4"},
        weapons={"rope": "kitchen", "dagger": "kitchen"},
    )
    roll(e, 1)
    assert "enter kitchen" in legal(e)
    do(e, "enter kitchen")
    assert [where(e, s) for s in ("scarlet", "mustard", "white")] == ["kitchen"] * 3
    do(e, "suggest green rope")
    assert where(e, "green") == "kitchen"
    weapons = e.public_state()["weapons"]
    assert weapons["rope"] == weapons["dagger"] == "kitchen"


# ---------------------------------------------------------------- R19
def test_R19_door_costs_one_move():
    assert roll_dests({"scarlet": "7,4"}, 1) == ({(7, 3), (7, 5), (8, 4)}, {"kitchen"})
    # (7,3) touches the Kitchen wall but is not in front of its door
    assert roll_dests({"scarlet": "7,3"}, 1) == ({(7, 2), (7, 4), (8, 3)}, set())
    assert "kitchen" in roll_dests({"scarlet": "7,3"}, 2)[1]


def test_R19_entering_ends_the_move():
    e = make_env(tokens={"scarlet": "7,4"})
    roll(e, 6)
    do(e, "enter kitchen")
    assert where(e, "scarlet") == "kitchen"
    assert core(e) == {"end"}
    assert not any(t.startswith(("move ", "enter ")) for t in legal(e))


def test_R19_cannot_reenter_the_room_left_this_turn():
    # leave onto (7,4) (1) and step back in (2) is not allowed
    assert roll_dests({"scarlet": "kitchen"}, 2) == ({(7, 3), (7, 5), (8, 4)}, set())
    # Hall: out by (17,11), across to (17,12) and in by that door would take only 3
    hall_2 = {(17, 10), (17, 11), (17, 12), (17, 13), (19, 15), (21, 15), (20, 16)}
    assert roll_dests({"scarlet": "hall"}, 2) == (hall_2, set())
    assert roll_dests({"scarlet": "hall"}, 3)[1] == set()
    assert roll_dests({"scarlet": "hall"}, 4)[1] == {"study"}  # (20,15) (20,16) (20,17) study
    # the same holds when moving up to the roll (full_roll: false)
    assert roll_dests({"scarlet": "hall"}, 3, full_roll=False)[1] == set()
    assert roll_dests({"scarlet": "hall"}, 4, full_roll=False)[1] == {"study"}


# ---------------------------------------------------------------- R20
def test_R20_leaving_a_room_costs_one_move():
    assert roll_dests({"scarlet": "kitchen"}, 1) == ({(7, 4)}, set())
    assert roll_dests({"scarlet": "lounge"}, 1) == ({(18, 6)}, set())
    assert roll_dests({"scarlet": "dining_room"}, 1) == ({(12, 8), (16, 6)}, set())
    # Dining Room -> (16,6) -> Lounge door square (17,6),(18,6) -> Lounge: 1 + 2 + 1 = 4
    assert roll_dests({"scarlet": "dining_room"}, 3)[1] == set()
    assert roll_dests({"scarlet": "dining_room"}, 4)[1] == {"lounge"}


@pytest.mark.parametrize(
    "start, other",
    [("kitchen", "study"), ("study", "kitchen"), ("conservatory", "lounge"), ("lounge", "conservatory")],
)
def test_R20_secret_passage_ends_in_the_other_room_and_allows_a_suggestion(start, other):
    e = make_env(hands=HANDS4, tokens={"scarlet": start})
    n = len(events(e))
    do(e, "passage")
    assert where(e, "scarlet") == other
    assert [ev["type"] for ev in events(e, n)] == ["move"]  # no die was rolled
    assert core(e) == {"end"}
    assert "suggest white rope" in legal(e)
    do(e, "suggest white rope")
    assert [ev for ev in events(e) if ev["type"] == "suggest"][-1]["room"] == other


def test_R20_passage_is_instead_of_rolling():
    e = make_env(tokens={"scarlet": "kitchen"})
    roll(e, 3)
    assert "passage" not in legal(e)
    with pytest.raises(IllegalMoveError):
        do(e, "passage")


def test_R20_no_passage_from_a_non_corner_room_or_the_hallway():
    for where_ in ("hall", "billiard_room", "8,12"):
        e = make_env(tokens={"scarlet": where_})
        with pytest.raises(IllegalMoveError):
            do(e, "passage")


# ---------------------------------------------------------------- R21
def _scarlet_pulls_mustard_into_the_ballroom():
    e = make_env(hands=HANDS4, tokens={"scarlet": "8,9"})
    roll(e, 1)
    do(e, "enter ballroom")
    do(e, "suggest mustard candlestick")  # player_1 holds mustard
    finish_refutation(e)
    do(e, "end")
    return e


def test_R21_pulled_token_may_stay_and_suggest():
    e = _scarlet_pulls_mustard_into_the_ballroom()
    assert e.agent_selection == "player_1"
    assert core(e) == {"roll", "stay"}
    n = len(events(e))
    do(e, "stay")
    assert events(e, n)[0]["type"] == "stay"
    assert where(e, "mustard") == "ballroom"
    do(e, "suggest green dagger")
    assert [ev for ev in events(e) if ev["type"] == "suggest"][-1] == {
        "type": "suggest",
        "player": "player_1",
        "suspect": "green",
        "weapon": "dagger",
        "room": "ballroom",
    }


def test_R21_pulled_into_a_corner_room_may_stay_roll_or_take_the_passage():
    e = make_env(hands=HANDS4, tokens={"scarlet": "7,4"})
    roll(e, 1)
    do(e, "enter kitchen")
    do(e, "suggest mustard rope")
    finish_refutation(e)
    do(e, "end")
    assert where(e, "mustard") == "kitchen"
    assert core(e) == {"roll", "passage", "stay"}


def test_R21_own_suggestion_does_not_count_as_being_pulled():
    # Scarlet names herself: her token is not moved by someone else; next turn: no stay
    e = make_env(hands=HANDS4, tokens={"scarlet": "8,9"})
    roll(e, 1)
    do(e, "enter ballroom")
    do(e, "suggest scarlet dagger")
    finish_refutation(e)
    do(e, "end")
    for _ in range(3):
        pass_turn(e)
    assert core(e) == {"roll"}


def test_R21_stay_flag_cleared_after_that_turn():
    e = _scarlet_pulls_mustard_into_the_ballroom()
    do(e, "stay")
    do(e, "suggest peacock dagger")
    finish_refutation(e)
    do(e, "end")
    for _ in range(3):  # white, green, scarlet
        pass_turn(e)
    assert e.agent_selection == "player_1"
    assert where(e, "mustard") == "ballroom"
    assert core(e) == {"roll"}


def test_R21_stay_flag_cleared_when_not_used():
    e = _scarlet_pulls_mustard_into_the_ballroom()
    roll(e, 1)
    do(e, "move 5,7")  # mustard leaves instead of staying
    do(e, "end")
    for _ in range(3):
        pass_turn(e)
    assert e.agent_selection == "player_1"
    roll(e, 1)
    do(e, "enter ballroom")  # back into the ballroom on a later turn: may suggest (R22)
    assert "suggest green dagger" in legal(e)
    do(e, "end")
    for _ in range(3):
        pass_turn(e)
    assert core(e) == {"roll"}  # no stay: nobody pulled mustard


# ---------------------------------------------------------------- R22 (classic)
def _scarlet_suggests_in_the_ballroom():
    e = make_env(hands=HANDS4, tokens={"scarlet": "8,9"})
    roll(e, 1)
    do(e, "enter ballroom")
    do(e, "suggest peacock lead_pipe")  # player_2 holds lead_pipe
    finish_refutation(e)
    do(e, "end")
    for _ in range(3):
        pass_turn(e)
    assert e.agent_selection == "player_0"
    return e


def test_R22_no_stay_to_suggest_again_in_the_same_room():
    e = _scarlet_suggests_in_the_ballroom()
    assert where(e, "scarlet") == "ballroom"
    assert core(e) == {"roll"}
    with pytest.raises(IllegalMoveError):
        do(e, "stay")
    with pytest.raises(IllegalMoveError):
        do(e, "suggest green rope")


def test_R22_suggest_again_after_leaving_and_reentering_on_a_later_turn():
    e = _scarlet_suggests_in_the_ballroom()
    roll(e, 1)
    assert dests(e) == ({(5, 7), (5, 16), (8, 9), (8, 14)}, set())
    do(e, "move 8,9")
    do(e, "end")
    for _ in range(3):
        pass_turn(e)
    roll(e, 1)
    do(e, "enter ballroom")
    assert "suggest green rope" in legal(e)


def test_R22_pulled_back_is_the_only_exception():
    # Scarlet suggested in the Ballroom; Mustard (from the Dining Room door) then suggests her into
    # the Dining Room: she may stay there and suggest.
    e = make_env(hands=HANDS4, tokens={"scarlet": "8,9", "mustard": "12,8"})
    roll(e, 1)
    do(e, "enter ballroom")
    do(e, "suggest peacock lead_pipe")
    finish_refutation(e)
    do(e, "end")
    roll(e, 1)
    do(e, "enter dining_room")
    do(e, "suggest scarlet rope")
    finish_refutation(e)
    do(e, "end")
    pass_turn(e)
    pass_turn(e)
    assert e.agent_selection == "player_0"
    assert where(e, "scarlet") == "dining_room"
    assert core(e) == {"roll", "stay"}


# ---------------------------------------------------------------- edition2023
def test_R16_2023_up_to_the_sum_from_the_start_square():
    for a, b, within in ((3, 4, WITHIN_7), (3, 3, WITHIN_6), (2, 5, WITHIN_7), (5, 2, WITHIN_7)):
        e = make23(3)
        roll2(e, a, b)
        assert dests(e) == (within, set()), (a, b)


def test_R16_2023_a_square_one_step_away_with_a_seven():
    e = make23(3)
    roll2(e, 3, 4)
    do(e, "move 23,7")  # 1 of 7
    assert where(e, "scarlet") == (23, 7)
    assert e.public_state()["phase"] == "accuse"
    assert legal(e) == {"end"}


def test_R16_2023_not_beyond_the_sum():
    e = make23(3)
    roll2(e, 3, 4)
    squares, rooms = dests(e)
    assert (17, 6) not in squares and (16, 7) not in squares and (17, 8) not in squares  # 8 away
    assert "lounge" not in rooms  # 8 away
    with pytest.raises(IllegalMoveError):
        do(e, "move 17,6")
    with pytest.raises(IllegalMoveError):
        do(e, "enter lounge")
    e = make23(3)
    roll2(e, 4, 4)
    squares, rooms = dests(e)
    assert rooms == {"lounge"} and {(17, 6), (16, 7), (17, 8)} <= squares


def test_R16_2023_up_to_the_sum_leaving_a_room():
    e = make23(3, tokens={"scarlet": "lounge"})
    roll2(e, 1, 2)
    assert dests(e) == ({(18, 6), (18, 5), (17, 6), (18, 7), (18, 4), (17, 5), (16, 6), (17, 7), (19, 7), (18, 8)}, set())
    do(e, "move 18,6")  # only the exit step
    assert where(e, "scarlet") == (18, 6)


def test_R22_2023_stay_and_suggest_again_turn_after_turn():
    e = make23(3, hands=HANDS3, tokens={"scarlet": "8,9"})
    roll2(e, 2, 3)
    do(e, "enter ballroom")
    do(e, "suggest green rope")
    finish_refutation(e)
    do(e, "end")
    for _ in range(2):  # two more of Scarlet's turns, staying in the Ballroom
        pass23(e)
        pass23(e)
        assert e.agent_selection == "player_0" and legal(e) == {"roll"}
        roll2(e, 2, 3)
        assert "stay" in legal(e)
        do(e, "stay")
        assert where(e, "scarlet") == "ballroom"
        assert e.public_state()["phase"] == "suggest"
        n = len(events(e))
        do(e, "suggest white dagger")
        assert events(e, n)[0] == {
            "type": "suggest",
            "player": "player_0",
            "suspect": "white",
            "weapon": "dagger",
            "room": "ballroom",
        }
        finish_refutation(e)
        do(e, "end")
    assert [ev["room"] for ev in events(e) if ev["type"] == "suggest"] == ["ballroom"] * 3


def test_R22_2023_stay_needs_a_room_at_the_start_of_the_turn():
    e = make23(3)
    roll2(e, 3, 4)
    assert "stay" not in legal(e)
    with pytest.raises(IllegalMoveError):
        do(e, "stay")


def test_R22_2023_stay_is_classic_only_when_pulled():
    # the preset switch: under classic a token in a room that was not pulled may not stay
    assert load_rules(RULES).repeat_suggestion == "stay"
    e = make_env(3, tokens={"scarlet": "ballroom"})
    assert "stay" not in legal(e)
    e = make23(3, tokens={"scarlet": "ballroom"})
    roll2(e, 2, 3)
    assert "stay" in legal(e)


# ---------------------------------------------------------------- the search against a brute force
def _brute_destinations(board, start, steps, blocked, exact, forbidden):  # type: ignore[no-untyped-def]
    """Every sequence of single moves, straight from R16-R19: squares one may stop on, rooms one
    may enter (no square twice, no occupied square, a room ends the move)."""
    squares: set[int] = set()
    rooms: set[int] = set()

    def walk(node: int, used: int, visited: frozenset[int]) -> None:
        if node >= N_ROOMS and node != start and (used == steps or (not exact and used >= 1)):
            squares.add(node)
        if used == steps:
            return
        for room in board.door_rooms[node] if node >= N_ROOMS else ():
            if room != forbidden:
                rooms.add(room)
        nexts = board.room_doors[node] if node < N_ROOMS else board.square_nbrs[node]
        for nb in nexts:
            if nb not in visited and nb not in blocked:
                walk(nb, used + 1, visited | {nb})

    walk(start, 0, frozenset({start}))
    return tuple(sorted(squares)), tuple(sorted(rooms))


@pytest.mark.parametrize("exact", [True, False], ids=["classic_exact", "2023_up_to"])
def test_R16_R17_R18_R19_search_matches_a_brute_force_walk(exact: bool) -> None:
    """The memoised search (with blockers at exactly the roll's distance left out of the memo
    key and dropped afterwards) gives what walking every path by hand gives."""
    import random

    from clue_env.engine.board import classic_board

    board = classic_board()
    rnd = random.Random(16 + exact)
    for _ in range(400):
        start = rnd.randrange(board.n_nodes)
        steps = rnd.randint(1, 6)
        dist = board.dist_to_square[start]
        around = [q for q in range(N_ROOMS, board.n_nodes) if q != start and dist[q] <= steps]
        blocked = frozenset(rnd.sample(around, min(len(around), rnd.randint(0, 5))))
        forbidden = start if start < N_ROOMS else -1
        want = _brute_destinations(board, start, steps, blocked, exact, forbidden)
        assert board.destinations(start, steps, blocked, exact, forbidden) == want, (start, steps, sorted(blocked))
        assert board._search(start, steps, blocked, exact, forbidden) == want
