"""A table change's plain SQL against the ORM: its two plain-SQL reads give what their
querysets give; a mid-hand action's writes
are one plain-SQL statement (poker/services/action_write.py) for models with no save
receivers, anything else ordinary ORM writes (`save()` with its signals); the table's row is
written last and fenced."""

import pytest
from django.db import connection
from django.db.models import Q
from django.db.models.signals import pre_save
from django.test.utils import CaptureQueriesContext

from cashier.models import Account
from cashier.selectors import table_stacks_and_wallets
from config import leases
from poker import services
from poker.models import Hand, HandEvent, HandPlayer, Seat, Table
from poker.services import TableError, action_write, unit
from poker.services.unit import peek
from tests.factories import deal_hand, make_funded_player, make_seated_player, make_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def table():
    table = make_table(next_hand_delay_seconds=3600)
    for n in (1, 2, 3):
        make_seated_player(table, f"rw{n}", n)
    deal_hand(table)
    return table


def loaded(obj) -> dict:
    """A model instance as loaded: its column values, and whether it is a stored row."""
    values = {
        field.attname: getattr(obj, field.attname) for field in type(obj)._meta.concrete_fields
    }
    return {"model": type(obj), "values": values, "adding": obj._state.adding}


def test_the_table_lock_reads_the_row_the_orm_reads(table):
    locked = unit.lock_table(table.pk)
    assert loaded(locked) == loaded(Table.objects.get(pk=table.pk))
    assert loaded(unit.lock_table(table)) == loaded(locked)  # a row or its id
    for missing in (10**9, None, "1", True):
        with pytest.raises(TableError) as refused:
            unit.lock_table(missing)
        assert refused.value.code == "no_table"


def test_the_stacks_and_wallets_read_gives_what_its_queryset_gives(table):
    owners = sorted(Seat.objects.filter(table=table).values_list("player_id", flat=True))
    outsider = make_funded_player("outsider")
    broke = make_funded_player("broke", cents=0)  # no wallet row yet: 0
    cases = [owners, owners[:1], [*owners, outsider.pk, broke.pk], []]
    for wallet_owners in cases:
        rows = Account.objects.filter(
            Q(kind=Account.Kind.TABLE_STACK, table_id=table.pk, balance__gt=0)
            | Q(kind=Account.Kind.WALLET, owner_id__in=wallet_owners)
        ).values_list("kind", "owner_id", "balance")
        stacks = {owner: cents for kind, owner, cents in rows if kind == "table_stack"}
        wallets = dict.fromkeys(wallet_owners, 0)
        wallets.update({owner: cents for kind, owner, cents in rows if kind == "wallet"})
        assert table_stacks_and_wallets(table=table, wallet_owner_ids=wallet_owners) == (
            stacks,
            wallets,
        )
        assert len(stacks) == 3 and all(stacks.values())


def test_the_models_an_action_writes_in_one_statement_have_no_save_receivers():
    """The one statement skips `save()` and its signals: a `pre_save` or `post_save` receiver
    added to one of these models sends an action's writes back to the ORM path (the next
    test) and raises the statement counts (tests/poker/test_round_trips.py); this says so
    first. Moving such a receiver elsewhere, or dropping the model from the statement, is
    the fix."""
    assert {HandEvent, Hand, HandPlayer, Table} == set(action_write.MODELS)
    for model in action_write.MODELS:
        assert action_write.receivers(model) == [], model.__name__


def action_of(table) -> tuple[dict, Hand]:
    players = {seat.number: seat.player for seat in Seat.objects.filter(table=table)}
    return players, Hand.objects.with_deck().get(table=table, status="running")


def test_a_mid_hand_action_s_writes_are_one_statement_storing_what_the_engine_did(table):
    players, row = action_of(table)
    before = Table.objects.get(pk=table.pk)
    events_before = HandEvent.objects.filter(hand=row).count()
    with CaptureQueriesContext(connection) as statements:
        services.table_act(
            table=table, player=players[peek(row).to_act], action="call", amount=None,
            turn=row.turn, seq=7,
        )  # fmt: skip
    writes = [
        query["sql"]
        for query in statements.captured_queries
        if query["sql"].startswith(("INSERT", "UPDATE", "WITH"))
    ]
    assert len(writes) == 1 and writes[0].startswith("WITH fenced AS (UPDATE")
    stored = Hand.objects.with_deck().get(pk=row.pk)
    engine = unit.load(stored)  # the snapshot is what its setup, deck and logged events give
    assert stored.turn == row.turn + 1 and stored.status == "running"
    logged = list(HandEvent.objects.filter(hand=row).order_by("seq"))
    assert len(logged) > events_before
    assert [(e.seq, e.kind, e.payload) for e in logged] == [
        (k, event["type"], event) for k, event in enumerate(engine.events)
    ]
    assert all(e.created_at is not None for e in logged)
    acted = HandPlayer.objects.get(hand=row, player=players[peek(row).to_act])
    assert acted.last_seq == 7
    after = Table.objects.get(pk=table.pk)
    assert after.version == before.version + 1
    assert after.lease_owner == leases.process_identity()
    assert after.lease_expires_at is not None


def test_a_stale_fence_refuses_the_one_statement_and_nothing_of_it_stays(table):
    """Another process took the lease after this change locked and read the table: the
    statement's fenced part updates no row, so its other parts write nothing and it returns
    no row: `StaleOwner`, the transaction rolls back."""
    from django.db import transaction
    from django.db.models import F

    _, row = action_of(table)
    seat = peek(row).to_act
    events_before = HandEvent.objects.filter(hand=row).count()
    with (
        transaction.atomic(),
        CaptureQueriesContext(connection) as statements,
        pytest.raises(leases.StaleOwner),
        unit.table_change(table.pk) as change,
    ):
        Table.objects.filter(pk=table.pk).update(
            lease_owner="another-host:1:feed", lease_epoch=F("lease_epoch") + 1
        )
        hand_row = change.running_hand()
        assert hand_row is not None
        engine = change.engine_of(hand_row)
        since = len(engine.events)
        engine.act(seat, engine.default_action())
        change.save_later(hand_row.last_seq_set(seat, 5), ["last_seq"])
        change.hand(hand_row, engine, since)
    sql = [query["sql"] for query in statements.captured_queries]
    assert sum(s.startswith("WITH fenced AS") for s in sql) == 1, "it was sent"
    assert not any(
        s.startswith(('INSERT INTO "poker_handevent"', 'UPDATE "poker_hand"')) for s in sql
    )
    assert HandEvent.objects.filter(hand=row).count() == events_before
    stored = Hand.objects.get(pk=row.pk)
    assert (stored.turn, stored.state) == (row.turn, row.state)
    assert HandPlayer.objects.get(hand=row, seat=seat).last_seq == 0


def test_an_action_s_writes_go_through_save_and_its_signals_when_a_model_has_receivers(table):
    """With a `pre_save` receiver on the hand and the player's row, the action's writes go by
    `save()`, so the receiver sees them (db_batch skipped it on PostgreSQL only); the deck is
    not written again."""
    saved: list[tuple[str, frozenset | None]] = []

    def receiver(sender, instance, update_fields=None, **kwargs):
        saved.append((sender.__name__, update_fields))

    players = {seat.number: seat.player for seat in Seat.objects.filter(table=table)}
    row = Hand.objects.with_deck().get(table=table, status="running")
    pre_save.connect(receiver, sender=Hand, dispatch_uid="test-rw-hand")
    pre_save.connect(receiver, sender=HandPlayer, dispatch_uid="test-rw-player")
    try:
        services.table_act(
            table=table, player=players[peek(row).to_act], action="call", amount=None,
            turn=row.turn, seq=1,
        )  # fmt: skip
    finally:
        pre_save.disconnect(sender=Hand, dispatch_uid="test-rw-hand")
        pre_save.disconnect(sender=HandPlayer, dispatch_uid="test-rw-player")
    assert ("HandPlayer", frozenset({"last_seq"})) in saved
    [(_, hand_fields)] = [entry for entry in saved if entry[0] == "Hand"]
    assert hand_fields is not None and "state" in hand_fields and "turn" in hand_fields
    assert not hand_fields & {"deck", "setup", "table", "number"}, "written once, by the deal"


def test_several_rows_of_a_model_are_one_update(table):
    """A hand's end saves every player's result: one `bulk_update` of the fields the rows
    were saved for, not a statement per player."""
    hand = Hand.objects.get(table=table, status="running")
    rows = list(HandPlayer.objects.filter(hand=hand).order_by("seat"))
    for k, row in enumerate(rows):
        row.net = 10 * (k + 1)
    rows[0].last_seq = 9
    with CaptureQueriesContext(connection) as statements:
        unit.rows_save([(rows[0], ["last_seq", "net"]), *((row, ["net"]) for row in rows[1:])])
    assert len(statements.captured_queries) == 1
    stored = dict(HandPlayer.objects.filter(hand=hand).values_list("seat", "net"))
    assert stored == {row.seat: 10 * (k + 1) for k, row in enumerate(rows)}
    assert HandPlayer.objects.get(pk=rows[0].pk).last_seq == 9
    with CaptureQueriesContext(connection) as statements:
        unit.rows_save([])
    assert statements.captured_queries == []
