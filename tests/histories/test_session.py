"""A random session of 320 hands across the four games (extra big blinds, short stacks going
all in, side pots, hi/lo splits, uncalled bets, cancelled hands) through both tracker formats:
every hand's PokerStars text reads back as the hand (header as trackers read it, stakes, pot
names, Main + Side + Rake = Total), and every Open Hand History file validates against the 1.4.6
schema (tests/histories/ohh-1.4.6.schema.json) and balances, chip for chip, with the engine.

Pure and quick: the hands are the engine's own (random legal play, poker.engine.simulate), and
each record is built from the engine's event log by the replay `hand_record` uses; the
database-backed exports of real table hands are tests/histories/test_exports.py's."""

import json
import re
from collections import Counter
from random import Random

from histories.formats.ohh import ohh_document
from histories.formats.pokerstars import hand_number, pokerstars_text
from histories.record import _replay
from poker.engine.hand import Hand
from poker.engine.simulate import choose_action, random_table
from tests.histories.game_moves import GAME_NAMES, expected_moves
from tests.histories.ohh_reader import cents, chips_in, winnings
from tests.histories.ohh_schema import FAST_VALIDATOR, VALIDATOR
from tests.histories.pokerstars_parser import HEADER, parse

GAMES = [("omaha", "pot-limit"), ("omaha", "limit"), ("omaha8", "pot-limit"), ("omaha8", "limit")]
HANDS = 320


def play(rng: Random, number: int) -> tuple[Hand, dict, str]:
    """(engine hand, its Hand.start arguments, status): a random hand; one in twelve is
    stopped part-way and cancelled, every bet going back (RULES.md 6)."""
    game, structure = GAMES[number % 4]
    seats = rng.randint(2, 6)
    setup = random_table(rng, game=game, structure=structure, seats=seats,
                         button=rng.randint(1, seats), rake=True)  # fmt: skip
    blinds = {setup["button"], setup["small_blind_seat"], setup["big_blind_seat"]}
    others = [seat for seat in setup["seats"] if seat not in blinds]
    if others and rng.random() < 0.3:
        setup["extra_big_blind_seats"] = rng.sample(others, rng.randint(1, len(others)))
    hand = Hand.start(**setup)
    cancel_after = rng.randint(0, 6) if number % 12 == 5 else None
    actions = 0
    while hand.result is None:
        if cancel_after is not None and actions == cancel_after:
            return hand, setup, "cancelled"
        hand.act(*choose_action(rng, hand))
        actions += 1
    return hand, setup, "finished"


def record_of(number: int, hand: Hand, setup: dict, status: str) -> dict:
    """The hand as histories/record.py gives it to an auditor (every card)."""
    events = [dict(event) for event in hand.events]
    result = hand.result or {}
    stakes = {key: setup.get(key) for key in ("small_blind", "big_blind", "small_bet", "big_bet")}
    if setup["structure"] == "limit":
        stakes["big_blind"] = setup["small_bet"]
        stakes["small_blind"] = next(
            (e["amount"] for e in events if e.get("blind") == "small"), setup["small_bet"] // 2
        )
    return {
        "id": number,
        "table": {"id": 1, "name": f"Session {setup['game']} {setup['structure']}",
                  "max_seats": 6, **stakes},
        "game": setup["game"], "structure": setup["structure"], "status": status,
        "started_at": f"2026-01-{1 + number % 28:02d}T{number % 24:02d}:15:00+00:00",
        "button": setup["button"],
        "seats": [{"seat": seat, "player": f"player {seat}", "starting_stack": stack}
                  for seat, stack in sorted(setup["seats"].items())],
        "board": result.get("board", []),
        "pots": result.get("pots", []) if status == "finished" else [],
        "rake": result.get("rake", 0) if status == "finished" else 0,
        "showdown": result.get("showdown", []) if status == "finished" else [],
        "steps": _replay(events),
    }  # fmt: skip


def final_stacks(hand: Hand, setup: dict, status: str) -> dict[int, int]:
    if status == "cancelled":
        return dict(setup["seats"])
    return {entry["seat"]: entry["final_stack"] for entry in hand.result["seats"]}


def check_pokerstars(record: dict, text: str, seen: Counter) -> None:
    read = parse(text)
    header = HEADER.match(text.splitlines()[0])
    assert header and header["zone"] == "UTC", text.splitlines()[0]
    assert read["id"] == hand_number(record["id"])
    assert read["game"] == GAME_NAMES[f"{record['game']}-{record['structure']}"]
    small, big = header["stakes"].split("/")
    assert ("." in small) == ("." in big), header["stakes"]
    assert "'Omaha Room - " in text.splitlines()[1]
    assert read["moves"] == expected_moves(record)
    if record["status"] == "cancelled":
        seen["cancelled"] += 1
        assert "\nHand cancelled\n*** SUMMARY ***\n" in text and read["total"] is None
        return
    pots = record["pots"]
    assert read["total"] == sum(pot["amount"] for pot in pots)
    assert read["rake"] == record["rake"]
    assert read["pots"] == [pot["amount"] - pot["rake"] for pot in pots]
    assert sum(read["pots"]) + read["rake"] == read["total"]
    assert ("side pot-" in text) == (len(pots) > 2), "numbered only from two side pots on"
    seen["side pots"] += len(pots) > 1
    seen["hi/lo splits"] += any(pot["low"] for pot in pots)
    if "No low hand qualified" in text:
        seen["no low"] += 1
        assert record["game"] == "omaha8"
    assert "(didn't bet)" not in text or "folded before Flop (didn't bet)" in text


def check_ohh(record: dict, document: dict, finals: dict[int, int], seen: Counter) -> None:
    errors = sorted(map(str, FAST_VALIDATOR.iter_errors(document)))
    assert not errors, errors[:3]
    ohh = document["ohh"]

    put_in = chips_in(ohh)
    for round_ in ohh["rounds"]:
        for action in round_["actions"]:
            seen["extra blinds"] += action["action"] == "Post Extra Blind"
            seen["all-ins"] += action.get("is_allin", False)
    pots = ohh["pots"]
    if record["status"] == "cancelled":
        assert pots == [], "a cancelled hand has no pot"
        return
    assert sum(put_in.values()) == sum(cents(pot["amount"]) for pot in pots), "chips in = pots"
    for pot in pots:
        paid = sum(cents(w["win_amount"]) for w in pot["player_wins"])
        assert paid + cents(pot["rake"]) == cents(pot["amount"]), pot
    assert sum(cents(pot["rake"]) for pot in pots) == record["rake"]
    won = winnings(ohh)
    for player in ohh["players"]:
        start = cents(player["starting_stack"])
        assert start - put_in[player["id"]] + won[player["id"]] == finals[player["seat"]]
    check_amounts_as_bet(record, ohh)


def check_amounts_as_bet(record: dict, ohh: dict) -> None:
    """Every chip-moving action carries the chips it put in as it was made, uncalled or not."""
    made = [
        event.get("amount", event.get("added"))
        for event in (step["event"] for step in record["steps"])
        if event["type"] == "blind_posted" or event.get("added")
    ]
    written = [
        cents(action["amount"])
        for round_ in ohh["rounds"]
        for action in round_["actions"]
        if action["action"] in ("Post SB", "Post BB", "Post Extra Blind", "Bet", "Raise", "Call")
    ]
    assert written == made


def test_a_random_session_of_the_four_games_reads_back_validates_and_balances():
    rng = Random(25)
    seen: Counter = Counter()
    for number in range(1, HANDS + 1):
        hand, setup, status = play(rng, number)
        record = record_of(number, hand, setup, status)
        seen["uncalled bets"] += any(e["type"] == "uncalled_bet_returned" for e in hand.events)
        check_pokerstars(record, pokerstars_text(record), seen)
        document = json.loads(json.dumps(ohh_document(record)))
        check_ohh(record, document, final_stacks(hand, setup, status), seen)
    for feature in ("cancelled", "side pots", "hi/lo splits", "no low", "extra blinds",
                    "all-ins", "uncalled bets"):  # fmt: skip
        assert seen[feature] >= 5, (feature, seen)


def test_the_schema_refuses_what_1_4_6_does_not_have():
    """The schema is not a rubber stamp: the old 'Cancelled' flag fails, and so does a street
    1.4.6 does not name."""
    rng = Random(3)
    hand, setup, status = play(rng, 1)
    document = ohh_document(record_of(1, hand, setup, status))
    bad_round = {**document["ohh"]["rounds"][0], "street": "Pre-flop"}
    for validator in (VALIDATOR, FAST_VALIDATOR):
        assert validator.is_valid(document)
        assert not validator.is_valid({"ohh": {**document["ohh"], "flags": ["Cancelled"]}})
        assert not validator.is_valid({"ohh": {**document["ohh"], "rounds": [bad_round]}})
    assert re.fullmatch(r"\d+(\.\d+)*", document["ohh"]["spec_version"])
