"""A board run twice in the histories (docs/rules.md "Run it twice"): PokerStars' FIRST and
SECOND lines, OHH's rounds of both runs, PHH's first run with `_second_board`."""

import re

import pytest

from histories.formats.ohh import ohh_document
from histories.formats.pokerstars import pokerstars_text
from histories.record import hand_record
from poker import services
from poker.engine import phh
from poker.engine.hand import Hand as EngineHand
from tests.factories import heads_up_asked_to_run_twice
from tests.histories.ohh_schema import VALIDATOR

pytestmark = pytest.mark.django_db


@pytest.fixture
def twice():
    table, players, hand = heads_up_asked_to_run_twice()
    for seat in (1, 2):
        services.table_runs_answer(table=table, player=players[seat], agree=True)
    hand.refresh_from_db()
    assert hand.result["runs"] == 2
    return hand


def test_pokerstars_writes_both_runs_and_both_boards(twice):
    record = hand_record(hand_id=twice.pk, viewer=None, all_cards=True)
    first, second = twice.result["boards"]
    text = pokerstars_text(record)
    titles = re.findall(r"^\*\*\* ([A-Z ]+) \*\*\*", text, flags=re.M)
    assert titles[1:7] == [
        "FIRST FLOP", "FIRST TURN", "FIRST RIVER", "SECOND FLOP", "SECOND TURN", "SECOND RIVER",
    ]  # fmt: skip
    cards = " ".join
    assert f"*** FIRST RIVER *** [{cards(first[:4])}] [{first[4]}]" in text
    assert f"*** SECOND FLOP *** [{cards(second[:3])}]" in text
    assert f"*** SECOND RIVER *** [{cards(second[:4])}] [{second[4]}]" in text
    summary = text.split("*** SUMMARY ***")[1]
    assert f"Hand was run twice\nFIRST Board [{cards(first)}]\nSECOND Board [{cards(second)}]" in (
        summary
    )
    assert "\nBoard [" not in summary
    # A showdown a run, as PokerStars writes it (tests/histories/golden/plo-run-it-twice.txt).
    assert "*** SHOW DOWN ***" not in text
    first_at, second_at = text.index("*** FIRST SHOW DOWN ***"), text.index("*** SECOND SHOW DOWN")
    assert text.index("*** SECOND RIVER ***") < first_at < second_at
    collected = re.findall(r"^(\S+) collected \$([\d.]+) from pot$", text, flags=re.M)
    assert len(collected) >= 2
    for seat in twice.result["showdown"]:
        runs = r"showed \[.*\] and (won|lost).*, and (won|lost)"
        assert re.search(rf"^Seat {seat['seat']}: .* {runs}", summary, flags=re.M)
    step_boards = [s["board"] for s in record["steps"] if s["event"]["type"] == "street_dealt"]
    assert step_boards[2] == first and step_boards[5] == second


def test_ohh_has_the_second_runs_streets_as_rounds_after_the_first(twice):
    record = hand_record(hand_id=twice.pk, viewer=None, all_cards=True)
    document = ohh_document(record)["ohh"]
    assert document["flags"] == ["Run_It_Twice"]
    VALIDATOR.validate({"ohh": document})  # the flag is 1.4.6's own
    rounds = document["rounds"]
    first, second = twice.result["boards"]
    dealt = [(r["street"], r["cards"]) for r in rounds if r["street"] != "Preflop"][:6]
    assert dealt == [
        ("Flop", first[:3]), ("Turn", first[3:4]), ("River", first[4:]),
        ("Flop", second[:3]), ("Turn", second[3:4]), ("River", second[4:]),
    ]  # fmt: skip


def test_phh_deals_the_first_run_and_names_the_second_board(twice):
    engine = EngineHand.from_dict(twice.state)
    text = phh.dumps(engine)
    assert text.count("d db ") == 3
    assert "_runs = 2" in text
    assert "_second_board = [" + ", ".join(f'"{c}"' for c in engine.second_board) + "]" in text
