"""Run it twice (docs/rules.md "Run it twice"): the worked examples there, the stop before a
runout and what reads it, the deck positions of both runs, and a property test that every chip
is paid exactly when the board runs twice."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from poker.engine.cards import FULL_DECK
from poker.engine.events import HAND_EVENTS, event_fields
from poker.engine.hand import Hand, IllegalAction, InvalidSetup, ReplayMismatch
from poker.engine.rake import default_rake_schedule
from poker.engine.views import events_for, public_view


def _cards(text: str) -> list[str]:
    text = text.replace(" ", "")
    return [text[k : k + 2] for k in range(0, len(text), 2)]


def deck_dealing(holes: Sequence[str], streets: Sequence[str]) -> list[str]:
    """A deck dealing `holes[i]` to the i-th player in the engine's order, then each of
    `streets` in deck order after a burn (the burns and the rest: unused cards in order)."""
    named = [card for cards in (*holes, *streets) for card in _cards(cards)]
    assert len(set(named)) == len(named), "a card is named twice"
    spare = iter([card for card in FULL_DECK if card not in set(named)])
    hole_cards = [_cards(cards) for cards in holes]
    n = len(hole_cards)
    deck = [hole_cards[k % n][k // n] for k in range(4 * n)]
    for cards in streets:
        deck += [next(spare), *_cards(cards)]
    deck.extend(spare)
    assert sorted(deck) == sorted(FULL_DECK)
    return deck


def stacks_of(hand: Hand) -> dict[int, int]:
    assert hand.result is not None
    return {seat["seat"]: seat["final_stack"] for seat in hand.result["seats"]}


def shares(entries: list[dict]) -> dict[int, int]:
    return {entry["seat"]: entry["amount"] for entry in entries}


def agree_all(hand: Hand) -> None:
    """Every asked player says yes, in the engine's order: the last yes runs it twice."""
    for seat in hand.run_it_twice_seats:
        hand.answer_runs(seat, True)
    assert hand.is_over and hand.runs == 2


# Example 1: heads-up, seat 1 the button (small blind), seat 2 the big blind: the engine's
# order is seat 2, seat 1.
HEADS_UP_HOLES = ("Ks Kh 9d 8c", "As Ah 9c 8d")
HEADS_UP_RUNS = ("Ac 7h 6s 2d 3c", "Td 7c 6h 2s 4d")


def heads_up_all_in(*, run_it_twice: bool = True) -> Hand:
    hand = Hand.start(
        game="omaha",
        structure="pot-limit",
        seats={1: 1001, 2: 1001},
        button=1,
        small_blind_seat=1,
        big_blind_seat=2,
        small_blind=50,
        big_blind=100,
        deck=deck_dealing(HEADS_UP_HOLES, _streets(HEADS_UP_RUNS)),
        run_it_twice=run_it_twice,
    )
    for seat, action, amount in ((1, "raise", 300), (2, "raise", 900), (1, "all_in", None)):
        hand.act(seat, action, amount)
    hand.act(2, "call")
    return hand


def _streets(runs: Sequence[str]) -> list[str]:
    """Each run's flop, turn and river, run after run (all in preflop)."""
    streets = []
    for run in runs:
        cards = _cards(run)
        streets += ["".join(cards[:3]), cards[3], cards[4]]
    return streets


# Examples 2 and 3: seats 1-3, the button on 3; A (seat 1) all-in for $10.01, B and C $25.
THREE_HOLES = ("Ks Kc Qd Jd", "Ac 6h 9s Ts", "Qh Qc 7s 7d")
THREE_RUNS = ("Kh 8d 5c 4s 2h", "7h Tc 9d 3c 3h")


def three_way_all_in(game: str, rake: dict | None = None) -> Hand:
    hand = Hand.start(
        game=game,
        structure="pot-limit",
        seats={1: 1001, 2: 2500, 3: 2500},
        button=3,
        small_blind_seat=1,
        big_blind_seat=2,
        small_blind=50,
        big_blind=100,
        deck=deck_dealing(THREE_HOLES, _streets(THREE_RUNS)),
        rake=rake,
        run_it_twice=True,
    )
    hand.act(3, "raise", 350)
    hand.act(1, "all_in")
    hand.act(2, "all_in")
    hand.act(3, "call")
    return hand


def test_example_1_a_tie_in_the_second_run_splits_its_half_odd_chip_left_of_the_button():
    hand = heads_up_all_in()
    assert hand.deciding_runs and hand.run_it_twice_seats == [2, 1]
    agree_all(hand)
    assert hand.result["boards"] == [_cards(run) for run in HEADS_UP_RUNS]
    (pot,) = hand.result["pots"]
    assert pot["amount"] == 2002 and pot["rake"] == 0
    first, second = pot["runs"]
    assert first == {"amount": 1001, "high": [{"seat": 1, "amount": 1001}], "low": []}
    assert second["amount"] == 1001
    assert shares(second["high"]) == {2: 501, 1: 500}
    assert shares(pot["high"]) == {2: 501, 1: 1501}
    assert stacks_of(hand) == {1: 1501, 2: 501}


def test_example_2_side_pot_and_rake_taken_once_before_the_halving():
    hand = three_way_all_in("omaha", rake=default_rake_schedule("pot-limit"))
    agree_all(hand)
    assert hand.result["rake"] == 100
    main, side = hand.result["pots"]
    assert (main["amount"], main["rake"], side["amount"], side["rake"]) == (3003, 100, 2998, 0)
    assert [run["amount"] for run in main["runs"]] == [1452, 1451]
    assert [run["amount"] for run in side["runs"]] == [1499, 1499]
    assert [shares(run["high"]) for run in main["runs"]] == [{1: 1452}, {3: 1451}]
    assert [shares(run["high"]) for run in side["runs"]] == [{3: 1499}, {3: 1499}]
    assert stacks_of(hand) == {1: 1452, 2: 0, 3: 4449}


def test_example_3_hi_lo_each_runs_half_split_high_and_low_on_its_own_board():
    hand = three_way_all_in("omaha8")
    agree_all(hand)
    main, side = hand.result["pots"]
    assert [run["amount"] for run in main["runs"]] == [1502, 1501]
    assert [run["amount"] for run in side["runs"]] == [1499, 1499]
    run_one, run_two = main["runs"]
    assert (shares(run_one["high"]), shares(run_one["low"])) == ({1: 751}, {2: 751})
    assert (shares(run_two["high"]), shares(run_two["low"])) == ({3: 1501}, {})
    run_one, run_two = side["runs"]
    assert (shares(run_one["high"]), shares(run_one["low"])) == ({3: 750}, {2: 749})
    assert (shares(run_two["high"]), shares(run_two["low"])) == ({3: 1499}, {})
    assert stacks_of(hand) == {1: 751, 2: 1500, 3: 3750}
    shown = {e["seat"]: e for e in hand.events if e["type"] == "cards_shown"}
    assert [run["low"] for run in shown[2]["runs"]] == [shown[2]["low"], None]


def test_the_second_run_continues_in_deck_order_with_its_own_burns():
    hand = three_way_all_in("omaha")
    deck = list(hand.deck)
    agree_all(hand)
    assert hand.board == [*deck[13:16], deck[17], deck[19]]
    assert hand.burns == [deck[12], deck[16], deck[18]]
    assert hand.second_burns == [deck[20], deck[24], deck[26]]
    assert hand.second_board == [*deck[21:24], deck[25], deck[27]]
    assert hand.next_card == 28
    dealt = [e for e in hand.events if e["type"] == "street_dealt"]
    assert [(e["street"], e["run"]) for e in dealt] == [
        ("flop", 1),
        ("turn", 1),
        ("river", 1),
        ("flop", 2),
        ("turn", 2),
        ("river", 2),
    ]


def test_all_in_on_the_turn_runs_only_the_river_twice_on_the_shared_cards():
    hand = Hand.start(
        game="omaha",
        structure="pot-limit",
        seats={1: 1000, 2: 400},
        button=2,
        small_blind_seat=2,
        big_blind_seat=1,
        small_blind=5,
        big_blind=10,
        deck=deck_dealing(("As Ad Kc Qc", "7h 7s 6d 5d"), ["2c 8h 9s", "Jd", "7c", "Ah"]),
        run_it_twice=True,
    )
    hand.act(2, "call")
    hand.act(1, "check")
    hand.act(1, "bet", 20)
    hand.act(2, "raise", 80)
    hand.act(1, "call")
    assert hand.street_name == "turn" and not hand.deciding_runs
    hand.act(1, "bet", 180)
    hand.act(2, "all_in")
    hand.act(1, "call")
    assert hand.deciding_runs and hand.to_act is None and hand.legal_actions() is None
    agree_all(hand)
    assert hand.board == _cards("2c 8h 9s Jd 7c")
    assert hand.second_board == _cards("2c 8h 9s Jd Ah")
    assert len(hand.second_burns) == 1
    # Run one: 7h 7s + 7c: trips beat the aces; run two: A A + Ah.
    (pot,) = hand.result["pots"]
    assert [shares(run["high"]) for run in pot["runs"]] == [{2: 400}, {1: 400}]
    assert stacks_of(hand) == {1: 1000, 2: 400}


def test_a_hand_dealt_once_at_a_run_it_twice_table_is_the_hand_dealt_once_anywhere():
    once = heads_up_all_in(run_it_twice=False)
    asked = heads_up_all_in()
    asked.run_once()
    events = [e for e in asked.events if e["type"] != "runs_chosen"]
    assert events == once.events
    assert asked.result == once.result and "runs" not in asked.result
    assert "run_it_twice" not in once.setup and "runs" not in once.to_dict()


def test_while_deciding_nobody_acts_and_the_state_saves_and_replays():
    hand = heads_up_all_in()
    with pytest.raises(IllegalAction) as refused:
        hand.act(1, "check")
    assert refused.value.code == "deciding_runs"
    hand.answer_runs(1, True)  # one yes: the hand waits for the other
    assert hand.deciding_runs and hand.runs_agreed == [1] and not hand.is_over
    assert Hand.from_json(hand.to_json()) == hand
    resumed = Hand.from_snapshot(json.loads(json.dumps(hand.snapshot())), hand.deck)
    assert resumed.deciding_runs and resumed.run_it_twice_seats == [2, 1]
    assert resumed.runs_agreed == [1]
    resumed.answer_runs(2, True)
    copied = hand.copy()
    copied.answer_runs(2, True)
    assert copied == resumed and hand.deciding_runs and hand.runs_agreed == [1]
    assert Hand.replay(hand.setup, resumed.events) == resumed
    with pytest.raises(IllegalAction) as refused:
        resumed.answer_runs(2, True)
    assert refused.value.code == "not_deciding_runs"
    with pytest.raises(IllegalAction) as refused:
        resumed.run_once()
    assert refused.value.code == "not_deciding_runs"


@pytest.mark.parametrize(
    "seat, agree, code",
    [(1, True, "already_answered"), (3, True, "not_asked"), ("2", True, "not_asked"),
     (2, 1, "bad_answer"), (2, None, "bad_answer")],
)  # fmt: skip
def test_an_answer_is_refused_unless_an_asked_player_answers_once_yes_or_no(seat, agree, code):
    hand = heads_up_all_in()
    hand.answer_runs(1, True)
    before = hand.to_dict()
    with pytest.raises(IllegalAction) as refused:
        hand.answer_runs(seat, agree)
    assert refused.value.code == code
    assert hand.to_dict() == before


def test_a_no_runs_the_board_once_at_once_and_the_log_keeps_every_answer():
    once = heads_up_all_in(run_it_twice=False)
    hand = heads_up_all_in()
    assert hand.answer_runs(1, True) == [{"type": "runs_answered", "seat": 1, "agree": True}]
    new = hand.answer_runs(2, False)
    assert new[:2] == [
        {"type": "runs_answered", "seat": 2, "agree": False},
        {"type": "runs_chosen", "runs": 1},
    ]
    assert hand.is_over and hand.runs == 1 and hand.result == once.result
    assert [e for e in hand.events if not e["type"].startswith("runs_")] == once.events
    # A replay of the log makes the same decision from the same answers; another answer in
    # the log (a yes where there was a no) does not rebuild it.
    assert Hand.replay(hand.setup, hand.events) == hand
    forged = [dict(e, agree=True) if e["type"] == "runs_answered" else e for e in hand.events]
    with pytest.raises(ReplayMismatch):
        Hand.replay(hand.setup, forged)


def test_a_board_run_twice_in_the_log_needs_every_yes_in_it():
    hand = heads_up_all_in()
    agree_all(hand)
    without_answers = [e for e in hand.events if e["type"] != "runs_answered"]
    with pytest.raises(ReplayMismatch):  # the choice is not the room's
        Hand.replay(hand.setup, without_answers)
    timed_out = heads_up_all_in()
    timed_out.answer_runs(2, True)
    timed_out.run_once()  # the clock: seat 1 did not answer
    assert timed_out.runs == 1
    assert Hand.replay(timed_out.setup, timed_out.events) == timed_out


def test_frames_say_who_answered_never_the_answer():
    hand = heads_up_all_in()
    hand.answer_runs(2, False)
    for seat in (None, 1, 2):
        (answered,) = [e for e in events_for(hand, seat) if e["type"] == "runs_answered"]
        assert answered == {"type": "runs_answered", "seat": 2}


def test_no_choice_once_the_river_is_out_and_fixed_limit_cannot_offer_it():
    hand = Hand.start(
        game="omaha",
        structure="pot-limit",
        seats={1: 30, 2: 30},
        button=2,
        small_blind_seat=2,
        big_blind_seat=1,
        small_blind=5,
        big_blind=10,
        deck=list(FULL_DECK),
        run_it_twice=True,
    )
    hand.act(2, "call")
    hand.act(1, "check")
    for _ in range(2):
        hand.act(1, "check")
        hand.act(2, "check")
    hand.act(1, "all_in")  # the river: 20, the pot
    hand.act(2, "call")
    assert hand.is_over and not hand.deciding_runs
    with pytest.raises(InvalidSetup) as refused:
        Hand.start(**{**hand.setup, "structure": "limit", "small_bet": 10, "big_bet": 20})
    assert refused.value.code == "bad_run_it_twice"


def test_frames_never_carry_either_runs_burns():
    hand = three_way_all_in("omaha8")
    agree_all(hand)
    burns = set(hand.burns + hand.second_burns)
    for seat in (None, 1):
        assert not any("burn" in e for e in events_for(hand, seat))
    assert not burns & set(json.dumps(public_view(hand)).replace('"', " ").split())


@st.composite
def run_it_twice_tables(draw) -> dict:
    """A pot-limit table offering run it twice, short stacks so that all-ins are common."""
    count = draw(st.integers(2, 6))
    big_blind = draw(st.sampled_from([2, 10, 100]))
    stacks = draw(st.lists(st.integers(1, 40 * big_blind), min_size=count, max_size=count))
    return {
        "game": draw(st.sampled_from(["omaha", "omaha8"])),
        "structure": "pot-limit",
        "seats": {seat: stack for seat, stack in enumerate(stacks, start=1)},
        "button": count,
        "small_blind_seat": count if count == 2 else 1,
        "big_blind_seat": 1 if count == 2 else 2,
        "small_blind": big_blind // 2,
        "big_blind": big_blind,
        "deck": draw(st.permutations(FULL_DECK)),
        "rake": default_rake_schedule("pot-limit") if draw(st.booleans()) else None,
        "run_it_twice": True,
    }


def assert_every_pot_paid_exactly(hand: Hand) -> None:
    result = hand.result
    start = sum(hand.starting_stacks)
    assert sum(stacks_of(hand).values()) + result["rake"] == start
    assert sum(pot["amount"] for pot in result["pots"]) == sum(hand.committed)
    assert sum(pot["rake"] for pot in result["pots"]) == result["rake"]
    for pot in result["pots"]:
        net = pot["amount"] - pot["rake"]
        paid = sum(share["amount"] for share in pot["high"] + pot["low"])
        assert paid == net
        if "runs" not in pot:
            continue
        first, second = pot["runs"]
        assert (first["amount"], second["amount"]) == (net - net // 2, net // 2)
        totals: dict[int, int] = {}
        for run in pot["runs"]:
            assert sum(share["amount"] for share in run["high"] + run["low"]) == run["amount"]
            assert {share["seat"] for share in run["high"] + run["low"]} <= set(pot["eligible"])
            for share in run["high"] + run["low"]:
                totals[share["seat"]] = totals.get(share["seat"], 0) + share["amount"]
        both = {}
        for share in pot["high"] + pot["low"]:
            both[share["seat"]] = both.get(share["seat"], 0) + share["amount"]
        assert both == totals


def assert_runs_dealt_in_deck_order(hand: Hand) -> None:
    deck, board = hand.deck, hand.board
    positions = {card: k for k, card in enumerate(deck)}
    shared = [card for card in board if card in hand.second_board]
    new = hand.second_board[len(shared) :]
    assert hand.second_board[: len(shared)] == shared == board[: len(shared)]
    start = positions[board[-1]] + 1
    second = []
    for burn in hand.second_burns:
        second.append(burn)
        count = 3 if len(second) == 1 and len(shared) == 0 else 1
        second += new[:count]
        new = new[count:]
    assert second == deck[start : start + len(second)]
    assert start + len(second) == hand.next_card


# 60 hands of each kind of play at a table offering it, each run out twice whenever that is
# offered; about 1 s in all.
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=run_it_twice_tables(), data=st.data())
def test_running_twice_conserves_chips_and_pays_every_pot_exactly(table, data):
    hand = Hand.start(**table)
    while not hand.is_over:
        if hand.deciding_runs:
            # The asked answer in any order, yes mostly; a no ends it, or the clock does.
            asked = data.draw(st.permutations(hand.run_it_twice_seats))
            answers = data.draw(st.lists(st.sampled_from([True, True, True, False, None]),
                                         min_size=len(asked), max_size=len(asked)))  # fmt: skip
            for seat, agree in zip(asked, answers, strict=True):
                if agree is None:
                    hand.run_once()
                    break
                hand.answer_runs(seat, agree)
                if not agree:
                    break
            assert hand.is_over
            said = [e for e in hand.events if e["type"] == "runs_answered"]
            assert (hand.runs == 2) == (len(said) == len(asked) and all(e["agree"] for e in said))
            break
        legal = hand.legal_actions()
        options = [("fold", None)]
        options.append(("call", None) if legal.call else ("check", None))
        if legal.all_in:
            options += [("all_in", None)] * 3
        if legal.raise_kind:
            options.append((legal.raise_kind, legal.max_to))
        action, amount = data.draw(st.sampled_from(options))
        hand.act(legal.seat, action, amount)
    assert hand.is_over
    assert_every_pot_paid_exactly(hand)
    ran_twice = hand.result.get("runs") == 2
    event(f"{hand.game}, ran twice: {ran_twice}, pots: {len(hand.result['pots'])}")
    if ran_twice:
        assert len(hand.result["boards"][1]) == 5
        assert_runs_dealt_in_deck_order(hand)
        shown = [e for e in hand.events if e["type"] == "cards_shown"]
        assert len(shown) == hand.folded.count(False)
        assert all(len(e["runs"]) == 2 for e in shown)
    for each in hand.events:
        assert list(each) == [
            "type",
            *(name for name in event_fields(HAND_EVENTS[each["type"]]) if name in each),
        ]
    assert Hand.from_json(hand.to_json()) == hand
    assert Hand.replay(json.loads(json.dumps(hand.setup)), hand.events) == hand
