"""The staff's table tools as services: each acts under the table lock, leaves exactly one
`staff.*` audit record, and a refusal changes nothing and records nothing."""

import pytest

from audit.models import AuditRecord
from cashier.selectors import table_stack_balance, wallet_balance
from poker import services
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, HandIncident, Seat
from poker.services.staff import (
    STAFF_CANCEL_MESSAGE,
    staff_hand_cancel,
    staff_seat_remove,
    staff_table_close,
    staff_table_reopen,
)
from tests.factories import (
    call_down,
    deal_hand,
    make_funded_player,
    make_player,
    make_seated_player,
    make_staff,
    make_table,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def manager():
    return make_staff("tm", "table managers")


@pytest.fixture
def running():
    table = make_table(next_hand_delay_seconds=3600)
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    stacks = {n: table_stack_balance(player=p, table=table) for n, p in players.items()}
    hand = deal_hand(table)
    assert hand.status == Hand.Status.RUNNING
    return table, players, stacks, hand


def staff_actions() -> list[str]:
    return list(
        AuditRecord.objects.filter(action__startswith="staff.")
        .order_by("id")
        .values_list("action", flat=True)
    )


def test_cancel_returns_every_bet_and_keeps_the_reason_from_players(running, manager):
    table, players, stacks, hand = running
    staff_hand_cancel(hand=hand, staff=manager, reason="collusion suspected")
    hand.refresh_from_db()
    assert hand.status == Hand.Status.CANCELLED and hand.cancel_reason == STAFF_CANCEL_MESSAGE
    assert {n: table_stack_balance(player=p, table=table) for n, p in players.items()} == stacks
    incident = HandIncident.objects.get(hand=hand)
    assert incident.code == "staff" and incident.detail["detail"] == "collusion suspected"
    assert staff_actions() == ["staff.hand_cancel"]
    record = AuditRecord.objects.get(action="staff.hand_cancel")
    assert record.reason == "collusion suspected" and record.payload["hand"] == hand.pk


def test_cancel_refusals_change_nothing(running, manager):
    _, players, _, hand = running
    for kwargs, code in (
        ({"staff": manager, "reason": " "}, "reason_required"),
        ({"staff": players[1], "reason": "x"}, "not_staff"),
    ):
        with pytest.raises(services.TableError) as refused:
            staff_hand_cancel(hand=hand, **kwargs)
        assert refused.value.code == code
    call_down(hand, players)
    with pytest.raises(services.TableError) as refused:
        staff_hand_cancel(hand=hand, staff=manager, reason="late")
    assert refused.value.code == "hand_not_running"
    assert staff_actions() == []


def test_remove_a_seat_now_or_after_the_hand(running, manager):
    table, players, _, hand = running
    cy = make_seated_player(table, "cy", 4)  # waiting, not in the hand
    assert staff_seat_remove(seat=Seat.objects.get(player=cy), staff=manager, reason="abuse") == (
        "removed"
    )
    assert not Seat.objects.filter(player=cy).exists()
    assert wallet_balance(player=cy) == 100_000  # the whole buy-in back
    # The player not to act: still in the hand after the tool, folded when their turn comes.
    waiting = next(n for n in players if n != EngineHand.from_dict(hand.state).to_act)
    seat = Seat.objects.get(player=players[waiting])
    assert staff_seat_remove(seat=seat, staff=manager, reason="abuse") == "leaving"
    assert Seat.objects.get(pk=seat.pk).leave_pending
    with pytest.raises(services.TableError) as refused:
        staff_seat_remove(seat=seat, staff=manager, reason="again")
    assert refused.value.code == "already_leaving"
    call_down(hand, players)
    assert not Seat.objects.filter(player=players[waiting]).exists()
    assert table_stack_balance(player=players[waiting], table=table) == 0
    assert staff_actions() == ["staff.seat_remove", "staff.seat_remove"]


def test_close_deals_no_more_and_cashes_out_then_reopen(running, manager):
    table, players, _, hand = running
    cy = make_seated_player(table, "cy", 4)
    done = staff_table_close(table=table, staff=manager, reason="maintenance")
    assert done == {"removed": [cy.pk], "leaving": [players[1].pk, players[2].pk]}
    assert wallet_balance(player=cy) == 100_000
    call_down(hand, players)
    assert not Seat.objects.filter(table=table).exists()
    assert services.table_hand_start(table=table) is None
    newcomer = make_funded_player("dee")
    with pytest.raises(services.TableError) as refused:
        services.table_sit(
            table=table, player=newcomer, seat_number=3, buy_in=table.max_buy_in,
            post_big_blind=False, idempotency_key="dee-1",
        )  # fmt: skip
    assert refused.value.code == "table_closed"
    with pytest.raises(services.TableError):
        staff_table_close(table=table, staff=manager, reason="twice")
    staff_table_reopen(table=table, staff=manager, reason="done")
    services.table_sit(
        table=table, player=newcomer, seat_number=3, buy_in=table.max_buy_in,
        post_big_blind=False, idempotency_key="dee-2",
    )  # fmt: skip
    assert staff_actions() == ["staff.table_close", "staff.table_reopen"]


def test_tools_refuse_players(running):
    table, players, _, _ = running
    outsider = make_player("eve")
    with pytest.raises(services.TableError):
        staff_table_close(table=table, staff=outsider, reason="x")
    with pytest.raises(services.TableError):
        staff_seat_remove(seat=Seat.objects.get(player=players[1]), staff=outsider, reason="x")
    table.refresh_from_db()
    assert table.is_open and staff_actions() == []


def test_closing_and_reopening_tell_the_lobby_after_commit(
    manager, django_capture_on_commit_callbacks
):
    """Lobby pages list open tables only: each change reaches them, once it is committed."""
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    from poker.broadcast import LOBBY_GROUP

    table = make_table()
    layer = get_channel_layer()
    lobby = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(LOBBY_GROUP, lobby)
    try:
        for tool in (staff_table_close, staff_table_reopen):
            with django_capture_on_commit_callbacks(execute=False) as callbacks:
                tool(table=table, staff=manager, reason="maintenance")
            assert callbacks, f"{tool.__name__} publishes on commit, not before"
            for callback in callbacks:
                callback()
            heard = async_to_sync(layer.receive)(lobby)
            assert heard["update"] == {"table": table.pk, "seats_taken": 0}
    finally:
        async_to_sync(layer.group_discard)(LOBBY_GROUP, lobby)
