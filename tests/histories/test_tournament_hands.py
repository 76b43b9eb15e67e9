"""A Sit & Go's hands in the three formats: PokerStars' tournament form (checked line by line
against the shapes of a real PokerStars tournament file), OHH with its tournament fields (the
spec's schema), PHH with its event and level; every amount in chips."""

import json
import re
import tomllib
from pathlib import Path

import pytest
from django.urls import reverse

from histories.exports import hand_export
from histories.formats.pokerstars import daily_file_name, ordinal, pokerstars_text
from histories.record import hand_record
from poker.models import Hand
from poker.selectors import player_json
from tests.factories import make_funded_player
from tests.factories import make_sit_and_go as make_sng
from tests.histories.ohh_schema import VALIDATOR
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
    # Chips everywhere after the header: no dollar amount in the hand (a prize is money).
    assert "$" not in "\n".join(line for line in lines[1:] if not FINISHED.search(line))
    assert (
        daily_file_name(record)
        == f"HH{hand.started_at:%Y%m%d} T{sng.pk} Omaha Pot Limit $10 + $0.50.txt"
    )


def test_a_sit_and_go_hand_in_ohh_has_its_tournament_fields(played):
    sng, players, hand = played
    _name, _type, text = hand_export(hand_id=hand.pk, viewer=players[0], fmt="ohh")
    document = json.loads(text)
    errors = [e.message for e in VALIDATOR.iter_errors(document)]
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
    assert [e.message for e in VALIDATOR.iter_errors(document)] == []
    ohh = document["ohh"]
    assert ohh["ante_amount"] == 5
    preflop = ohh["rounds"][0]["actions"]
    assert [(a["action"], a["amount"]) for a in preflop[:2]] == [("Post Ante", 5)] * 2
    _name, _type, text = hand_export(hand_id=hand.pk, viewer=players[0], fmt="phh")
    assert tomllib.loads(text)["antes"] == [5, 5]


# Real PokerStars tournament hands in which players finished (golden/tournament/, sources in
# golden/README.md): the lines after the last pot, up to the summary.
FINISHED = re.compile(r" finished the tournament in | wins the tournament and receives ")
GOLDEN_SNG = Path(__file__).parent / "golden" / "tournament"


def finish_block(lines: list[str]) -> list[str]:
    """The lines between the hand's last `collected` line and `*** SUMMARY ***`."""
    summary = lines.index("*** SUMMARY ***")
    last = max(k for k, line in enumerate(lines[:summary]) if " collected " in line)
    return lines[last + 1 : summary]


def real_finish_block(name: str) -> list[str]:
    lines = (GOLDEN_SNG / name).read_text(encoding="utf-8-sig").splitlines()
    return [
        line for line in finish_block([line.rstrip() for line in lines]) if FINISHED.search(line)
    ]


def name(player) -> str:
    return player_json(player)["display_name"]


def as_shape(line: str, names: list[str]) -> str:
    """A finish line with its player and amounts blanked: what ours must share with theirs."""
    for name in names:
        line = line.replace(name, "P", 1) if line.startswith(name) else line
    return re.sub(r"\d+(?:st|nd|rd|th) place", "N place", re.sub(r"\$\d+\.\d\d", "$X", line))


def test_the_real_files_write_a_player_out_and_the_winner_in_these_words_and_order():
    assert real_finish_block("heads-up-end.txt") == [
        "Hero finished the tournament in 2nd place",
        "Player0 wins the tournament and receives $2.80 - congratulations!",
    ]
    # A paid place: the prize with its cents and a full stop; the winner's line last.
    assert real_finish_block("final-hand-paid.txt") == [
        "MuKoJla finished the tournament in 2nd place and received $141.51.",
        "Hero wins the tournament and receives $230.36 - congratulations!",
    ]
    # Two out in one hand: the better place (the bigger stack at the start) first.
    assert real_finish_block("two-out-unpaid.txt") == [
        "Player0 finished the tournament in 26th place",
        "Player19 finished the tournament in 27th place",
    ]


def test_the_hand_that_ends_a_heads_up_sit_and_go_says_who_finished_where(played):
    """bob out in 2nd (unpaid: the heads-up pays first place only), ann the winner of the
    $20 pool, in the real file's words, after the last pot and before the summary; earlier
    hands say nothing of it."""
    sng, players, _first = played
    hands = list(Hand.objects.filter(table=sng.table, status="finished").order_by("pk"))
    texts = [pokerstars_text(hand_record(hand_id=h.pk, viewer=players[0])) for h in hands]
    assert all(not FINISHED.search(text) for text in texts[:-1])
    block = finish_block(texts[-1].splitlines())
    winner = sng.registrations.get(place=1).player
    loser = sng.registrations.get(place=2).player
    assert block == [
        f"{name(loser)} finished the tournament in 2nd place",
        f"{name(winner)} wins the tournament and receives $20.00 - congratulations!",
    ]
    real = real_finish_block("heads-up-end.txt")
    assert [as_shape(line, ["Hero", "Player0"]) for line in real] == [
        as_shape(line, [name(loser), name(winner)]) for line in block
    ]


def test_a_six_seat_sit_and_go_writes_each_finish_once_paid_places_with_their_prize():
    """Every player placed appears once, in the hand they went out in (the winner in the
    last), best place first within a hand; a paid place writes its prize as the real file
    does (`received $21.00.`; players out together share the places and their prizes), an
    unpaid one no prize and no full stop; the $60 pool is paid in full."""
    sng = make_sng(starting_chips=100)
    players = [make_funded_player(f"six{k}", cents=5_000) for k in range(6)]
    for player in players:
        tournament_register(player=player, tournament=sng, idempotency_key=f"k-{player.pk}")
    sng.refresh_from_db()
    play_out(sng, players)
    names = {r.player_id: name(r.player) for r in sng.registrations.all()}
    places = {names[r.player_id]: (r.place, r.prize) for r in sng.registrations.all()}
    seen: list[tuple[str, int]] = []
    for hand in Hand.objects.filter(table=sng.table, status="finished").order_by("pk"):
        # An auditor's view: players[0] may be out before the last hands, and the finish lines
        # do not depend on whose cards are shown.
        record = hand_record(hand_id=hand.pk, viewer=None, all_cards=True)
        lines = pokerstars_text(record).splitlines()
        block = [line for line in finish_block(lines) if FINISHED.search(line)]
        assert block == [line for line in lines if FINISHED.search(line)]  # nowhere else
        here = []
        for line in block:
            who = next(n for n in names.values() if line.startswith(f"{n} "))
            place, prize = places[who]
            money = f"${prize // 100}.{prize % 100:02d}"
            if place == 1:
                assert line == f"{who} wins the tournament and receives {money} - congratulations!"
            elif prize:
                at = ordinal(place)
                assert line == f"{who} finished the tournament in {at} place and received {money}."
            else:
                assert line == f"{who} finished the tournament in {ordinal(place)} place"
            here.append((who, place))
        assert [p for _w, p in here if p != 1] == sorted(p for _w, p in here if p != 1)
        seen += here
    assert sorted(who for who, _p in seen) == sorted(places), seen
    assert seen[-1][1] == 1  # the winner's line is the last one written
    assert sum(prize for _place, prize in places.values()) == 6_000


@pytest.mark.parametrize(
    "number, written",
    [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"), (13, "13th"),
     (21, "21st"), (22, "22nd"), (27, "27th"), (81, "81st"), (983, "983rd")],
)  # fmt: skip
def test_places_are_written_as_pokerstars_writes_them(number, written):
    assert ordinal(number) == written


def test_my_hands_and_the_hand_page_write_a_sit_and_go_hand_in_chips(client, played):
    _sng, players, hand = played
    client.force_login(players[0])
    page = client.get(reverse("histories:my_hands")).content.decode()
    link = f'href="{reverse("histories:hand", args=[hand.pk])}"'
    row = re.search(rf"<tr[^>]*>(?:(?!</tr>).)*{link}(?:(?!</tr>).)*</tr>", page, re.S)
    assert row is not None
    assert "$" not in row.group(0)
    page = client.get(reverse("histories:hand", args=[hand.pk])).content.decode()
    # What the page writes (the replayer's JSON data, in <script>, is not read as text).
    main = re.sub(r"<script.*?</script>", "", page.split("<main", 1)[1], flags=re.S)
    assert "$" not in main.split("</main>", 1)[0]
    assert "Rake in all" not in page


def test_the_hand_page_names_the_tournament_and_its_level(client, played):
    sng, players, hand = played
    client.force_login(players[0])
    page = client.get(reverse("histories:hand", args=[hand.pk])).content.decode()
    named = re.search(r'<a href="([^"]+)" id="hand-tournament">([^<]+)</a>', page)
    assert named is not None
    assert named.group(1) == reverse("tournaments:sit_and_go", args=[sng.pk])
    assert named.group(2) == f"Tournament #{sng.pk}, Level I (10/20)"
    client.cookies["django_language"] = "fr"
    page = client.get(reverse("histories:hand", args=[hand.pk])).content.decode()
    assert f"Tournoi n° {sng.pk}, niveau I (10/20)" in page
    client.cookies["django_language"] = "ja"
    page = client.get(reverse("histories:hand", args=[hand.pk])).content.decode()
    assert f"トーナメント #{sng.pk}・レベル I（10/20）" in page  # noqa: RUF001


def test_a_fixed_limit_sit_and_go_hand_names_the_levels_bets_not_its_blinds(client):
    sng = make_sng(seats=2, starting_chips=100, structure="limit")
    players = [make_funded_player(name, cents=5_000) for name in ("ann", "bob")]
    for player in players:
        tournament_register(player=player, tournament=sng, idempotency_key=f"k-{player.pk}")
    sng.refresh_from_db()
    hand = play_out(sng, players)[0]
    client.force_login(players[0])
    page = client.get(reverse("histories:hand", args=[hand.pk])).content.decode()
    # Level I's blinds are 10/20: its bets are 20 and 40.
    assert f">Tournament #{sng.pk}, Level I (20/40 bets)</a>" in page
    assert "(10/20)" not in page
