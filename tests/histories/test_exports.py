"""Hand-history files: PokerStars text read back by an independent parser gives the stored
actions and amounts for the four games (side pots, split pots, uncalled bets, a cancelled
hand); PHH replays to the stored result; a player's files hold no card they did not see; the
downloads are theirs only."""

import io
import json
import re
import zipfile
from collections import Counter
from datetime import UTC

import pytest
from django.test import Client

from histories.exports import hand_export
from histories.formats.pokerstars import hand_number
from histories.record import hand_record
from poker.engine import phh
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand
from poker.services.faults import hand_cancel
from tests.factories import call_down, deal_hand, make_player, make_seated_player
from tests.histories.conftest import game_table
from tests.histories.game_moves import GAME_NAMES, expected_moves
from tests.histories.ohh_reader import cents, chips_in, uncalled, winnings
from tests.histories.pokerstars_parser import parse
from tests.sweep import DECK, cards_in

pytestmark = pytest.mark.django_db


def test_pokerstars_text_reads_back_as_the_stored_hand(played):
    game, _, players, calm, wild = played
    for hand in (calm, wild):
        for seat, player in players.items():
            record = hand_record(hand_id=hand.pk, viewer=player)
            name, content_type, text = hand_export(hand_id=hand.pk, viewer=player, fmt="pokerstars")
            assert name == f"hand-{hand.pk}.txt" and content_type.startswith("text/plain")
            read = parse(text)
            assert read["id"] == hand_number(hand.pk) and read["game"] == GAME_NAMES[game]
            assert read["moves"] == expected_moves(record), (game, seat)
            assert read["total"] == sum(pot["amount"] for pot in hand.result["pots"])
            assert read["rake"] == hand.result["rake"]
            assert read["board"] == hand.result["board"]
            assert {n: stack for n, (_, stack) in read["seats"].items()} == {
                s["seat"]: s["starting_stack"] for s in record["seats"]
            }
            visible = cards_in(json.dumps(record))
            assert cards_in(text) <= visible, "the file shows no card the page does not"
    if game.endswith("pot-limit"):
        text = hand_export(hand_id=wild.pk, viewer=players[2], fmt="pokerstars")[2]
        assert "from side pot\n" in text and "side pot-" not in text, "one side pot: no number"


def test_phh_replays_to_the_stored_result_and_hides_what_was_not_shown(played):
    _, _, players, calm, wild = played
    for hand in (calm, wild):
        stored = EngineHand.from_dict(Hand.objects.get(pk=hand.pk).state)
        _, _, staff_text = hand_export(hand_id=hand.pk, viewer=None, fmt="phh", all_cards=True)
        replayed = phh.replay(staff_text)
        assert replayed.result["seats"] == stored.result["seats"]
        assert replayed.result["pots"] == stored.result["pots"]
        shown = {e["seat"] for e in stored.result["showdown"] if e.get("shown")}
        for seat, player in players.items():
            _, _, text = hand_export(hand_id=hand.pk, viewer=player, fmt="phh")
            pairs = zip(stored.seats, stored.hole_cards, strict=True)
            hidden = set().union(*(set(c) for s, c in pairs if s != seat and s not in shown))
            assert not cards_in(text) & hidden, (seat, sorted(cards_in(text) & hidden))


def test_a_cancelled_hand_exports_as_text_saying_so_and_has_no_phh():
    table = game_table("omaha-pot-limit")
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    hand = call_down(deal_hand(table, DECK), players, until_street="flop")
    assert hand_cancel(hand=hand, reason="dealer error")
    _, _, text = hand_export(hand_id=hand.pk, viewer=players[1], fmt="pokerstars")
    assert "\nHand cancelled\n*** SUMMARY ***\n" in text
    assert not re.search(r"collected \$", text), "no pot is paid"
    _, _, ohh_text = hand_export(hand_id=hand.pk, viewer=players[1], fmt="ohh")
    ohh = json.loads(ohh_text)["ohh"]
    assert ohh["flags"] == [], "1.4.6 has no flag for a cancelled hand"
    assert ohh["pots"] == [], "no pot: nobody won one"
    assert chips_in(ohh) == {1: table.big_blind, 2: table.big_blind}, "the blinds as posted"
    client = Client()
    client.force_login(players[1], backend="django.contrib.auth.backends.ModelBackend")
    assert client.get(f"/hands/{hand.pk}/download/phh/").status_code == 404


def test_downloads_are_the_players_own(played):
    _, _, players, calm, wild = played
    client = Client()
    client.force_login(players[2], backend="django.contrib.auth.backends.ModelBackend")
    one = client.get(f"/hands/{calm.pk}/download/pokerstars/")
    assert one.status_code == 200
    assert one["Content-Disposition"] == f'attachment; filename="hand-{calm.pk}.txt"'
    assert client.get(f"/hands/{calm.pk}/download/doc/").status_code == 404
    bulk = client.get("/hands/download/?format=pokerstars")
    assert bulk.status_code == 200 and bulk["Content-Type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(bulk.content)) as archive:
        (name,) = archive.namelist()  # one table, one day: one file, as PokerStars writes them
        text = archive.read(name).decode()
    day = calm.started_at.astimezone(UTC)
    assert name.startswith(f"HH{day:%Y%m%d} Omaha Room - {calm.table.name} - ")
    assert [h["id"] for h in map(parse, re.split(r"\n(?=PokerStars Hand #)", text.strip()))] == [
        hand_number(calm.pk),
        hand_number(wild.pk),
    ]
    phh_zip = client.get("/hands/download/?format=phh&since=2000-01-01")
    with zipfile.ZipFile(io.BytesIO(phh_zip.content)) as archive:
        assert sorted(archive.namelist()) == sorted([f"hand-{calm.pk}.phh", f"hand-{wild.pk}.phh"])
    assert client.get("/hands/download/?format=exe").status_code == 400
    assert client.get("/hands/download/?since=never").status_code == 400
    stranger = Client()
    stranger.force_login(make_player("eve"), backend="django.contrib.auth.backends.ModelBackend")
    assert stranger.get(f"/hands/{calm.pk}/download/pokerstars/").status_code == 404


def test_open_hand_history_accounts_for_every_chip_and_hides_what_was_not_shown(played):
    _, _, players, calm, wild = played
    for hand in (calm, wild):
        for seat, player in players.items():
            record = hand_record(hand_id=hand.pk, viewer=player)
            name, content_type, text = hand_export(hand_id=hand.pk, viewer=player, fmt="ohh")
            assert name == f"hand-{hand.pk}.ohh" and content_type == "application/json"
            ohh = json.loads(text)["ohh"]
            assert ohh["spec_version"] == "1.4.6" and ohh["game_number"] == str(hand.pk)
            assert ohh["hero_player_id"] == seat
            put_in = chips_in(ohh)
            pots = ohh["pots"]
            assert sum(put_in.values()) == sum(cents(p["amount"]) for p in pots), "balances"
            for pot in pots:
                won = sum(cents(w["win_amount"]) for w in pot["player_wins"])
                assert won + cents(pot["rake"]) == cents(pot["amount"])
            finals = {e["seat"]: e["final_stack"] for e in hand.result["seats"]}
            won = winnings(ohh)
            for p in ohh["players"]:
                start = cents(p["starting_stack"])
                assert start - put_in[p["id"]] + won[p["id"]] == finals[p["seat"]]
            returned = Counter()
            for step in record["steps"]:
                if step["event"]["type"] == "uncalled_bet_returned":
                    returned[step["event"]["seat"]] += step["event"]["amount"]
            assert +uncalled(ohh) == +returned, "the spec's arithmetic finds the room's returns"
            assert cards_in(text) <= cards_in(json.dumps(record))


def test_the_specs_own_example_balances_by_the_readers_arithmetic():
    """The money of the spec's "Holdem tournament hand (PokerStars)" example
    (hh-specs.handhistory.org/examples): blinds 10 and 20, a call and a check, then a flop bet
    of 40 nobody calls. It writes the bet whole and a pot of 40, nothing for the return."""
    example = {
        "rounds": [
            {"street": "Preflop", "actions": [
                {"player_id": 2, "action": "Post SB", "amount": 10.0},
                {"player_id": 0, "action": "Post BB", "amount": 20.0},
                {"player_id": 1, "action": "Fold", "amount": 0.0},
                {"player_id": 2, "action": "Call", "amount": 10.0},
                {"player_id": 0, "action": "Check", "amount": 0.0},
            ]},
            {"street": "Flop", "actions": [
                {"player_id": 2, "action": "Bet", "amount": 40.0},
                {"player_id": 0, "action": "Fold", "amount": 0.0},
            ]},
            {"street": "Showdown", "actions": [{"player_id": 2, "action": "Mucks Cards"}]},
        ],
        "pots": [{"number": 0, "amount": 40.0, "rake": 0.0,
                  "player_wins": [{"player_id": 2, "win_amount": 40.0}]}],
    }  # fmt: skip
    assert uncalled(example) == {2: 4000}
    assert chips_in(example) == {0: 2000, 2: 2000, 1: 0}
    assert sum(chips_in(example).values()) == cents(example["pots"][0]["amount"])


def test_an_odd_chip_split_is_written_as_the_engine_paid_it():
    """Two players tie for a raked pot of an odd amount: the odd chip goes to the first of them
    left of the button (RULES.md 7), and every file pays each winner what the engine did."""
    from tests.poker.engine.conftest import build_deck

    table = game_table("omaha-pot-limit")
    players = {
        n: make_seated_player(table, name, n) for n, name in ((1, "ann"), (2, "ben"), (3, "cy"))
    }
    # A-K in the hole makes the nut straight on this board: seats holding AhKd and AsKc tie.
    deck = build_deck(["5h5d8c8d", "AhKd2c3c", "AsKc2d3d"], "Qh Jc Ts 7d 6s")
    hand = call_down(deal_hand(table, deck), players)
    (pot,) = hand.result["pots"]
    shares = sorted(share["amount"] for share in pot["high"])
    assert len(shares) == 2 and shares[1] - shares[0] == 1, pot  # an odd chip was paid
    _, _, text = hand_export(hand_id=hand.pk, viewer=players[1], fmt="pokerstars")
    collected = sorted(value for kind, _, value in parse(text)["moves"] if kind == "collect")
    assert collected == shares
    _, _, ohh_text = hand_export(hand_id=hand.pk, viewer=players[1], fmt="ohh")
    wins = json.loads(ohh_text)["ohh"]["pots"][0]["player_wins"]
    assert sorted(round(w["win_amount"] * 100) for w in wins) == shares


def test_the_range_download_holds_what_the_page_lists_and_is_named_by_its_days():
    """The download keeps the page's table and result filters, not only its dates, and its
    file is named by its days (never `hands-None-None-...`)."""
    from histories.selectors import player_hands

    tables = [game_table("omaha-pot-limit"), game_table("omaha-pot-limit")]
    ann = {}
    hands = []
    for k, table in enumerate(tables):
        players = {
            1: make_seated_player(table, f"ann{k}", 1),
            2: make_seated_player(table, f"b{k}", 2),
        }
        ann[k] = players[1]
        hands.append(call_down(deal_hand(table), players))
    client = Client()
    client.force_login(ann[0], backend="django.contrib.auth.backends.ModelBackend")
    listed = client.get(f"/hands/?table={tables[0].pk}").content.decode()
    assert f"?format=phh&amp;table={tables[0].pk}" in listed
    net = player_hands(player=ann[0]).get().net
    result, not_result = (
        ("won", "lost") if net > 0 else ("lost", "won") if net < 0 else ("even", "won")
    )
    response = client.get(f"/hands/download/?format=phh&table={tables[0].pk}&result={result}")
    day = hands[0].started_at.astimezone(UTC).date()
    assert response["Content-Disposition"] == f'attachment; filename="hands-{day}-phh.zip"'
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        assert archive.namelist() == [f"hand-{hands[0].pk}.phh"]
    excluded = client.get(f"/hands/download/?format=phh&result={not_result}")
    with zipfile.ZipFile(io.BytesIO(excluded.content)) as archive:
        assert archive.namelist() == []
    other = client.get(f"/hands/download/?format=phh&table={tables[1].pk}")
    with zipfile.ZipFile(io.BytesIO(other.content)) as archive:
        assert archive.namelist() == []  # ann0 never played there
    assert other["Content-Disposition"] == 'attachment; filename="hands-none-phh.zip"'
    ranged = client.get("/hands/download/?format=phh&since=2026-01-01&until=2026-01-31")
    assert ranged["Content-Disposition"].endswith('"hands-2026-01-01-to-2026-01-31-phh.zip"')


def _fold_first(table, players):
    """A heads-up hand whose first to act (the button, on the small blind) folds: the big
    blind wins it. Returns the hand."""
    from poker import services

    hand = deal_hand(table)
    legal = EngineHand.from_dict(hand.state).legal_actions()
    services.table_act(table=table, player=players[legal.seat], action="fold", amount=None,
                       turn=hand.turn, seq=hand.turn)  # fmt: skip
    hand.refresh_from_db()
    return hand


def test_the_pages_download_links_honour_each_of_its_filters():
    """Every filter of "My hands" (the form's every field, so a filter added
    later is checked too), set on the page, is honoured by the page's download links: the zip
    holds the hands the page lists, and no hand the filter leaves out. The position and game
    filters were checked on the page and the API only."""
    from datetime import timedelta

    from histories.forms import HandFilterForm
    from poker.models import HandPlayer
    from poker.services import table_sit

    table, other = game_table("omaha-pot-limit"), game_table("omaha8-pot-limit")
    ann = make_seated_player(table, "ann", 1)
    at_table = {1: ann, 2: make_seated_player(table, "ben", 2)}
    table_sit(table=other, player=ann, seat_number=1, buy_in=other.max_buy_in,
              post_big_blind=False, idempotency_key="test-sit-ann-other")  # fmt: skip
    at_other = {1: ann, 2: make_seated_player(other, "cy", 2)}
    kept = _fold_first(table, at_table)
    position = HandPlayer.objects.get(hand=kept, player=ann).position
    left_out = _fold_first(other, at_other)
    if HandPlayer.objects.get(hand=left_out, player=ann).position == position:
        left_out = _fold_first(other, at_other)  # the button moved: ann's other position
    Hand.objects.filter(pk=left_out.pk).update(started_at=kept.started_at - timedelta(days=2))
    mine = {row.hand_id: row for row in HandPlayer.objects.filter(player=ann)}
    assert mine[left_out.pk].position != position and mine[left_out.pk].net != mine[kept.pk].net
    day = kept.started_at.astimezone(UTC).date()
    result = "won" if mine[kept.pk].net > 0 else "lost"
    filters = {"table": table.pk, "game": "omaha", "since": day, "result": result,
               "position": position, "until": day - timedelta(days=1)}  # fmt: skip
    assert set(filters) == set(HandFilterForm.base_fields), "a filter of the page is not checked"
    client = Client()
    client.force_login(ann, backend="django.contrib.auth.backends.ModelBackend")
    for field, value in filters.items():
        page = client.get("/hands/", {field: value}).content.decode()
        listed = {int(pk) for pk in re.findall(r'<tr data-hand="(\d+)"', page)}
        assert listed and len(listed) < len(mine), (field, listed)  # the filter leaves one out
        links = re.search(r'id="hands-downloads">(.*?)</p>', page, re.S).group(1)
        hrefs = [href.replace("&amp;", "&") for href in re.findall(r'href="([^"]+)"', links)]
        assert len(hrefs) == 3 and all(f"{field}={value}" in href for href in hrefs), hrefs
        (phh,) = [href for href in hrefs if "format=phh" in href]
        with zipfile.ZipFile(io.BytesIO(client.get(phh).content)) as archive:
            zipped = {int(name[5:-4]) for name in archive.namelist()}
        assert zipped == listed, f"{phh} holds {sorted(zipped)}, the page lists {sorted(listed)}"
