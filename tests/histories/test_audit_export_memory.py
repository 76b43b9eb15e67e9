"""The auditors' hands exports stream: 20,000 hand-player rows go out as CSV, and their hands
as an OHH zip, with the process's memory bounded by a batch, not by the export."""

import tracemalloc

import pytest
from django.db import connection

from poker.models import Hand, HandPlayer
from tests.factories import call_down, deal_hand, make_seated_player
from tests.histories.conftest import game_table
from tests.poker.test_admin import DECK

pytestmark = pytest.mark.django_db

URL = "/api/cashier/audit/hands/"
ROWS = 20_000


@pytest.fixture
def many_hands():
    """One six-handed hand played through the services, then copied in bulk (plain INSERT
    ... SELECT: hands and their players have no guards, unlike their events and the ledger)
    until there are ROWS hand-player rows."""
    table = game_table("omaha-pot-limit")
    players = {seat: make_seated_player(table, f"p{seat}", seat) for seat in range(1, 7)}
    played = call_down(deal_hand(table, DECK), players)
    copies = ROWS // len(players) - 1 + (ROWS % len(players) > 0)
    columns = [f.column for f in Hand._meta.concrete_fields if f.column not in ("id", "number")]
    listed = ", ".join(columns)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO poker_hand (number, {listed}) "
            f"SELECT h.number + g, {', '.join(f'h.{c}' for c in columns)} "
            "FROM poker_hand h, generate_series(1, %s) g WHERE h.id = %s",
            [copies, played.pk],
        )
        cursor.execute(
            "INSERT INTO poker_handplayer (hand_id, seat, player_id, last_seq, net, position) "
            "SELECT h.id, p.seat, p.player_id, p.last_seq, p.net, p.position "
            "FROM poker_hand h JOIN poker_handplayer p ON p.hand_id = %s "
            "WHERE h.table_id = %s AND h.id <> %s",
            [played.pk, table.pk, played.pk],
        )
    assert HandPlayer.objects.count() >= ROWS
    return Hand.objects.filter(table=table).count()


def _consumed(response, *, most_parts: int | None = None) -> tuple[int, int, int]:
    """(bytes, parts, peak bytes traced) reading the streamed body part by part, keeping none."""
    size = parts = 0
    tracemalloc.start()
    try:
        for part in response.streaming_content:
            size += len(part)
            parts += 1
            if most_parts is not None and parts >= most_parts:
                break
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return size, parts, peak


def test_the_hands_exports_of_20000_rows_stream_in_bounded_memory(auditor, many_hands):
    """Held whole, the rows of 3,334 six-handed hands (read with their hands) took hundreds of
    MB; streamed, the CSV holds a batch of hands and the zip one hand at a time."""
    response = auditor.get(URL, {"format": "csv"})
    assert response.status_code == 200 and response.streaming
    size, parts, peak = _consumed(response)
    assert size > 2 * 2**20 and parts > 100  # about 3 MB of CSV: over 20,000 rows
    assert peak < 4 * 2**20, (peak, size)
    response = auditor.get(URL + "ohh/")
    assert response.status_code == 200 and response.streaming
    size, parts, peak = _consumed(response, most_parts=200)
    assert parts == 200  # 200 hands out before the rest are read, let alone zipped
    assert peak < 4 * 2**20, peak
