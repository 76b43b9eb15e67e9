"""The admin's player page shows the player's responsible-gaming state
(time-out or self-exclusion in force, deposit limits with a raise waiting, the reality check,
the player's changes), their Showdown rounds (never a dealt round's cards) and their table bars,
read-only and to every staff role."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from poker.models import Seat
from poker.services.staff import staff_seat_remove
from responsible.services import deposit_limit_set, exclusion_start, reality_check_set
from showdown.services import round_deal
from tests.factories import (
    make_funded_player,
    make_seated_player,
    make_showdown_table,
    make_staff,
    make_table,
)
from tests.sweep import cards_in

pytestmark = pytest.mark.django_db

ROLES = ("support", "table managers", "cashier managers")


def page_of(player, role: str = "support") -> str:
    client = Client()
    staff = make_staff(f"s-{role.replace(' ', '-')}", role)
    client.force_login(staff, backend="django.contrib.auth.backends.ModelBackend")
    response = client.get(f"/admin/staff/player/{player.pk}/change/")
    assert response.status_code == 200
    return response.content.decode()


def section(page: str, element_id: str) -> str:
    start = page.index(f'id="{element_id}"')
    return page[start : page.index("</table>", start)]


def test_staff_see_a_time_out_limits_and_the_reality_check():
    pat = make_funded_player("pat")
    now = timezone.now()
    deposit_limit_set(player=pat, period="day", amount=5_000, now=now - timedelta(hours=2))
    deposit_limit_set(player=pat, period="day", amount=20_000, now=now - timedelta(hours=1))
    deposit_limit_set(player=pat, period="week", amount=30_000)
    reality_check_set(player=pat, minutes=30)
    exclusion_start(player=pat, kind="time_out", length=7)
    for role in ROLES:
        page = page_of(pat, role)
        exclusion = section(page, "player-exclusion")
        assert "On a time-out" in exclusion and "UTC" in exclusion
        limits = section(page, "player-limits")
        # The lower cap is in force; the raise waits its 24 hours.
        assert "$50.00" in limits and "raise to $200.00" in limits and "$300.00" in limits
        assert "every 30 minutes" in section(page, "player-reality-check")
        events = section(page, "player-responsible-events")
        assert "time-out started" in events and "deposit limit raise" in events


def test_no_exclusion_and_none_set_say_so():
    page = page_of(make_funded_player("quin"))
    assert "no time-out or self-exclusion in force" in section(page, "player-exclusion")
    assert "none set" in section(page, "player-limits")
    assert "not set" in section(page, "player-reality-check")


def test_staff_see_showdown_rounds_without_a_dealt_rounds_cards():
    rae = make_funded_player("rae")
    table = make_showdown_table()
    dealt = round_deal(player=rae, table=table, ante=500, idempotency_key="rae-round-1")
    page = page_of(rae, "table managers")
    rounds = section(page, "player-showdown")
    assert f"#{dealt.pk}" in rounds and table.name in rounds and "$5.00" in rounds
    assert "Dealt, waiting" in rounds
    assert dealt.deck and not cards_in(page)  # no card of the round (nor any other) on the page


def test_staff_see_the_players_table_bars():
    manager = make_staff("tm", "table managers")
    table = make_table()
    sam = make_seated_player(table, "sam", 2)
    staff_seat_remove(seat=Seat.objects.get(player=sam), staff=manager, reason="abusive chat")
    bars = section(page_of(sam), "player-bars")
    assert table.name in bars and "abusive chat" in bars and "yes" in bars
