"""The STATE of docs/protocol.md as each recipient gets it, and the lobby's table list."""

import pytest

from poker import services
from poker.engine.hand import Hand as EngineHand
from poker.models import Seat
from poker.selectors import (
    hands_of_player,
    lobby_tables,
    table_state_for,
    tables_for_lobby,
    tables_played_by,
)
from tests.factories import deal_hand, make_funded_player, make_seated_player, make_table

pytestmark = pytest.mark.django_db


def test_each_player_sees_their_own_cards_and_the_spectator_none():
    table = make_table()
    ann = make_seated_player(table, "ann", 1)
    ben = make_seated_player(table, "ben", 4)
    sam = make_funded_player("sam")
    hand = services.table_hand_start(table=table)
    engine = EngineHand.from_dict(hand.state)
    cards = dict(zip(engine.seats, engine.hole_cards, strict=True))

    for player, seat in ((ann, 1), (ben, 4)):
        state = table_state_for(table=table, player=player)
        seen = {s["seat"]: s["cards"] for s in state["hand"]["seats"]}
        other = 4 if seat == 1 else 1
        assert seen == {seat: cards[seat], other: None}
        assert state["you"]["seat"] == seat and state["you"]["buy_in_range"] is None
        legal = state["hand"]["legal_actions"]
        assert (legal is not None) == (engine.to_act == seat)
    spectator = table_state_for(table=table, player=sam)
    assert all(s["cards"] is None for s in spectator["hand"]["seats"])
    assert spectator["hand"]["legal_actions"] is None
    assert spectator["you"] == {
        "seat": None,
        "wallet": 100_000,
        "buy_in_range": [5000, 10_000],
        "buy_in_rule": None,
        "sitting_out": False,
        "status": None,
        "posts_big_blind": False,
        "last_seq": 0,
        "waiting": None,
        "time_bank": None,
        "options": None,
    }
    assert [s["seat"] for s in spectator["seats"]] == [1, 2, 3, 4, 5, 6]
    assert spectator["seats"][1] == {
        "seat": 2,
        "player": None,
        "stack": 0,
        "status": "empty",
        "connected": False,
        "sat_out_at": None,
    }
    assert "deck" not in str(spectator) and "burn" not in str(spectator)


def test_between_hands_the_last_result_names_the_players():
    table = make_table()
    ann = make_seated_player(table, "ann", 1)
    ben = make_seated_player(table, "ben", 4)
    hand = services.table_hand_start(table=table)
    to_act = EngineHand.from_dict(hand.state).to_act
    services.table_act(
        table=table,
        player=ann if to_act == 1 else ben,
        action="fold",
        amount=None,
        turn=1,
        seq=1,
    )
    state = table_state_for(table=table, player=ann)
    assert state["hand"] is None
    result = state["last_result"]
    assert result["hand_id"] == hand.pk and result["cancelled"] is False
    assert result["players"] == {"1": "ann", "4": "ben"}
    assert sorted(s["net"] for s in result["seats"]) == [-50, 50]
    assert result["showdown"] == []


def test_the_lobby_lists_open_tables_with_seats_taken():
    table = make_table()
    make_table(is_open=False)
    make_seated_player(table, "ann", 1)
    listed = list(tables_for_lobby())
    assert [(t.pk, t.seats_taken) for t in listed] == [(table.pk, 1)]


def test_the_lobby_counts_the_players_who_can_play_apart_from_the_others():
    """Five seated, really three-handed: one sitting out, one busted at $0 (no top-up); a
    player whose chips are all in the running hand still plays."""
    from cashier.models import Account
    from poker.selectors import seats_playing_count

    table = make_table()
    seated = {seat: make_seated_player(table, name, seat) for seat, name in enumerate(
        ("ann", "ben", "cy", "dee", "eli"), start=1)}  # fmt: skip
    services.table_sit_out(table=table, player=seated[4])
    stacks = Account.objects.filter(kind=Account.Kind.TABLE_STACK, table=table)
    stacks.filter(owner=seated[5]).update(balance=0)  # test-only: as if busted
    stacks.filter(owner=seated[3]).update(balance=0, in_hand_id=1)  # all in, in a hand
    [row] = list(tables_for_lobby())
    assert (row.seats_taken, row.seats_playing) == (5, 3)
    assert seats_playing_count(table_id=table.pk) == 3
    [lobby_row] = lobby_tables(player=None)
    assert lobby_row.seats_out == 2


def test_the_tables_a_player_played_at_and_their_hands_are_queries_over_hand_players():
    first, second, unplayed = make_table(), make_table(), make_table()
    ann = make_seated_player(first, "ann", 1)
    ben = make_seated_player(first, "ben", 2)
    cy = make_seated_player(second, "cy", 3)
    services.table_sit(
        table=second, player=ann, seat_number=1, buy_in=second.max_buy_in,
        post_big_blind=False, idempotency_key="ann-second",
    )  # fmt: skip
    make_seated_player(unplayed, "dee", 1)  # seated alone: never dealt a hand
    at_first = deal_hand(first)
    services.hand_cancel(hand=at_first, reason="A test moves on.", code="test")
    at_second = deal_hand(second)

    assert list(tables_played_by(ann)) == [second, first]  # most recently played first
    assert list(tables_played_by(ben)) == [first]
    assert list(tables_played_by(cy)) == [second]
    assert list(hands_of_player(ann)) == [at_second, at_first]
    assert list(hands_of_player(ann, table=first)) == [at_first]
    assert list(hands_of_player(ben)) == [at_first] and list(hands_of_player(cy)) == [at_second]
    dee = Seat.objects.get(table=unplayed).player
    assert not tables_played_by(dee).exists() and not hands_of_player(dee).exists()
    assert all("deck" in hand.get_deferred_fields() for hand in hands_of_player(ann))


def test_a_seat_sitting_out_says_since_when():
    table = make_table()
    ann = make_seated_player(table, "ann", 1)
    services.table_sit_out(table=table, player=ann)
    seats = {s["seat"]: s for s in table_state_for(table=table, player=ann)["seats"]}
    since = Seat.objects.get(table=table, player=ann).sat_out_at
    assert seats[1]["status"] == "sitting_out" and seats[1]["sat_out_at"] == since.isoformat()
    assert seats[2]["sat_out_at"] is None
    services.table_sit_in(table=table, player=ann, post_big_blind=False)
    seats = {s["seat"]: s for s in table_state_for(table=table, player=ann)["seats"]}
    assert seats[1]["sat_out_at"] is None


def test_a_cancelled_hand_says_why_in_the_readers_language():
    """The stored reason is English; its code lets the page and the history say it in
    the player's language."""
    from django.utils import translation

    from histories.record import hand_record
    from poker.services import hand_cancel
    from tests.factories import deal_hand, make_seated_player

    table = make_table(next_hand_delay_seconds=3600)
    ann = make_seated_player(table, "ann", 1)
    make_seated_player(table, "ben", 2)
    hand = deal_hand(table)
    hand_cancel(hand=hand, reason="The hand stopped moving, so it was cancelled.", code="stuck")
    last = table_state_for(table=table, player=ann)["last_result"]
    assert last["cancelled"] and last["code"] == "stuck"
    with translation.override("fr"):
        reason = hand_record(hand_id=hand.pk, viewer=ann)["cancel_reason"]
    assert reason and "cancelled" not in reason  # French, not the stored English
