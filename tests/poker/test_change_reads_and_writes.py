"""What replaced `config/prepared.py` and `config/db_batch.py` (issue 23 item 6): a table
change's two plain-SQL reads give what their querysets give, and its writes are ordinary ORM
writes (`save()` with its signals, on PostgreSQL as on SQLite), the table's row last and
fenced."""

import pytest
from django.db import connection
from django.db.models import Q
from django.db.models.signals import pre_save
from django.test.utils import CaptureQueriesContext

from cashier.models import Account
from cashier.selectors import table_stacks_and_wallets
from poker import services
from poker.models import Hand, HandPlayer, Seat, Table
from poker.services import TableError, unit
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


def test_an_action_s_writes_go_through_save_and_its_signals(table):
    """The hand and the player's seq are saved by `save()`, so a `pre_save` receiver sees
    them (db_batch skipped it on PostgreSQL only); the deck is not written again."""
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
