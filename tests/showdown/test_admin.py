"""Staff pages of the banked game: a paytable edited in the admin is checked by the engine's
rules and stored with its exact edge; rounds are read-only and never show the deck of a round
still to be decided; the house's result per day."""

import re

import pytest
from django.urls import reverse

from showdown.models import Paytable, ShowdownRound
from showdown.services import round_deal, round_decide
from tests.factories import make_player
from tests.showdown.play import NOTHING


@pytest.fixture
def staff_client(client, db):
    client.force_login(make_player("boss", is_staff=True, is_superuser=True))
    return client


def paytable_form(paytable: Paytable, **pays) -> dict:
    import json

    return {
        "kind": paytable.kind,
        "name": paytable.name,
        "pays": json.dumps({**paytable.pays, **pays}),
    }


def test_an_edited_paytable_is_stored_with_its_new_edge(staff_client):
    fhb = Paytable.objects.get(name="fhb-a")
    url = reverse("admin:showdown_paytable_change", args=[fhb.pk])
    response = staff_client.post(url, paytable_form(fhb, **{"four of a kind": 40}))
    assert response.status_code == 302, response.content.decode()[:2000]
    fhb.refresh_from_db()
    assert fhb.pays["four of a kind"] == 40
    assert fhb.edge == Paytable.objects.get(name="fhb-e").edge  # E pays 40 on quads
    assert fhb.edge_pct == pytest.approx(12.1465, abs=1e-4)


@pytest.mark.parametrize(
    ("name", "pays", "says"),
    [
        ("bet", {"royal flush": 26}, "top award of 25"),
        ("hcb-a", {"four of a kind": 101}, "top award of 100"),
        ("fhb-a", {"royal flush": 201}, "top award of 200"),
        ("fhb-a", {"royal flush": -1}, "whole number from 0"),
        ("hcb-a", {"one pair": 1.5}, "whole number"),
        ("bet", {"two pair": 1}, "unknown category"),
    ],
)
def test_a_paytable_breaking_the_rules_is_refused(staff_client, name, pays, says):
    paytable = Paytable.objects.get(name=name)
    before = (dict(paytable.pays), paytable.edge)
    url = reverse("admin:showdown_paytable_change", args=[paytable.pk])
    response = staff_client.post(url, paytable_form(paytable, **pays))
    assert response.status_code == 200
    assert says in response.content.decode()
    paytable.refresh_from_db()
    assert (dict(paytable.pays), paytable.edge) == before


def test_a_new_paytable_can_be_added_with_its_edge(staff_client):
    hcb = Paytable.objects.get(name="hcb-a")
    form = paytable_form(hcb, **{"two pair": 5})
    form["name"] = "hcb-house"
    response = staff_client.post(reverse("admin:showdown_paytable_add"), form)
    assert response.status_code == 302
    added = Paytable.objects.get(name="hcb-house")
    assert added.edge_pct is not None and added.edge_pct < hcb.edge_pct  # pays more
    listing = staff_client.get(reverse("admin:showdown_paytable_changelist")).content.decode()
    assert "hcb-house" in listing and "%" in listing


def test_rounds_are_read_only_and_hide_the_deck_until_settled(staff_client, gambler, next_deck):
    from tests.factories import make_showdown_table

    table = make_showdown_table()
    next_deck(*NOTHING)
    round_ = round_deal(player=gambler, table=table, ante=500, idempotency_key="k")
    url = reverse("admin:showdown_showdownround_change", args=[round_.pk])
    page = staff_client.get(url).content.decode()
    assert "not shown while the round waits" in page
    for card in round_.deck[:9]:  # as a card, not as part of an icon's path data
        assert not re.search(rf"(?<![0-9A-Za-z]){card}(?![0-9A-Za-z])", page), card
    assert staff_client.post(url, {"status": "settled"}).status_code == 403
    listing = reverse("admin:showdown_showdownround_changelist")
    assert staff_client.get(listing, {"deck__4": "9h"}).status_code in (302, 400)
    round_decide(player=gambler, round_id=round_.pk, decision="call", idempotency_key="d")
    page = staff_client.get(url).content.decode()
    assert "board 9h Jd Qc Kh 3s" in page


def sweep_for_cards(client, caplog) -> None:
    """No admin page (every registered admin's list, change, history and delete pages, the
    house's days' row pages that no longer exist included) and no log line shows a card."""
    from tests.sweep import cards_in, every_admin_page

    pages = every_admin_page()
    assert "/admin/showdown/showdownround/" in pages and len(pages) > 40, pages
    for url in pages:
        response = client.get(url)
        assert response.status_code in (200, 403), (url, response.status_code)
        assert not cards_in(response.content.decode()), url
    for round_ in ShowdownRound.objects.all():
        url = f"/admin/showdown/houseday/{round_.pk}/change/"  # Django's page for the proxy
        assert client.get(url).status_code == 404, url
    assert not cards_in("\n".join(record.getMessage() for record in caplog.records))


def test_no_admin_page_shows_a_running_online_or_live_rounds_cards(
    staff_client, gambler, monkeypatch, caplog
):
    """An online round waiting for its player's decision and a live round dealt and waiting for
    decisions (one seat has called), one sweep over both: no admin page shows the online
    round's deck or hole cards, nor a live seat's hole cards or the board to come (to staff
    too). Once settled, each round's page shows its hole cards and board."""
    import logging
    from datetime import timedelta

    from showdown import services
    from showdown.live import live_decide
    from showdown.models import LiveRound
    from tests.factories import make_showdown_table
    from tests.showdown.play import live_deck, seated, wager

    caplog.set_level(logging.DEBUG)
    online = round_deal(player=gambler, table=make_showdown_table(), ante=500,
                        hole_card_bonus=100, idempotency_key="k")  # fmt: skip
    assert len(online.deck) >= 5 and len(online.hole) == 4

    deck = live_deck(["AsKs2c3d", "2d7c4s8c"], "QsJsTs4h9c")
    monkeypatch.setattr(services, "deck_shuffle", lambda randbelow: list(deck))
    table = make_showdown_table(seats=7, bet_seconds=15, action_seconds=20)
    ann, bob = seated(table, "ann", 1), seated(table, "bob", 3)
    wager(ann, table, "a1", hcb=100)
    wager(bob, table, "b1")
    live = LiveRound.objects.get()
    assert live.phase == LiveRound.Phase.DECIDING and len(live.deck) > 40
    live_decide(player=ann, table_id=table.pk, decision="call", idempotency_key="a2",
                now=live.dealt_at)  # fmt: skip
    assert ShowdownRound.objects.get(player=ann).state["holes"]["1"] == list(deck[0:8:2])
    assert ShowdownRound.objects.get(pk=online.pk).status == ShowdownRound.Status.DEALT
    sweep_for_cards(staff_client, caplog)

    round_decide(player=gambler, round_id=online.pk, decision="call", idempotency_key="d")
    online.refresh_from_db()
    page = staff_client.get(f"/admin/showdown/showdownround/{online.pk}/change/")
    assert f"hole {' '.join(online.hole)}; board {' '.join(online.board)}" in page.content.decode()
    # Within the decision window as dealt, however long the sweep took.
    in_time = live.dealt_at + timedelta(seconds=1)
    live_decide(player=bob, table_id=table.pk, decision="fold", idempotency_key="b2", now=in_time)
    for player, hole in ((ann, "As Ks 2c 3d"), (bob, "2d 7c 4s 8c")):
        mine = ShowdownRound.objects.get(player=player, status=ShowdownRound.Status.SETTLED)
        page = staff_client.get(f"/admin/showdown/showdownround/{mine.pk}/change/")
        assert f"hole {hole}; board Qs Js Ts 4h 9c" in page.content.decode(), player


def test_the_house_result_per_day(staff_client, gambler, next_deck):
    from tests.factories import make_showdown_table

    table = make_showdown_table()
    next_deck(*NOTHING)
    round_ = round_deal(player=gambler, table=table, ante=500, idempotency_key="k")
    round_decide(player=gambler, round_id=round_.pk, decision="call", idempotency_key="d")
    page = staff_client.get(reverse("admin:showdown_houseday_changelist")).content.decode()
    assert 'id="house-days"' in page
    assert "$10.00" in page  # the house won the Ante and the Bet
    assert ShowdownRound.objects.get().net == -1000


def test_a_table_with_limits_the_engine_refuses_is_not_saved(staff_client):
    from showdown.models import ShowdownTable

    table = ShowdownTable.objects.get(name="Showdown")
    form = {
        "name": table.name,
        "ante_min": 5_000,
        "ante_max": 500,  # below the minimum
        "hole_card_bonus_min": 100,
        "hole_card_bonus_max": 10_000,
        "final_hand_bonus_min": 100,
        "final_hand_bonus_max": 5_000,
        "max_aggregate_payout": 2_500_000,
        "bet_paytable": table.bet_paytable_id,
        "hole_card_bonus_paytable": table.hole_card_bonus_paytable_id,
        "final_hand_bonus_paytable": table.final_hand_bonus_paytable_id,
        "is_open": "on",
        "seats": 1,
        "bet_seconds": 15,
        "action_seconds": 20,
        "away_limit_seconds": 300,
    }
    url = reverse("admin:showdown_showdowntable_change", args=[table.pk])
    response = staff_client.post(url, form)
    assert response.status_code == 200
    assert "0 &lt; min &lt;= max" in response.content.decode()
    form["ante_max"] = 50_000
    form["hole_card_bonus_paytable"] = table.bet_paytable_id  # a Bet table as the side bet's
    response = staff_client.post(url, form)
    assert response.status_code == 200
    table.refresh_from_db()
    assert (table.ante_min, table.ante_max) == (500, 20_000)
    form["hole_card_bonus_paytable"] = table.hole_card_bonus_paytable_id
    assert staff_client.post(url, form).status_code == 302
    table.refresh_from_db()
    assert (table.ante_min, table.ante_max) == (5_000, 50_000)


def test_a_new_table_starts_with_the_default_paytables(staff_client):
    """Bet, HCB A and FHB A are chosen on the add form, not left blank."""
    response = staff_client.get(reverse("admin:showdown_showdowntable_add"))
    form = response.context["adminform"].form
    chosen = {
        field: Paytable.objects.get(pk=form.initial[field]).name
        for field in ("bet_paytable", "hole_card_bonus_paytable", "final_hand_bonus_paytable")
    }
    assert chosen == {
        "bet_paytable": "bet",
        "hole_card_bonus_paytable": "hcb-a",
        "final_hand_bonus_paytable": "fhb-a",
    }


def test_a_live_tables_edit_must_fit_the_players_at_it(staff_client):
    """As for poker tables, with players in seats 4 and 6, an edit to 3 seats,
    to the online one-seat game (whose round deadlines would then find no live table, its
    wagers left in play), to 0 seconds for a window or 10 before an away seat stands up is
    refused; limits and paytables may change, since a round keeps those it was opened with."""
    from django.forms.models import model_to_dict

    from showdown.live import live_seat_take
    from tests.factories import make_funded_player, make_showdown_table

    table = make_showdown_table(seats=7, bet_seconds=15, action_seconds=20)
    for name, seat in (("dee", 4), ("eve", 6)):
        live_seat_take(player=make_funded_player(name), table_id=table.pk, seat=seat)
    url = reverse("admin:showdown_showdowntable_change", args=[table.pk])

    def post(**changes):
        form = {k: v for k, v in model_to_dict(table).items() if v is not None and k != "id"}
        form["is_open"] = "on"
        form.update(changes)
        return staff_client.post(url, form)

    for changes, says in (
        ({"seats": 3}, "at least 6 seats while they are seated"),
        ({"seats": 1}, "it stays a live table"),
        ({"bet_seconds": 0}, "At least 5 seconds at a live table"),
        ({"action_seconds": 2}, "At least 5 seconds at a live table"),
        ({"away_limit_seconds": 10}, "At least 30 seconds at a live table"),
    ):
        response = post(**changes)
        assert response.status_code == 200 and says in response.content.decode(), changes
    table.refresh_from_db()
    assert (table.seats, table.bet_seconds, table.action_seconds) == (7, 15, 20)
    assert post(seats=6, ante_max=30_000).status_code == 302
    table.refresh_from_db()
    assert (table.seats, table.ante_max) == (6, 30_000)
