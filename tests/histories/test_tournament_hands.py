"""A Sit & Go's hands in the three formats: PokerStars' tournament form (checked line by line
against the shapes of a real PokerStars tournament file), OHH with its tournament fields (the
spec's schema), PHH with its event and level; every amount in chips."""

import json
import re
import tomllib
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from histories.exports import hand_export
from histories.formats.pokerstars import daily_file_name, pokerstars_text
from histories.record import hand_record
from poker.models import Hand
from tests.factories import make_funded_player
from tests.factories import make_sit_and_go as make_sng
from tests.tournaments.sng_play import play_out
from tournaments.services import tournament_register

pytestmark = pytest.mark.django_db

# The shapes of a real PokerStars Sit & Go file (pokerregion/poker tests, a 2013 file):
#   PokerStars Hand #105024000105: Tournament #797469411, $3.19+$0.31 USD Hold'em No Limit -
#     Level I (10/20) - 2013/10/04 19:53:27 CET [2013/10/04 13:53:27 ET]
#   Table '797469411 15' 9-max Seat #1 is the button
#   Seat 1: flettl2 (1500 in chips)
#   santy312: posts small blind 10
#   W2lkm2n: raises 40 to 60
#   Uncalled bet (80) returned to W2lkm2n
#   W2lkm2n collected 150 from pot
#   Total pot 150 | Rake 0
REAL = {
    "header": "PokerStars Hand #105024000105: Tournament #797469411, $3.19+$0.31 USD Hold'em "
    "No Limit - Level I (10/20) - 2013/10/04 19:53:27 CET [2013/10/04 13:53:27 ET]",
    "table": "Table '797469411 15' 9-max Seat #1 is the button",
    "seat": "Seat 1: flettl2 (1500 in chips)",
    "post": "santy312: posts small blind 10",
    "collected": "W2lkm2n collected 150 from pot",
    "total": "Total pot 150 | Rake 0",
}
MOMENT = r"\d{4}/\d\d/\d\d \d{1,2}:\d\d:\d\d"
SHAPES = {
    "header": re.compile(
        r"^PokerStars Hand #\d+: Tournament #(?P<t>\d+), \$\d+(?:\.\d\d)?\+\$\d+(?:\.\d\d)? USD "
        rf"(?P<game>.+) - Level (?P<level>[IVXLC]+) \((?P<small>\d+)/(?P<big>\d+)\) - "
        rf"{MOMENT} [A-Z]+ \[{MOMENT} ET\]$"
    ),
    "table": re.compile(r"^Table '(?P<t>\d+) \d+' \d+-max Seat #\d+ is the button$"),
    "seat": re.compile(r"^Seat \d+: .+ \(\d+ in chips\)$"),
    "post": re.compile(r"^.+: posts (?:small|big) blind \d+(?: and is all-in)?$"),
    "collected": re.compile(r"^.+ collected \d+ from (?:main |side )?pot(?:-\d+)?$"),
    "total": re.compile(
        r"^Total pot \d+(?: Main pot \d+\.)?(?: Side pot(?:-\d+)? \d+\.)* \| Rake 0$"
    ),
}
SCHEMA = json.loads((Path(__file__).parent / "ohh-1.4.6.schema.json").read_text())


@pytest.fixture
def played():
    sng = make_sng(seats=2, starting_chips=100, fee=50)
    players = [make_funded_player(name, cents=5_000) for name in ("ann", "bob")]
    for player in players:
        tournament_register(player=player, tournament=sng, idempotency_key=f"k-{player.pk}")
    sng.refresh_from_db()
    hands = play_out(sng, players)
    return sng, players, hands[0]


def test_the_real_file_has_the_shapes_the_tests_hold_ours_to():
    for name, shape in SHAPES.items():
        assert shape.match(REAL[name]), name


def test_a_sit_and_go_hand_in_pokerstars_tournament_form(played):
    sng, players, hand = played
    record = hand_record(hand_id=hand.pk, viewer=players[0])
    text = pokerstars_text(record)
    lines = text.splitlines()
    header = SHAPES["header"].match(lines[0])
    assert header, lines[0]
    assert header["t"] == str(sng.pk) and header["level"] == "I"
    assert (header["small"], header["big"], header["game"]) == ("10", "20", "Omaha Pot Limit")
    assert lines[0].startswith(f"PokerStars Hand #{9_000_000_000_000 + hand.pk}: ")
    assert f"Tournament #{sng.pk}, $10+$0.50 USD Omaha Pot Limit - Level I (10/20) - " in lines[0]
    assert SHAPES["table"].match(lines[1])["t"] == str(sng.pk)
    seats = [line for line in lines if line.startswith("Seat ") and "in chips" in line]
    assert len(seats) == 2 and all(SHAPES["seat"].match(line) for line in seats)
    assert any(SHAPES["post"].match(line) for line in lines)
    assert any(SHAPES["collected"].match(line) for line in lines)
    assert any(SHAPES["total"].match(line) for line in lines), text
    # Chips everywhere after the header: no dollar amount in the hand.
    assert "$" not in "\n".join(lines[1:])
    assert (
        daily_file_name(record)
        == f"HH{hand.started_at:%Y%m%d} T{sng.pk} Omaha Pot Limit $10 + $0.50.txt"
    )


def test_a_sit_and_go_hand_in_ohh_has_its_tournament_fields(played):
    sng, players, hand = played
    _name, _type, text = hand_export(hand_id=hand.pk, viewer=players[0], fmt="ohh")
    document = json.loads(text)
    errors = [e.message for e in Draft202012Validator(SCHEMA).iter_errors(document)]
    assert errors == []
    ohh = document["ohh"]
    assert ohh["tournament"] is True
    info = ohh["tournament_info"]
    assert info["tournament_number"] == str(sng.pk) and info["type"] == "STT"
    assert (info["buyin_amount"], info["fee_amount"], info["initial_stack"]) == (10.0, 0.5, 100)
    assert info["flags"] == ["SNG"] and info["speed"]["round_time"] == 5
    # Chips, whole: the blinds and every player's starting stack.
    assert (ohh["small_blind_amount"], ohh["big_blind_amount"]) == (10, 20)
    assert sorted(p["starting_stack"] for p in ohh["players"]) == [100, 100]


def test_a_sit_and_go_hand_in_phh_names_its_event_and_level(played):
    sng, players, hand = played
    assert Hand.objects.get(pk=hand.pk).status == "finished"
    _name, _type, text = hand_export(hand_id=hand.pk, viewer=players[0], fmt="phh")
    fields = tomllib.loads(text)
    assert fields["event"] == f"Sit & Go #{sng.pk} {sng.template.name}"
    assert fields["level"] == 1 and "currency" not in fields
    assert fields["starting_stacks"] == [100, 100]


def test_a_hand_with_antes_shows_them_as_dead_chips_in_every_format():
    """PokerStars writes `posts the ante 5` before the blinds; OHH a `Post Ante` action and
    the hand's `ante_amount`; PHH its `antes`; the replayer's pot counts them, its bets not."""
    levels = [{"small_blind": 10, "big_blind": 20, "ante": 5, "minutes": 5}]
    sng = make_sng(seats=2, starting_chips=100, fee=50, blind_levels=levels)
    players = [make_funded_player(name, cents=5_000) for name in ("ann", "bob")]
    for player in players:
        tournament_register(player=player, tournament=sng, idempotency_key=f"k-{player.pk}")
    sng.refresh_from_db()
    hand = play_out(sng, players)[0]
    record = hand_record(hand_id=hand.pk, viewer=players[0])
    antes = [step for step in record["steps"] if step["event"]["type"] == "ante_posted"]
    assert [step["pot"] for step in antes] == [5, 10]
    assert all(bet == 0 for step in antes for _seat, bet in step["bets"])
    assert record["steps"][-1]["pot"] == 0
    lines = pokerstars_text(record).splitlines()
    posts = [line for line in lines if ": posts " in line]
    assert [line.split(": ", 1)[1] for line in posts[:2]] == ["posts the ante 5"] * 2, posts
    assert "blind" in posts[2]
    _name, _type, text = hand_export(hand_id=hand.pk, viewer=players[0], fmt="ohh")
    document = json.loads(text)
    assert [e.message for e in Draft202012Validator(SCHEMA).iter_errors(document)] == []
    ohh = document["ohh"]
    assert ohh["ante_amount"] == 5
    preflop = ohh["rounds"][0]["actions"]
    assert [(a["action"], a["amount"]) for a in preflop[:2]] == [("Post Ante", 5)] * 2
    _name, _type, text = hand_export(hand_id=hand.pk, viewer=players[0], fmt="phh")
    assert tomllib.loads(text)["antes"] == [5, 5]
