"""`config.db_batch.save_together`: inserts and updates in one statement on PostgreSQL, the
same rows written one by one elsewhere (the embedded SQLite room)."""

import pytest
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from config.db_batch import save_together
from poker.models import Hand, HandEvent, Table
from tests.factories import deal_hand, make_seated_player, make_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def hand():
    table = make_table(next_hand_delay_seconds=3600)
    for n in (1, 2):
        make_seated_player(table, f"batch{n}", n)
    return Hand.objects.with_deck().get(pk=deal_hand(table).pk)


def prepared(hand: Hand) -> dict:
    """Two new events, a moved turn and a new version, not written yet."""
    events = HandEvent.objects.filter(hand=hand).count()
    new = [
        HandEvent(hand_id=hand.pk, seq=events + k, kind="note", payload={"type": "note", "k": k})
        for k in range(2)
    ]
    hand.turn = 41
    table = Table.objects.get(pk=hand.table_id)
    table.version = 77
    return {"inserts": [(HandEvent, new)], "updates": [(hand, None), (table, ["version"])]}


def assert_written(hand: Hand) -> None:
    assert Hand.objects.get(pk=hand.pk).turn == 41
    assert Table.objects.get(pk=hand.table_id).version == 77
    notes = HandEvent.objects.filter(hand=hand, kind="note").order_by("seq")
    assert [event.payload["k"] for event in notes] == [0, 1]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the one statement is PostgreSQL's")
def test_on_postgresql_everything_goes_in_one_statement(hand):
    writes = prepared(hand)
    with CaptureQueriesContext(connection) as statements:
        save_together(**writes)
    assert len(statements.captured_queries) == 1
    assert statements.captured_queries[0]["sql"].startswith("WITH w0 AS (INSERT")
    assert_written(hand)


def test_elsewhere_the_same_rows_are_written_one_by_one(hand, monkeypatch):
    writes = prepared(hand)
    monkeypatch.setattr(connections["default"], "vendor", "sqlite")
    with CaptureQueriesContext(connection) as statements:
        save_together(**writes)
    assert len(statements.captured_queries) == 3
    monkeypatch.undo()
    assert_written(hand)


def test_nothing_to_write_sends_nothing():
    with CaptureQueriesContext(connection) as statements:
        save_together()
    assert statements.captured_queries == []
