"""The table log survives a reload: a socket that connects mid-hand gets the
hand's events so far in its snapshot, redacted for it: a player's own hole cards, nobody
else's, no burns; a spectator none at all."""

import pytest
from asgiref.sync import sync_to_async

from poker.engine.hand import Hand as EngineHand
from tests.factories import (
    TableSocket,
    call_down,
    deal_hand,
    make_funded_player,
    make_seated_player,
    make_table,
)
from tests.sweep import DECK, cards_in

pytestmark = pytest.mark.django_db(transaction=True)


def _mid_hand():
    table = make_table(next_hand_delay_seconds=3600)
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    hand = call_down(deal_hand(table, DECK), players, until_street="flop")
    return table, players, hand, make_funded_player("sam")


async def test_a_socket_opened_mid_hand_gets_the_hands_log_as_it_may_see_it():
    table, players, hand, sam = await sync_to_async(_mid_hand)()
    engine = EngineHand.from_dict(hand.state)
    holes = dict(zip(engine.seats, (set(c) for c in engine.hole_cards), strict=True))
    for seat, user in ((1, players[1]), (2, players[2]), (None, sam)):
        socket = await TableSocket.open(table.pk, user)
        try:
            frame = await socket.until(lambda f: f.get("type") == "snapshot")
            log = frame["log"]
            kinds = [event["type"] for event in log]
            assert kinds[0] == "hand_started" and "street_dealt" in kinds
            assert all(event["hand_id"] == hand.pk for event in log)
            seen = cards_in(str(log))
            others = set().union(*(cards for s, cards in holes.items() if s != seat))
            assert not seen & others and not seen & set(engine.burns)
            if seat is not None:
                assert holes[seat] <= seen
        finally:
            await socket.close()
