"""Staff who also play see no more than any player: seated at a table with a running hand, a
superuser's admin pages (the hand, the table, seats, both players' pages, the tools, the
ledger, the audit log, searches) show no card at all, and their table socket carries their own
hole cards and nothing else."""

import json

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from poker.engine.cards import FULL_DECK
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, Seat, Table
from tests.factories import TableSocket, deal_hand, make_seated_player, make_table
from tests.sweep import cards_in, fetch, search_guesses, staff_pages, without_echo

DECK = [FULL_DECK[11 * k % 52] for k in range(52)]


def seat_boss_and_ann():
    """A superuser who plays (seat 1) and a player (seat 2) in a running hand, preflop; the
    button is placed so no card is drawn for it."""
    table = make_table(next_hand_delay_seconds=3600)
    boss = make_seated_player(table, "boss", 1)
    boss.is_staff = boss.is_superuser = True
    boss.save(update_fields=["is_staff", "is_superuser"])
    ann = make_seated_player(table, "ann", 2)
    Table.objects.filter(pk=table.pk).update(button_seat=2)
    hand = deal_hand(table, DECK)
    assert hand.status == Hand.Status.RUNNING
    return table, boss, ann, hand


@pytest.mark.django_db
def test_a_playing_superuser_sees_no_card_in_the_admin():
    table, boss, _ann, hand = seat_boss_and_ann()
    client = Client()
    client.force_login(boss, backend="django.contrib.auth.backends.ModelBackend")
    pages = staff_pages(hand)
    assert f"/admin/staff/player/{boss.pk}/change/" in pages  # their own player page
    for url in pages:
        assert not cards_in(fetch(client, url)), url
    # A search answers only by which rows match: one card of each place the hand keeps one
    # finds no hand, and no list shows a card but the one searched for.
    for card in search_guesses(hand):
        for url in ("/admin/poker/hand/", "/admin/staff/player/", "/admin/audit/auditrecord/"):
            page = fetch(client, f"{url}?q={card}")
            assert not cards_in(without_echo(page, card)), url
            assert f"/admin/poker/hand/{hand.pk}/change/" not in page, (url, card)
    assert Seat.objects.filter(table=table).count() == 2


@pytest.mark.django_db(transaction=True)
async def test_a_playing_superusers_socket_carries_only_their_own_cards():
    table, boss, _ann, hand = await sync_to_async(seat_boss_and_ann)()
    engine = EngineHand.from_dict(hand.state)
    own = set(engine.hole_cards[engine.seats.index(1)])
    theirs = set(engine.hole_cards[engine.seats.index(2)])
    socket = await TableSocket.open(table.pk, boss)
    await socket.receive()
    await socket.drain()
    seen = cards_in(json.dumps(socket.frames))
    await socket.close()
    assert own and seen == own, (seen, own)
    assert not seen & theirs
