"""`config.prepared.PreparedQuery`: a read compiled once per process gives exactly what its
queryset gives (the same objects, related objects and annotations, or the same tuples), for
every read a table change makes (issue 12), with the SQL built once."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cashier.selectors import stacks_and_wallets_read, table_stacks_read
from config.prepared import PreparedQuery
from poker.models import Seat, Table
from poker.selectors import table_seats_read
from poker.services.unit import running_hand_read, table_lock_read
from tests.factories import deal_hand, make_seated_player, make_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def table():
    table = make_table(next_hand_delay_seconds=3600)
    for n in (1, 2, 3):
        make_seated_player(table, f"prep{n}", n)
    deal_hand(table)
    return table


def loaded(obj) -> dict:
    """A model instance as loaded: its field values and the related objects it carries."""
    values = {key: value for key, value in vars(obj).items() if key != "_state"}
    cached = {
        name: None if rel is None else loaded(rel) for name, rel in obj._state.fields_cache.items()
    }
    return {"model": type(obj), "values": values, "related": cached, "adding": obj._state.adding}


def test_every_read_of_a_table_change_equals_its_queryset(table):
    owners = list(Seat.objects.filter(table=table).values_list("player_id", flat=True))
    cases = [
        (table_lock_read, {"table_id": table.pk}),
        (table_seats_read, {"table_id": table.pk}),
        (running_hand_read, {"table_id": table.pk}),
        (stacks_and_wallets_read, {"table_id": table.pk, "owner_ids": owners}),
        (stacks_and_wallets_read, {"table_id": table.pk, "owner_ids": owners[:1]}),
        (table_stacks_read, {"table_id": table.pk}),
    ]
    for read, values in cases:
        prepared = read(**values)
        plain = list(read.queryset(**values))
        assert prepared, read
        if isinstance(plain[0], tuple):
            assert sorted(prepared) == sorted(plain)
        else:
            assert [loaded(row) for row in prepared] == [loaded(row) for row in plain]
    hand = running_hand_read(table_id=table.pk)[0]
    assert hand.deck, "the running hand's read carries its deck"
    assert sorted(hand.seated_players()) == [1, 2, 3], "and its players' rows"
    seat = table_seats_read(table_id=table.pk)[0]
    assert "player" in seat._state.fields_cache, "the player came with the seat"
    assert "profile" in seat.player._state.fields_cache, "and their profile (or its absence)"


def test_the_sql_is_built_once_and_run_with_each_calls_values(table):
    other = make_table(name="Other", next_hand_delay_seconds=3600)
    read = PreparedQuery(lambda table_id: Table.objects.filter(pk=table_id))
    assert [row.pk for row in read(table_id=table.pk)] == [table.pk]
    assert [row.pk for row in read(table_id=other.pk)] == [other.pk]
    assert read(table_id=10**9) == []
    assert len(read._compiled) == 1
    with CaptureQueriesContext(connection) as statements:
        read(table_id=other.pk)
    assert len(statements.captured_queries) == 1


def test_a_list_compiles_once_per_length_and_an_empty_one_reads_nothing(table):
    owners = sorted(Seat.objects.filter(table=table).values_list("player_id", flat=True))
    read = PreparedQuery(
        lambda ids: Seat.objects.filter(player_id__in=ids).values_list("player_id", "number")
    )
    assert sorted(p for p, _ in read(ids=owners)) == owners
    assert [p for p, _ in read(ids=owners[1:2])] == owners[1:2]
    assert [p for p, _ in read(ids=owners[:1])] == owners[:1]
    assert len(read._compiled) == 2
    with CaptureQueriesContext(connection) as statements:
        assert read(ids=[]) == []
    assert not statements.captured_queries


def test_a_query_that_drops_a_parameter_is_refused():
    read = PreparedQuery(lambda table_id: Table.objects.filter(name="a name, not the id"))
    with pytest.raises(ValueError, match="lost the parameters"):
        read(table_id=1)


def test_a_string_parameter_is_swapped_like_an_id(table):
    read = PreparedQuery(
        lambda status, table_id: Seat.objects.filter(status=status, table_id=table_id)
    )
    assert len(read(status="playing", table_id=table.pk)) == 3
    assert read(status="sitting_out", table_id=table.pk) == []
    assert len(read._compiled) == 1
