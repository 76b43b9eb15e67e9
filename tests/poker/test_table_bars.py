""" "Remove a player" bars them from that table for the period staff chose, so they cannot
buy back in at once: sitting down, joining the waiting list, a seat offer and "join a game"
there are refused with `barred_from_table` and the time the bar ends, other tables are not
affected, and the bar runs out or is lifted (recorded)."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone, translation

from audit.models import AuditRecord
from cashier.models import Entry
from cashier.selectors import wallet_balance
from poker import services
from poker.engine.hand import Hand as EngineHand
from poker.models import Seat, TableBar, WaitingEntry
from poker.selectors import GameKind
from poker.services.staff import staff_seat_offer, staff_seat_remove, staff_table_bar_lift
from tests.factories import (
    call_down,
    deal_hand,
    make_player,
    make_seated_player,
    make_table,
)

pytestmark = pytest.mark.django_db


def sit(table, player, seat: int, key: str):
    return services.table_sit(
        table=table, player=player, seat_number=seat, buy_in=table.max_buy_in,
        post_big_blind=False, idempotency_key=key,
    )  # fmt: skip


def refused_code(call) -> tuple[str, str]:
    with pytest.raises(services.TableError) as refused:
        call()
    return refused.value.code, refused.value.message


def test_a_removed_player_cannot_buy_back_in(manager):
    """The probe: removed, then back in the same seat 0.2 s later with a fresh buy-in."""
    table = make_table()
    cy = make_seated_player(table, "cy", 4)
    staff_seat_remove(seat=Seat.objects.get(player=cy), staff=manager, reason="abuse")
    wallet = wallet_balance(player=cy)
    code, message = refused_code(lambda: sit(table, cy, 4, "cy-again"))
    assert code == "barred_from_table"
    bar = TableBar.objects.get(player=cy, table=table)
    assert (
        timedelta(hours=24) - timedelta(minutes=1)
        < bar.until - timezone.now()
        <= timedelta(hours=24)
    )
    assert f"{bar.until:%Y}" in message and "UTC" in message
    assert wallet_balance(player=cy) == wallet and not Seat.objects.filter(player=cy).exists()
    # The bar is in the audit chain with the staff member and the period.
    record = AuditRecord.objects.get(action="staff.seat_remove")
    assert record.actor == manager and record.reason == "abuse"
    assert record.payload["bar"] == {"id": bar.pk, "hours": 24, "until": bar.until.isoformat()}
    assert bar.staff == manager and bar.reason == "abuse"


def test_the_message_is_in_the_players_language(manager):
    table = make_table()
    cy = make_seated_player(table, "cy", 4)
    staff_seat_remove(seat=Seat.objects.get(player=cy), staff=manager, reason="abuse")
    with translation.override("fr"):
        assert "liste d\u2019attente" in refused_code(lambda: sit(table, cy, 4, "fr"))[1]
    with translation.override("ja"):
        assert "UTC まで" in refused_code(lambda: sit(table, cy, 4, "ja"))[1]


def test_waiting_list_seat_offer_and_join_a_game_are_refused(manager):
    table = make_table(max_seats=2, next_hand_delay_seconds=3600)
    cy = make_seated_player(table, "cy", 1)
    make_seated_player(table, "dan", 2)
    staff_seat_remove(seat=Seat.objects.get(player=cy), staff=manager, reason="abuse")
    make_seated_player(table, "eve", 1)  # full again
    assert refused_code(lambda: services.waiting_list_join(table=table, player=cy))[0] == (
        "barred_from_table"
    )
    # An entry from before the bar (the tools take it off the list: here by hand) gets no
    # seat offer from staff either.
    WaitingEntry.objects.create(table=table, player=cy)
    assert (
        refused_code(lambda: staff_seat_offer(table=table, player=cy, staff=manager, reason="x"))[0]
        == "barred_from_table"
    )
    assert WaitingEntry.objects.get(player=cy).offer_expires_at is None
    kind = GameKind(table.game, table.structure, (table.small_blind, table.big_blind))
    assert refused_code(lambda: services.table_join_any(player=cy, kind=kind))[0] == (
        "barred_from_table"
    )


def test_removal_takes_the_player_off_that_tables_waiting_list(manager):
    table = make_table(max_seats=2)
    cy = make_seated_player(table, "cy", 1)
    make_seated_player(table, "dan", 2)
    WaitingEntry.objects.create(table=table, player=cy)
    staff_seat_remove(seat=Seat.objects.get(player=cy), staff=manager, reason="abuse")
    assert not WaitingEntry.objects.filter(player=cy).exists()


def test_other_tables_and_players_are_not_affected(manager):
    table, other = make_table(), make_table()
    cy = make_seated_player(table, "cy", 4)
    staff_seat_remove(seat=Seat.objects.get(player=cy), staff=manager, reason="abuse")
    sit(other, cy, 2, "cy-other")
    kind = GameKind(table.game, table.structure, (table.small_blind, table.big_blind))
    assert services.table_join_any(player=cy, kind=kind).table == other  # never the barred one
    dee = make_seated_player(table, "dee", 4)  # the seat is free for anyone else
    assert Seat.objects.get(player=dee).table == table


def test_a_bar_runs_out_and_staff_choose_its_period(manager):
    table = make_table()
    cy = make_seated_player(table, "cy", 4)
    staff_seat_remove(seat=Seat.objects.get(player=cy), staff=manager, reason="x", bar_hours=1)
    bar = TableBar.objects.get(player=cy)
    assert timedelta(minutes=59) < bar.until - timezone.now() <= timedelta(hours=1)
    TableBar.objects.filter(pk=bar.pk).update(until=timezone.now() - timedelta(seconds=1))
    sit(table, cy, 4, "cy-later")
    assert Seat.objects.filter(player=cy, table=table).exists()


def test_a_period_outside_the_choices_changes_nothing(manager):
    table = make_table()
    cy = make_seated_player(table, "cy", 4)
    for hours in (0, -24, 10_000, "24", True):
        code, _ = refused_code(
            lambda hours=hours: staff_seat_remove(
                seat=Seat.objects.get(player=cy), staff=manager, reason="x", bar_hours=hours
            )
        )
        assert code == "bad_bar_period"
    assert Seat.objects.filter(player=cy).exists() and not TableBar.objects.exists()
    assert not AuditRecord.objects.filter(action__startswith="staff.").exists()


def test_staff_lift_a_bar_early_on_the_record(manager):
    table = make_table()
    cy = make_seated_player(table, "cy", 4)
    staff_seat_remove(seat=Seat.objects.get(player=cy), staff=manager, reason="abuse")
    bar = TableBar.objects.get(player=cy)
    assert (
        refused_code(lambda: staff_table_bar_lift(bar=bar, staff=cy, reason="let me in"))[0]
        == "not_staff"
    )
    staff_table_bar_lift(bar=bar, staff=manager, reason="apologised")
    sit(table, cy, 4, "cy-lifted")
    bar.refresh_from_db()
    assert bar.lifted_by == manager and bar.lifted_at is not None
    record = AuditRecord.objects.get(action="staff.bar_lift")
    assert record.actor == manager and record.reason == "apologised"
    assert record.payload["player"] == cy.pk and record.payload["bar"] == bar.pk
    assert (
        refused_code(lambda: staff_table_bar_lift(bar=bar, staff=manager, reason="again"))[0]
        == "bar_ended"
    )
    assert AuditRecord.objects.filter(action="staff.bar_lift").count() == 1


def test_a_removal_in_the_running_hand_bars_and_cashes_out_as_staff(manager):
    """The cash-out at the hand's end is the staff member's too."""
    table = make_table(next_hand_delay_seconds=3600)
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    hand = deal_hand(table)
    # The player not to act: still in the hand after the tool, folded when their turn comes.
    waiting = next(n for n in players if n != EngineHand.from_dict(hand.state).to_act)
    seat = Seat.objects.get(player=players[waiting])
    assert staff_seat_remove(seat=seat, staff=manager, reason="abuse") == "leaving"
    services.table_leave(table=table, player=players[waiting])  # asking to leave changes nothing
    call_down(hand, players)
    cash_out = Entry.objects.get(reason="cash_out", player=players[waiting])
    assert cash_out.created_by == manager and cash_out.memo == "removed"
    code = refused_code(lambda: sit(table, players[waiting], waiting, "again"))[0]
    assert code == "barred_from_table"


def test_the_player_sees_the_bar_on_the_table_page_and_in_the_lobby(manager):
    table, other = make_table(), make_table()
    cy = make_seated_player(table, "cy", 4)
    staff_seat_remove(seat=Seat.objects.get(player=cy), staff=manager, reason="abuse")
    client = Client()
    client.force_login(cy, backend="django.contrib.auth.backends.ModelBackend")
    page = client.get(f"/tables/{table.pk}/").content.decode()
    assert 'id="barred"' in page and "until" in page
    assert 'id="barred"' not in client.get(f"/tables/{other.pk}/").content.decode()
    lobby = client.get("/").content.decode()
    row = lobby[lobby.index(f'data-table="{table.pk}"') :]
    row = row[: row.index("</tr>")]
    assert "Removed by staff: no seat until" in row
    other_row = lobby[lobby.index(f'data-table="{other.pk}"') :]
    assert "Removed by staff" not in other_row[: other_row.index("</tr>")]
    someone = Client()
    someone.force_login(make_player("zed"), backend="django.contrib.auth.backends.ModelBackend")
    assert "Removed by staff" not in someone.get("/").content.decode()
