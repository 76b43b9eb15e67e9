"""A change from the owner's memory (poker/services/unit.py `table_apply`): at a table this
process holds and remembers, no read of the table and no row lock; a mid-hand action is one
fenced statement in autocommit, no transaction, and a hand's end one transaction; a write the
fence refuses (another process changed the table, took its lease, or staff edited its
settings) writes nothing, and the command runs again under the lock from the database, where
it is applied once or refused as the rules say; so does a refusal, or a change with nothing
to write, from the memory.

These tests commit (`transaction=True`): the memory is kept on commit, and a mid-hand action
is one statement only outside a transaction."""

import json
import threading
import time
from datetime import timedelta

import psycopg
import pytest
from django.db import connection, connections
from django.utils import timezone

from config import leases
from poker import broadcast
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, HandEvent, Seat, Table
from poker.selectors import table_seats
from poker.services import TableError, table_act, unit
from tests.factories import deal_hand, make_seated_player, make_table
from tests.poker.table_memory import Replays, assert_memory_is_the_database, running

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def three_handed():
    table = make_table(max_seats=3, next_hand_delay_seconds=3600)
    players = {n: make_seated_player(table, f"u{n}", n) for n in (1, 2, 3)}
    deal_hand(table)
    return table, players


class Statements:
    """Every statement sent while it is on (but savepoints): its SQL, and whether a
    transaction was open."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, bool]] = []

    def __call__(self, execute, sql, params, many, context):
        if sql.startswith(("SAVEPOINT", "RELEASE SAVEPOINT")):
            return execute(sql, params, many, context)
        idle = context["connection"].connection.info.transaction_status
        in_transaction = idle != psycopg.pq.TransactionStatus.IDLE
        self.sent.append((sql, in_transaction or context["connection"].in_atomic_block))
        return execute(sql, params, many, context)

    def writes(self) -> list[tuple[str, bool]]:
        return [(sql, tx) for sql, tx in self.sent if sql.startswith("WITH fenced AS")]


def action(table: Table, players: dict, statements: Statements | None = None, **change):
    """The player to act calls (or checks) with the next seq, counted by `statements`; returns
    the hand before the action."""
    hand = running(table)
    engine = EngineHand.from_dict(hand.state)
    kind = "call" if engine.legal_actions().call else "check"
    arguments = {
        "table": table.pk,
        "player": players[engine.to_act],
        "action": kind,
        "amount": None,
        "turn": hand.turn,
        "seq": hand.turn,
        **change,
    }
    if statements is None:
        table_act(**arguments)
    else:
        with connection.execute_wrapper(statements):
            table_act(**arguments)
    return hand


def elsewhere(sql: str, params: list) -> None:
    """Another process writes the table (its own connection, committed at once)."""
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute(sql, params)
    finally:
        other.close()


def assert_applied_once(before: Hand, table: Table) -> None:
    """The action of `before`'s turn is in the log once, and the hand moved one turn."""
    after = Hand.objects.get(pk=before.pk)
    assert after.turn == before.turn + 1
    logged = list(HandEvent.objects.filter(hand=before).order_by("seq"))
    assert [e.seq for e in logged] == list(range(len(logged))), "nothing written twice"
    assert [e.payload for e in logged] == after.state["events"]
    acted = [e for e in logged[len(before.state["events"]) :] if e.kind == "action"]
    assert len(acted) == 1
    assert_memory_is_the_database(table)


def test_a_mid_hand_action_at_a_remembered_table_is_one_statement_and_no_transaction(
    three_handed,
):
    table, players = three_handed
    for _ in range(3):
        statements = Statements()
        before = action(table, players, statements)
        assert len(statements.sent) == 1, [sql[:80] for sql, _ in statements.sent]
        [(sql, in_transaction)] = statements.sent
        assert sql.startswith("WITH fenced AS"), "the one fenced write, which reads the money"
        assert not in_transaction, "autocommit: no BEGIN, no COMMIT"
        assert "FOR UPDATE" not in sql
        assert_applied_once(before, table)
    stored = Table.objects.get(pk=table.pk)
    assert stored.lease_owner == leases.process_identity()
    assert stored.lease_expires_at > timezone.now()


def test_the_frames_and_the_timer_show_what_was_written_and_leave_in_order(
    three_handed, monkeypatch
):
    """The frames sent are the ones a fresh read of the database builds, then the turn's
    timeout is sent, as the locked path's commit does."""
    from config import timeouts

    table, players = three_handed
    sent: list[tuple[str, object]] = []
    monkeypatch.setattr(broadcast, "send", lambda **kw: sent.append(("frames", kw)))
    monkeypatch.setattr(timeouts, "timeouts_send", lambda items: sent.append(("timer", items)))
    statements = Statements()
    before = action(table, players, statements)
    assert len(statements.sent) == 1
    assert [kind for kind, _ in sent] == ["frames", "timer"]
    frames = sent[0][1]["frames"]  # type: ignore[index]
    stored = Hand.objects.with_deck().with_players().get(pk=before.pk)
    actor = players[EngineHand.from_dict(before.state).to_act]
    fresh = broadcast.frames_for_change(
        table=Table.objects.get(pk=table.pk),
        events=[],
        hand_row=stored,
        engine=unit.load(stored),
        since=len(before.state["events"]),
        extra_user_ids={actor.pk},
        seats=table_seats(table_id=table.pk),
        seats_fresh=True,
    )
    # The events' keys come back from the log in jsonb's order: compare what they say.
    assert json.loads(frames["public"]) == json.loads(fresh["public"])
    assert {user: json.loads(text) for user, text in frames["private"].items()} == {
        user: json.loads(text) for user, text in fresh["private"].items()
    }
    assert frames["version"] == Table.objects.get(pk=table.pk).version
    [timeout] = sent[1][1]  # type: ignore[misc]
    assert (timeout.kind, timeout.ref_id, timeout.step) == ("poker.turn", stored.pk, stored.turn)


def test_a_version_moved_by_another_process_refuses_the_write_and_the_lock_applies_it_once(
    three_handed,
):
    table, players = three_handed
    action(table, players)
    version = Table.objects.get(pk=table.pk).version
    elsewhere("UPDATE poker_table SET version = version + 1 WHERE id = %s", [table.pk])
    statements = Statements()
    before = action(table, players, statements)
    writes = statements.writes()
    assert [tx for _, tx in writes] == [False, True], "refused without the lock, then locked"
    assert statements.sent[1][0].endswith("FOR UPDATE")
    assert Table.objects.get(pk=table.pk).version == version + 2
    assert_applied_once(before, table)


def test_an_action_another_process_already_made_is_refused_under_the_lock(three_handed):
    """This process remembers the table; another process takes the same player's action (the
    page sent it twice); this process's copy is stale: its write is refused, and under the lock
    the action is a duplicate, so nothing is written twice."""
    table, players = three_handed
    action(table, players)
    remembered = assert_memory_is_the_database(table)
    unit.memory_forget(table.pk)
    before = action(table, players)  # "the other process": no memory, so under the lock
    after = running(table)
    events = HandEvent.objects.filter(hand=before).count()
    unit.memory_forget(table.pk)
    unit.memory_keep(table.pk, remembered)  # this process's copy, one action behind
    seat = EngineHand.from_dict(before.state).to_act
    for seq, code in ((before.turn, "duplicate_seq"), (before.turn + 1, "stale_turn")):
        statements = Statements()
        with pytest.raises(TableError) as refused, connection.execute_wrapper(statements):
            table_act(
                table=table.pk, player=players[seat], action="call", amount=None,
                turn=before.turn, seq=seq,
            )  # fmt: skip
        assert refused.value.code == code
        unit.memory_keep(table.pk, remembered)  # stale again for the second try
    assert HandEvent.objects.filter(hand=before).count() == events
    assert running(table).turn == after.turn
    unit.memory_forget(table.pk)
    action(table, players)
    assert_memory_is_the_database(table)


@pytest.mark.parametrize(
    "change",
    [
        "lease_epoch = lease_epoch + 1, lease_owner = 'owner|elsewhere:1|x'",
        "lease_expires_at = now() - interval '1 second'",
    ],
    ids=["another process took the lease", "the lease lapsed"],
)
def test_a_lease_that_moved_refuses_the_write_and_the_lock_takes_the_next_epoch(
    three_handed, change
):
    table, players = three_handed
    action(table, players)
    elsewhere(f"UPDATE poker_table SET {change} WHERE id = %s", [table.pk])
    epoch = Table.objects.get(pk=table.pk).lease_epoch
    statements = Statements()
    before = action(table, players, statements)
    assert [tx for _, tx in statements.writes()] == [False, True]
    stored = Table.objects.get(pk=table.pk)
    assert (stored.lease_owner, stored.lease_epoch) == (leases.process_identity(), epoch + 1)
    assert_applied_once(before, table)


def test_a_setting_staff_edited_refuses_the_write_and_applies_at_once(three_handed):
    """The admin writes a table's settings without a new version (poker/admin.py): the fence
    names them, so the next turn's clock already uses the new time to act."""
    table, players = three_handed
    action(table, players)
    elsewhere("UPDATE poker_table SET action_seconds = 47 WHERE id = %s", [table.pk])
    statements = Statements()
    action(table, players, statements)
    assert [tx for _, tx in statements.writes()] == [False, True]
    hand = running(table)
    normal = hand.time_bank_from or hand.deadline
    actor = Seat.objects.get(table=table, number=EngineHand.from_dict(hand.state).to_act)
    grace = 0 if actor.connected else table.disconnect_grace_seconds
    assert normal - hand.action_started_at == timedelta(seconds=47 + grace)
    statements = Statements()
    action(table, players, statements)  # remembered again, with the new setting
    assert len(statements.sent) == 1


def test_a_write_waiting_on_a_change_that_moves_the_version_is_refused(three_handed):
    """A change elsewhere holds the table's row when the statement arrives: the statement
    waits for it, then finds the version moved on, writes nothing, and the lock applies it."""
    table, players = three_handed
    action(table, players)
    version = Table.objects.get(pk=table.pk).version
    settings = connection.settings_dict
    other = psycopg.connect(
        host=settings["HOST"], port=settings["PORT"] or 5432, user=settings["USER"],
        password=settings["PASSWORD"], dbname=settings["NAME"],
    )  # fmt: skip
    other.execute("UPDATE poker_table SET version = version + 1 WHERE id = %s", [table.pk])
    committer = threading.Thread(target=lambda: (time.sleep(0.3), other.commit()))
    committer.start()
    try:
        statements = Statements()
        before = action(table, players, statements)
    finally:
        committer.join()
        other.close()
    assert [tx for _, tx in statements.writes()] == [False, True]
    assert Table.objects.get(pk=table.pk).version == version + 2
    assert_applied_once(before, table)


def test_the_action_that_ends_the_hand_is_one_transaction_from_the_memory(
    three_handed, monkeypatch
):
    """The hand's end and its ledger entries: one transaction, no lock, the seats and the
    hand recalled (nothing replayed), the table's write fenced."""
    table, players = three_handed
    first = running(table)
    replays = Replays(monkeypatch)
    for _ in range(40):
        statements = Statements()
        action(table, players, statements)
        if Hand.objects.get(pk=first.pk).status != Hand.Status.RUNNING:
            break
        assert len(statements.sent) == 1
    assert Hand.objects.get(pk=first.pk).status == Hand.Status.FINISHED
    assert replays.count == 0
    assert statements.writes() == [], "the hand's end writes through the ORM"
    assert all(tx for _, tx in statements.sent), "all of it in one transaction"
    locks = [sql for sql, _ in statements.sent if "FOR UPDATE" in sql]
    assert not any("poker_table" in sql.split("FROM", 1)[-1][:40] for sql in locks), locks
    assert not any('FROM "poker_seat"' in sql for sql, _ in statements.sent)
    fenced = [sql for sql, _ in statements.sent if sql.startswith('UPDATE "poker_table"')]
    assert len(fenced) == 1 and '"lease_expires_at" >' in fenced[0], "fenced, lease live"
    monkeypatch.undo()
    assert_memory_is_the_database(table)


def test_a_refused_action_is_decided_under_the_lock(three_handed):
    """A refusal from the remembered table may come from a stale copy: it is made again under
    the lock, which decides from the database."""
    table, players = three_handed
    action(table, players)
    statements = Statements()
    with pytest.raises(TableError) as refused:
        action(table, players, statements, action="raise", amount=1)
    assert refused.value.code == "amount_too_small"
    assert statements.sent and statements.sent[0][0].endswith("FOR UPDATE")
    assert statements.writes() == []


def test_inside_a_transaction_the_action_is_the_one_write_in_it(three_handed):
    from django.db import transaction

    table, players = three_handed
    action(table, players)
    statements = Statements()
    with transaction.atomic():
        before = action(table, players, statements)
    assert len(statements.sent) == 1
    assert [tx for _, tx in statements.writes()] == [True]
    assert_applied_once(before, table)


def test_a_change_that_reads_before_it_writes_is_one_transaction_from_the_memory(three_handed):
    table, players = three_handed
    action(table, players)
    statements = Statements()
    seen: list[int] = []

    def look_and_show(change):
        seen.append(Seat.objects.filter(table_id=change.table.pk).count())
        change.touch()

    with connection.execute_wrapper(statements):
        unit.table_apply(table.pk, look_and_show)
    assert seen == [3]
    assert all(tx for _, tx in statements.sent)
    assert not any("FOR UPDATE" in sql for sql, _ in statements.sent)
    assert_memory_is_the_database(table)


def test_a_change_with_nothing_to_write_is_decided_again_under_the_lock(three_handed):
    """The fence checks what the memory writes, not what it leaves alone: a change from the
    memory that writes nothing (a deal the table is not ready for) is made again from the
    database, with the memory put back (and recalled there, being current, and kept)."""
    table, players = three_handed
    action(table, players)
    memory = unit.memory_peek(table.pk)
    assert memory is not None
    statements = Statements()
    seen: list[bool] = []
    with connection.execute_wrapper(statements):
        unit.table_apply(table.pk, lambda change: seen.append(change.recalled))
    assert seen == [True, True]
    assert [sql.endswith("FOR UPDATE") for sql, _ in statements.sent] == [True]
    assert unit.memory_peek(table.pk) is memory, "nothing done: still what the table is"


def test_the_deal_that_is_due_is_made_from_the_memory_without_the_lock():
    """The owner that ended a hand deals the next one when it is due (its timer) from what it
    remembers: no table lock, no read of the seats, the table's write fenced with the lease
    live; what the memory holds afterwards is the database."""
    from poker.services import table_hand_start

    table = make_table(max_seats=3, next_hand_delay_seconds=3600)
    players = {n: make_seated_player(table, f"d{n}", n) for n in (1, 2, 3)}
    first = deal_hand(table)
    while Hand.objects.filter(pk=first.pk, status=Hand.Status.RUNNING).exists():
        action(table, players, action="fold")
    # The hour between hands has gone by, for the table as stored and as remembered (its
    # timer, an hour away, never fires here: a Celery worker may be running beside the test).
    due = timezone.now() - timedelta(seconds=1)
    Table.objects.filter(pk=table.pk).update(next_hand_at=due)
    remembered = unit.memory_peek(table.pk)
    assert remembered is not None and remembered.table is not None
    remembered.table.next_hand_at = due
    statements = Statements()
    with connection.execute_wrapper(statements):
        dealt = table_hand_start(table=table.pk)
    assert dealt is not None and dealt.pk != first.pk
    sent = [sql for sql, _ in statements.sent]
    assert not any("FOR UPDATE" in sql and "poker_table" in sql for sql in sent), sent[:2]
    assert not any('FROM "poker_seat"' in sql for sql in sent)
    # The commitment frame's version, then the deal's (its one statement): both fenced.
    [commitment] = [sql for sql in sent if sql.startswith('UPDATE "poker_table"')]
    assert '"version" = %s' in commitment.split("WHERE", 1)[1], "fenced by the version"
    assert '"lease_expires_at" >' in commitment, "and the lease live"
    assert [sql for sql, _ in statements.writes()], "the deal's write"
    assert_memory_is_the_database(table)
