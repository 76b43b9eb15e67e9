"""The auditors' hands exports stream: their memory is bounded by a batch of hands, not by the
export. Four times the rows take no more memory to export, and the OHH zip's first hands go out
before the rest are read."""

import tracemalloc

import pytest
from django.db import connection

from poker.models import Hand, HandPlayer
from tests.factories import call_down, deal_hand, make_seated_player
from tests.histories.conftest import game_table
from tests.sweep import DECK

pytestmark = pytest.mark.django_db

URL = "/api/cashier/audit/hands/"
SEATS = 6


@pytest.fixture
def hands_copied():
    """One six-handed hand played through the services; the function it returns copies it in
    bulk (plain INSERT ... SELECT: hands and their players have no guards, unlike their events
    and the ledger) until the table has `hands` hands."""
    table = game_table("omaha-pot-limit")
    players = {seat: make_seated_player(table, f"p{seat}", seat) for seat in range(1, SEATS + 1)}
    played = call_down(deal_hand(table, DECK), players)
    columns = [f.column for f in Hand._meta.concrete_fields if f.column not in ("id", "number")]
    listed = ", ".join(columns)

    def copy_until(hands: int) -> None:
        have = Hand.objects.filter(table=table).count()
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO poker_hand (number, {listed}) "
                f"SELECT h.number + {have} + g, {', '.join(f'h.{c}' for c in columns)} "
                "FROM poker_hand h, generate_series(0, %s) g WHERE h.id = %s",
                [hands - have - 1, played.pk],
            )
            cursor.execute(
                "INSERT INTO poker_handplayer (hand_id, seat, player_id, last_seq, net, position) "
                "SELECT h.id, p.seat, p.player_id, p.last_seq, p.net, p.position "
                "FROM poker_hand h JOIN poker_handplayer p ON p.hand_id = %s "
                "WHERE h.table_id = %s AND NOT EXISTS "
                "(SELECT 1 FROM poker_handplayer q WHERE q.hand_id = h.id)",
                [played.pk, table.pk],
            )
        assert HandPlayer.objects.filter(hand__table=table).count() == hands * SEATS

    return copy_until


def _consumed(response, *, most_parts: int | None = None) -> tuple[int, int, int]:
    """(bytes, parts, peak bytes traced) reading the streamed body part by part, keeping none.
    Tracing starts after the first part, which compiles the query and imports what it needs."""
    body = iter(response.streaming_content)
    size, parts = len(next(body)), 1
    tracemalloc.start()
    try:
        for part in body:
            size += len(part)
            parts += 1
            if most_parts is not None and parts >= most_parts:
                break
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return size, parts, peak


def test_the_hands_exports_stream_in_memory_bounded_by_a_batch(auditor, hands_copied):
    """Held whole, the rows of 3,334 six-handed hands (read with their hands) took hundreds of
    MB; streamed, the CSV holds a batch of hands (`AUDIT_HAND_CHUNK`) and the zip one hand at a
    time, so 1,200 hands take no more memory than 300."""
    hands_copied(300)
    size, parts, peak = _consumed(auditor.get(URL, {"format": "csv"}))
    assert size > 250_000 and parts > 10  # 1,800 rows of CSV
    hands_copied(1_200)
    response = auditor.get(URL, {"format": "csv"})
    assert response.status_code == 200 and response.streaming
    size_4x, parts_4x, peak_4x = _consumed(response)
    assert size_4x > 3.9 * size and parts_4x > 3.5 * parts
    print("PEAK", peak, peak_4x, size, size_4x)
    assert peak_4x < 1.25 * peak + 2**17, (peak, peak_4x)
    response = auditor.get(URL + "ohh/")
    assert response.status_code == 200 and response.streaming
    size, parts, peak = _consumed(response, most_parts=200)
    assert parts == 200  # 200 hands out before the rest are read, let alone zipped
    assert peak < 4 * 2**20, peak
