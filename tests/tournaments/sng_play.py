"""Playing a started Sit & Go to its end in tests: every hand all-in (shared by the pages' and
the histories' tests; test modules never import each other)."""

from poker.models import Hand, Seat
from tests.factories import deal_hand, play_hand_all_in


def play_out(sng, players, *, most_hands: int = 30) -> list[Hand]:
    """Deal and play all-in until the Sit & Go is over; the hands played."""
    by_id = {p.pk: p for p in players}
    by_seat = {s.number: by_id[s.player_id] for s in Seat.objects.filter(table=sng.table)}
    hands = []
    for _ in range(most_hands):
        sng.refresh_from_db()
        if sng.status != "running":
            return hands
        hand = deal_hand(sng.table)
        assert hand is not None
        hands.append(play_hand_all_in(hand, by_seat))
    raise AssertionError("the Sit & Go did not end")
