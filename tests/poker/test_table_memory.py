"""The table in memory between actions (poker/services/unit.py): an action
recalls the seats, the hand and its engine of the change before it, at the same version only;
what the memory holds is always what the database holds; a writer that changed the table in
another process (without this process's memory knowing) is noticed by the version, and a
rolled-back change leaves nothing to recall.

These tests commit (`transaction=True`): the memory is kept on commit."""

import os
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from config import leases
from poker import services
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, Seat, Table
from poker.services import TableError, unit
from poker.services.staff import staff_seat_remove
from tests.factories import (
    act_for_the_player_to_act,
    deal_hand,
    make_seated_player,
    make_staff,
    make_table,
)
from tests.poker.table_memory import Replays, assert_memory_is_the_database, running

pytestmark = pytest.mark.django_db(transaction=True)


def act(table: Table, players: dict, action: str = "call") -> None:
    """The player to act calls (or checks, or `action`) with the next seq."""
    hand = running(table)
    if action == "call" and not EngineHand.from_dict(hand.state).legal_actions().call:
        action = "check"
    act_for_the_player_to_act(hand, players, action)


@pytest.fixture
def three_handed():
    table = make_table(max_seats=3)  # full: a newcomer joins the waiting list
    players = {n: make_seated_player(table, f"p{n}", n) for n in (1, 2, 3)}
    deal_hand(table)
    return table, players


def test_actions_recall_the_hand_and_replay_it_once(three_handed, monkeypatch):
    table, players = three_handed
    assert_memory_is_the_database(table)  # the deal left it in memory
    replays = Replays(monkeypatch)
    act(table, players)
    act(table, players)
    assert replays.count == 0  # no load at all
    monkeypatch.undo()
    memory = assert_memory_is_the_database(table)
    assert memory.hand_known and memory.hand is not None

    unit.memory_forget(table.pk)  # a process that never saw the table: loads and checks once
    replays = Replays(monkeypatch)
    act(table, players)
    act(table, players)
    assert replays.count == 1
    monkeypatch.undo()
    assert_memory_is_the_database(table)


def test_a_recalled_hand_plays_to_its_end_and_the_next_one_is_remembered(three_handed):
    table, players = three_handed
    first = running(table)
    for _ in range(60):
        if not Hand.objects.filter(pk=first.pk, status="running").exists():
            break
        act(table, players)
        assert_memory_is_the_database(table)
    first.refresh_from_db()
    assert first.status == Hand.Status.FINISHED
    deal_hand(table)
    assert assert_memory_is_the_database(table).hand is not None
    act(table, players)
    assert_memory_is_the_database(table)


def test_a_refused_action_rolls_back_and_leaves_nothing_to_recall(three_handed, monkeypatch):
    table, players = three_handed
    act(table, players)
    hand = running(table)
    engine = EngineHand.from_dict(hand.state)
    with pytest.raises(TableError):  # a raise to less than the minimum: the engine refuses
        services.table_act(
            table=table.pk,
            player=players[engine.to_act],
            action="raise",
            amount=1,
            turn=hand.turn,
            seq=hand.turn,
        )
    assert unit.memory_peek(table.pk) is None
    replays = Replays(monkeypatch)
    act(table, players)
    assert replays.count == 1  # loaded again from the database
    monkeypatch.undo()
    assert_memory_is_the_database(table)


def test_a_change_that_fails_after_the_engine_moved_leaves_nothing_to_recall(
    three_handed, monkeypatch
):
    """The engine's hand and the rows were changed in memory, then the write failed: the
    memory must not keep those half-applied objects."""
    table, players = three_handed
    act(table, players)
    before = running(table)

    def broken(change, plan):
        raise RuntimeError("the write failed")

    monkeypatch.setattr(unit, "persist", broken)
    with pytest.raises(RuntimeError):
        act(table, players)
    monkeypatch.undo()
    assert unit.memory_peek(table.pk) is None
    after = running(table)
    assert (after.turn, after.state) == (before.turn, before.state)
    act(table, players)
    assert_memory_is_the_database(table)
    assert running(table).turn == before.turn + 1


def _connection_lost(table, players, staff):
    to_act = EngineHand.from_dict(running(table).state).to_act
    services.table_connection_set(table=table, player=players[to_act], connected=False)


def _socket_renamed(table, players, staff):
    to_act = EngineHand.from_dict(running(table).state).to_act
    services.table_connection_set(
        table=table, player=players[to_act], connected=True, socket="another-socket"
    )


def _sit_out_next_big_blind(table, players, staff):
    services.table_seat_options_set(table=table, player=players[1], sit_out_next_big_blind=True)


def _auto_top_up(table, players, staff):
    services.table_seat_options_set(table=table, player=players[2], auto_top_up=True)


def _leave_mid_hand(table, players, staff):
    to_act = EngineHand.from_dict(running(table).state).to_act
    services.table_leave(table=table, player=players[to_act])


def _staff_removal(table, players, staff):
    to_act = EngineHand.from_dict(running(table).state).to_act
    seat = Seat.objects.get(table=table, player=players[to_act])
    staff_seat_remove(seat=seat.pk, staff=staff, reason="test removal")


def _timeout(table, players, staff):
    hand = running(table)
    # The deadline passed (a test's shortcut; the timeout's own change moves the version).
    Hand.objects.filter(pk=hand.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    services.hand_turn_timeout(hand_id=hand.pk, turn=hand.turn)


def _hand_cancelled(table, players, staff):
    services.hand_cancel(hand=running(table), reason="test cancel")


def _sitting_out(table, players, staff):
    services.table_sit_out(table=table, player=players[3])


def _waiting_list(table, players, staff):
    from tests.factories import make_funded_player

    services.waiting_list_join(table=table, player=make_funded_player("waiter"))


WRITERS = {
    "connection lost": _connection_lost,
    "socket renamed": _socket_renamed,
    "sit out next big blind": _sit_out_next_big_blind,
    "auto top-up": _auto_top_up,
    "leave mid-hand": _leave_mid_hand,
    "staff removal": _staff_removal,
    "timeout": _timeout,
    "hand cancelled": _hand_cancelled,
    "sitting out": _sitting_out,
    "waiting list": _waiting_list,
}


@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_change_made_elsewhere_is_never_hidden_by_the_memory(three_handed, writer):
    """This process remembers the table; another process (here: this one, with the memory put
    back as it was, so it never saw the change) writes through a service; then this process
    acts. The memory is recalled only if it is still the database (a writer that forgets to
    bump the version fails here), and the action's result is what the database says."""
    table, players = three_handed
    staff = make_staff("tm", "table managers")
    act(table, players)
    remembered = assert_memory_is_the_database(table)
    unit.memory_forget(table.pk)
    WRITERS[writer](table, players, staff)
    connection.close()  # the other process's connection goes with it
    unit.memory_forget(table.pk)
    unit.memory_keep(table.pk, remembered)  # this process's memory, as it was

    version = Table.objects.get(pk=table.pk).version
    if version == remembered.version:  # no new version: the memory must still be true
        assert_memory_is_the_database(table)
    if Hand.objects.filter(table=table, status="running").exists():
        hand = running(table)
        act(table, players)
        after = Hand.objects.get(pk=hand.pk)
        if after.status == Hand.Status.RUNNING:
            assert after.turn == hand.turn + 1
        assert_memory_is_the_database(table)
        stored = Hand.objects.with_deck().get(pk=hand.pk)
        rebuilt = EngineHand.rebuild(stored.setup, stored.deck, stored.state["events"])
        assert rebuilt.to_dict() == EngineHand.from_snapshot(stored.state, stored.deck).to_dict()


def test_the_memory_is_the_tables_whose_lease_this_process_holds(three_handed, monkeypatch):
    """Not a cache of recent tables: a table stays while its lease does (renewed by the owner
    without a change: `memory_leases_renewed`), and one whose remembered lease lapsed is
    forgotten (another process may hold it now)."""
    from poker import owner
    from poker.services import memory as table_memory

    table, players = three_handed
    other = make_table()
    make_seated_player(other, "q1", 1)
    kept = unit.memory_peek(other.pk)
    assert kept is not None and kept.table is not None
    assert unit.memory_peek(table.pk) is not None
    before = unit.memory_peek(table.pk).table.lease_expires_at
    assert owner.leases_renew(leases.process_identity()) == 2  # both tables' leases
    renewed = Table.objects.get(pk=table.pk).lease_expires_at
    assert renewed > before
    assert unit.memory_peek(table.pk).table.lease_expires_at == renewed
    kept.table.lease_expires_at = timezone.now() - timedelta(seconds=1)  # lapsed, not renewed
    monkeypatch.setattr(table_memory, "_next_look", 0.0)
    act(table, players)
    assert unit.memory_peek(other.pk) is None, "its lease lapsed: forgotten"
    assert_memory_is_the_database(table)


def test_an_older_version_never_replaces_a_newer_one():
    newer = unit.TableMemory(version=5, seats={})
    unit.memory_keep(1, newer)
    unit.memory_keep(1, unit.TableMemory(version=4, seats={}))
    assert unit.memory_peek(1) is newer


def test_a_call_from_memory_inside_a_transaction_writes_only(three_handed):
    """Inside a caller's transaction (so not in autocommit: tests/poker/test_table_apply.py),
    one statement all the same, no lock: the one fenced write (the table's version, the event,
    the hand, the player's seq, and the stacks with the wallets for the frames:
    tests/poker/test_round_trips.py); no table, seat or hand read."""
    from django.db import transaction
    from django.test.utils import CaptureQueriesContext

    table, players = three_handed
    act(table, players)
    hand = running(table)
    engine = EngineHand.from_dict(hand.state)
    with CaptureQueriesContext(connection) as statements, transaction.atomic():
        services.table_act(
            table=table.pk, player=players[engine.to_act], action="call", amount=None,
            turn=hand.turn, seq=hand.turn,
        )  # fmt: skip
    sql = [
        q["sql"]
        for q in statements.captured_queries
        if not q["sql"].startswith(("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE SAVEPOINT"))
    ]
    assert len(sql) == 1, "\n".join(s[:120] for s in sql)
    assert sql[0].startswith("WITH fenced AS"), "the write, which reads the money too"
    assert not any('FROM "poker_seat"' in s or 'FROM "poker_hand"' in s for s in sql)
    assert_memory_is_the_database(table)


# -- slice 2: the lease and its fencing number


def test_the_process_changing_a_table_holds_its_lease_and_renews_it(three_handed):
    table, players = three_handed
    act(table, players)
    first = Table.objects.get(pk=table.pk)
    assert first.lease_owner == leases.process_identity()
    assert first.lease_expires_at > timezone.now()
    act(table, players)
    again = Table.objects.get(pk=table.pk)
    assert (again.lease_owner, again.lease_epoch) == (first.lease_owner, first.lease_epoch)
    assert again.lease_expires_at >= first.lease_expires_at


def test_another_process_taking_the_table_increments_the_epoch(three_handed, monkeypatch):
    table, players = three_handed
    act(table, players)
    remembered = assert_memory_is_the_database(table)
    held = Table.objects.get(pk=table.pk)
    monkeypatch.setattr(leases, "_identity", (os.getpid(), "another-host:1:feed"))
    unit.memory_forget(table.pk)  # that process never saw the table
    act(table, players)
    taken = Table.objects.get(pk=table.pk)
    assert taken.lease_owner == "another-host:1:feed"
    assert taken.lease_epoch == held.lease_epoch + 1
    monkeypatch.undo()
    # Back in the first process, with its memory as it was: the epoch moved on, it reloads.
    unit.memory_forget(table.pk)
    unit.memory_keep(table.pk, remembered)
    act(table, players)
    back = Table.objects.get(pk=table.pk)
    assert back.lease_epoch == held.lease_epoch + 2
    assert_memory_is_the_database(table)


def test_a_stale_owner_s_write_is_refused(three_handed):
    """The owner recalled the table under its epoch; before its write, another process took
    the lease (here by hand, inside the change: in this slice the row lock keeps anyone else
    out meanwhile, the fence is what will once owners stop taking it). The write names the
    old epoch and is refused: nothing of the change stays, and nothing is remembered."""
    from django.db.models import F

    table, players = three_handed
    act(table, players)
    before = Table.objects.get(pk=table.pk)
    hand = running(table)
    engine = EngineHand.from_dict(hand.state)
    with pytest.raises(leases.StaleOwner), unit.table_change(table.pk, recall=True) as change:
        assert change.recalled
        Table.objects.filter(pk=table.pk).update(
            lease_owner="another-host:1:feed", lease_epoch=F("lease_epoch") + 1
        )
        row = change.running_hand()
        assert row is not None
        moved = change.engine_of(row)
        since = len(moved.events)
        moved.act(engine.to_act, moved.default_action())
        change.hand(row, moved, since)
    after = Table.objects.get(pk=table.pk)
    assert (after.version, after.lease_epoch) == (before.version, before.lease_epoch)
    assert Hand.objects.get(pk=hand.pk).state == hand.state
    assert unit.memory_peek(table.pk) is None
    act(table, players)  # the table plays on, loaded afresh
    assert_memory_is_the_database(table)


def test_a_change_that_showed_the_hand_from_a_look_leaves_a_hand_that_deals_on(three_handed):
    """A change may show the running hand from a look without its deck (`peek`: the grace of
    a player to act who went away does). That look is not what the next action recalls: the
    hand plays on and deals every street (seen failing in the browser tests)."""
    table, players = three_handed
    act(table, players)  # the change before is remembered
    with unit.table_change(table.pk) as change:
        row = change.running_hand()
        look = unit.peek(row)
        assert look is not None and look.deck is None
        change.hand(row, look, len(look.events), moved=False)
    memory = unit.memory_peek(table.pk)
    assert memory is not None and (memory.engine is None or memory.engine.deck is not None)
    hand = running(table)
    for _ in range(12):  # to the river and past it: every street is dealt from the deck
        if Hand.objects.filter(pk=hand.pk, status="running").exists():
            act(table, players)
    assert Hand.objects.get(pk=hand.pk).status != "running"
    assert_memory_is_the_database(table)


def test_the_deal_after_a_hand_recalls_the_seats_and_that_no_hand_runs(three_handed):
    """The process that ended a hand (the table's owner) deals the next one without reading
    the seats or looking for a running hand; the memory it leaves is the database."""
    table, players = three_handed
    while Hand.objects.filter(table=table, status="running").exists():
        act(table, players, "fold")
    memory = assert_memory_is_the_database(table)
    assert memory.hand_known and memory.hand is None, "the hand ended, none runs"
    with CaptureQueriesContext(connection) as statements:
        dealt = deal_hand(table)
    assert dealt is not None
    sql = [query["sql"] for query in statements.captured_queries]
    assert not any('FROM "poker_seat"' in s for s in sql), "the seats are recalled"
    assert not any(s.startswith('SELECT "poker_hand"."id", "poker_hand"."table_id"') for s in sql)
    memory = assert_memory_is_the_database(table)
    assert memory.hand is not None and memory.hand.pk == dealt.pk
    act(table, players)  # the first action recalls the dealt hand
    assert_memory_is_the_database(table)
