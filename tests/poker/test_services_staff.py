"""The staff's table tools as services: each acts under the table lock, leaves exactly one
`staff.*` audit record, and a refusal changes nothing and records nothing."""

import asyncio
import threading

import pytest

from audit.models import AuditRecord
from cashier.selectors import table_stack_balance, wallet_balance
from cashier.services import wallet_deposit
from poker import services
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, HandIncident, Seat, WaitingEntry
from poker.selectors import waiting_position
from poker.services.staff import (
    STAFF_CANCEL_MESSAGE,
    staff_hand_cancel,
    staff_seat_offer,
    staff_seat_remove,
    staff_table_bar_lift,
    staff_table_close,
    staff_table_reopen,
    staff_waiting_move,
    staff_waiting_remove,
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
    from channels.layers import get_channel_layer

    from poker.broadcast import LOBBY_GROUP

    table = make_table()
    layer = get_channel_layer()
    # The pub/sub layer keeps a channel's subscription on the event loop that made it: the
    # listening channel lives on one loop of its own, as a socket's does on its server's.
    loop = asyncio.new_event_loop()
    listener = threading.Thread(target=loop.run_forever, daemon=True)
    listener.start()

    def on_loop(coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, loop).result(timeout=10)

    lobby = on_loop(layer.new_channel())
    on_loop(layer.group_add(LOBBY_GROUP, lobby))
    try:
        for tool in (staff_table_close, staff_table_reopen):
            with django_capture_on_commit_callbacks(execute=False) as callbacks:
                tool(table=table, staff=manager, reason="maintenance")
            assert callbacks, f"{tool.__name__} publishes on commit, not before"
            for callback in callbacks:
                callback()
            heard = on_loop(layer.receive(lobby))
            assert heard["update"] == {"table": table.pk, "seats_taken": 0, "seats_playing": 0}
    finally:
        on_loop(layer.group_discard(LOBBY_GROUP, lobby))
        loop.call_soon_threadsafe(loop.stop)
        listener.join(timeout=10)
        loop.close()


# -- waiting lists


@pytest.fixture
def waiting():
    """A full two-seat table and three players on its list, in the order cat, dan, eve."""
    table = make_table(max_seats=2, next_hand_delay_seconds=3600)
    seated = [make_seated_player(table, name, n) for n, name in ((1, "ann"), (2, "ben"))]
    listed = [make_funded_player(name) for name in ("cat", "dan", "eve")]
    for player in listed:
        services.waiting_list_join(table=table, player=player)
    return table, seated, listed


def places(table) -> list[str]:
    return [e.player.username for e in WaitingEntry.objects.filter(table=table)]


def offered(table) -> list[str]:
    entries = WaitingEntry.objects.filter(table=table, offer_expires_at__isnull=False)
    return sorted(e.player.username for e in entries)


def test_staff_remove_a_player_from_a_list_and_their_seat_offer_goes_on(waiting, manager):
    table, (ann, _), (cat, _, eve) = waiting
    staff_waiting_remove(table=table, player=eve, staff=manager, reason="asked at the desk")
    assert places(table) == ["cat", "dan"]
    services.table_leave(table=table, player=ann)
    assert offered(table) == ["cat"]
    staff_waiting_remove(table=table, player=cat, staff=manager, reason="left the room")
    assert places(table) == ["dan"] and offered(table) == ["dan"]
    records = AuditRecord.objects.filter(action="staff.waiting_remove").order_by("id")
    assert [(r.payload["player"], r.payload["before"]) for r in records] == [
        (eve.pk, {"place": 3, "offered": False}),
        (cat.pk, {"place": 1, "offered": True}),
    ]
    assert records[1].actor == manager and records[1].reason == "left the room"
    with pytest.raises(services.TableError) as refused:
        staff_waiting_remove(table=table, player=cat, staff=manager, reason="again")
    assert refused.value.code == "not_waiting"
    assert AuditRecord.objects.filter(action="staff.waiting_remove").count() == 2


def test_staff_move_a_player_up_or_down_a_list_with_a_reason(waiting, manager):
    table, (ann, _), (cat, _, eve) = waiting
    assert staff_waiting_move(table=table, player=eve, staff=manager, reason="x", place=1) == 3
    assert places(table) == ["eve", "cat", "dan"]
    assert waiting_position(table=table, player=eve) == 1
    assert staff_waiting_move(table=table, player=eve, staff=manager, reason="y", place=2) == 1
    assert places(table) == ["cat", "eve", "dan"]
    staff_waiting_move(table=table, player=cat, staff=manager, reason="z", place=9)  # the end
    assert places(table) == ["eve", "dan", "cat"]
    # The seat that frees goes to the new head of the list.
    services.table_leave(table=table, player=ann)
    assert offered(table) == ["eve"]
    moves = AuditRecord.objects.filter(action="staff.waiting_move").order_by("id")
    assert [(m.payload["before"], m.payload["after"], m.reason) for m in moves] == [
        ({"place": 3}, {"place": 1}, "x"),
        ({"place": 1}, {"place": 2}, "y"),
        ({"place": 1}, {"place": 3}, "z"),
    ]
    for place, code in ((1, "same_place"), (0, "bad_place")):
        with pytest.raises(services.TableError) as refused:
            staff_waiting_move(table=table, player=eve, staff=manager, reason="r", place=place)
        assert refused.value.code == code
    with pytest.raises(services.TableError) as refused:
        staff_waiting_move(table=table, player=eve, staff=manager, reason=" ", place=2)
    assert refused.value.code == "reason_required"
    assert places(table) == ["eve", "dan", "cat"] and moves.count() == 3


def test_staff_offer_a_seat_by_hand_out_of_turn(waiting, manager):
    table, (ann, ben), (cat, dan, eve) = waiting
    with pytest.raises(services.TableError) as refused:
        staff_seat_offer(table=table, player=eve, staff=manager, reason="vip")
    assert refused.value.code == "no_free_seat"
    services.table_leave(table=table, player=ann)
    assert offered(table) == ["cat"]
    # The only free seat is offered to cat: it is withdrawn from her, she keeps her place.
    assert staff_seat_offer(table=table, player=eve, staff=manager, reason="vip") == cat.pk
    assert offered(table) == ["eve"] and places(table) == ["cat", "dan", "eve"]
    with pytest.raises(services.TableError) as refused:
        staff_seat_offer(table=table, player=eve, staff=manager, reason="again")
    assert refused.value.code == "already_offered"
    record = AuditRecord.objects.get(action="staff.seat_offer")
    assert record.payload["player"] == eve.pk and record.payload["withdrawn"] == cat.pk
    assert record.payload["place"] == 3 and record.reason == "vip"
    # Eve declines: the seat goes back to the head of the list.
    services.waiting_list_leave(table=table, player=eve)
    assert offered(table) == ["cat"]
    # A second free seat nobody holds: offered by hand with nothing withdrawn.
    services.table_leave(table=table, player=ben)
    assert offered(table) == ["cat", "dan"]
    services.waiting_list_join(table=table, player=eve)
    assert offered(table) == ["cat", "dan"]
    assert staff_seat_offer(table=table, player=eve, staff=manager, reason="r") == dan.pk
    assert offered(table) == ["cat", "eve"]


def test_waiting_tools_refuse_players(waiting):
    table, _, (cat, dan, _) = waiting
    for tool in (staff_waiting_remove, staff_seat_offer):
        with pytest.raises(services.TableError) as refused:
            tool(table=table, player=dan, staff=cat, reason="me first")
        assert refused.value.code == "not_staff"
    with pytest.raises(services.TableError):
        staff_waiting_move(table=table, player=cat, staff=cat, reason="me first", place=1)
    assert places(table) == ["cat", "dan", "eve"]
    assert not AuditRecord.objects.filter(action__startswith="staff.").exists()


def test_staff_never_use_a_table_tool_on_their_own_account(waiting, manager):
    """A table manager who also plays may not lift their own bar, move up the list, offer
    themselves a seat or take themselves off a list or a seat (docs/operations.md: no role
    acts on its own account); each is refused and nothing is written."""
    table, (ann, _), _ = waiting
    other = make_staff("tm2", "table managers")
    wallet_deposit(player=manager, amount=100_000, idempotency_key="tm-plays")
    services.waiting_list_join(table=table, player=manager)  # fourth in line
    services.table_leave(table=table, player=ann)  # cat holds the offer of seat 1
    attempts = (
        lambda: staff_waiting_move(table=table, player=manager, staff=manager, reason="r", place=1),
        lambda: staff_seat_offer(table=table, player=manager, staff=manager, reason="r"),
        lambda: staff_waiting_remove(table=table, player=manager, staff=manager, reason="r"),
    )
    for attempt in attempts:
        with pytest.raises(services.TableError) as refused:
            attempt()
        assert refused.value.code == "own_account"
    assert places(table) == ["cat", "dan", "eve", "tm"] and offered(table) == ["cat"]
    elsewhere = make_table()
    services.table_sit(table=elsewhere, player=manager, seat_number=1,
                       buy_in=elsewhere.max_buy_in, post_big_blind=False,
                       idempotency_key="tm-sits")  # fmt: skip
    with pytest.raises(services.TableError) as refused:
        staff_seat_remove(seat=Seat.objects.get(player=manager), staff=manager, reason="r")
    assert refused.value.code == "own_account"
    staff_seat_remove(seat=Seat.objects.get(player=manager), staff=other, reason="abuse")
    bar = manager.table_bars.get()
    with pytest.raises(services.TableError) as refused:
        staff_table_bar_lift(bar=bar, staff=manager, reason="r")
    assert refused.value.code == "own_account"
    assert staff_table_bar_lift(bar=bar, staff=other, reason="appeal").lifted_by == other
    own = AuditRecord.objects.filter(action__startswith="staff.", actor=manager)
    assert not own.exists()
