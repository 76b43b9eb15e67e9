"""Table services on PostgreSQL: seating, the button and blinds, acting, timers, leaving,
eviction and cancellation, with the cashier's balances checked where money moves."""

import itertools
import json
import secrets
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from cashier.models import Account
from cashier.selectors import table_stack_balance, wallet_balance
from poker import broadcast, services
from poker.engine import dealer
from poker.engine.cards import FULL_DECK
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, HandIncident, Seat, Table
from poker.services import TableError, timers
from tests.factories import (
    act_for_the_player_to_act,
    bust_seat_one,
    make_funded_player,
    make_seated_player,
    make_table,
)

pytestmark = pytest.mark.django_db


def deal(table) -> Hand | None:
    """Deal now, as the start-next-hand task does once the delay is over."""
    Table.objects.filter(pk=table.pk).update(next_hand_at=None)
    return services.table_hand_start(table=table)


def engine_of(hand: Hand) -> EngineHand:
    hand.refresh_from_db()
    return EngineHand.from_dict(hand.state)


act = act_for_the_player_to_act


def finish_checking(hand: Hand, players: dict) -> Hand:
    for _ in range(50):
        hand.refresh_from_db()
        if hand.status != Hand.Status.RUNNING:
            return hand
        legal = EngineHand.from_dict(hand.state).legal_actions()
        act(hand, players, "call" if legal.call else "check")
    raise AssertionError("the hand did not end")


# ------------------------------------------------------------------ seating


def test_sitting_down_buys_in_from_the_wallet():
    table = make_table()
    ann = make_funded_player("ann")
    seat = services.table_sit(
        table=table,
        player=ann,
        seat_number=2,
        buy_in=7500,
        post_big_blind=False,
        idempotency_key="sit-1",
    )
    assert seat.status == Seat.Status.WAITING_BIG_BLIND
    assert wallet_balance(player=ann) == 100_000 - 7500
    assert table_stack_balance(player=ann, table=table) == 7500


@pytest.mark.parametrize(
    ("seat_number", "buy_in", "code"),
    [
        (1, 5000, "seat_taken"),
        (7, 5000, "bad_seat"),
        (0, 5000, "bad_seat"),
        ("2", 5000, "bad_seat"),
        (2, 4999, "buy_in_out_of_range"),
        (2, 10_001, "buy_in_out_of_range"),
        (2, -5, "bad_amount"),
        (2, 50.5, "bad_amount"),
        (2, True, "bad_amount"),
    ],
)
def test_bad_seating_is_refused_and_moves_nothing(seat_number, buy_in, code):
    table = make_table()
    make_seated_player(table, "ann", 1)
    bob = make_funded_player("bob")
    with pytest.raises(TableError) as refused:
        services.table_sit(
            table=table,
            player=bob,
            seat_number=seat_number,
            buy_in=buy_in,
            post_big_blind=False,
            idempotency_key="sit-bob",
        )
    assert refused.value.code == code and refused.value.message
    assert wallet_balance(player=bob) == 100_000
    assert not Seat.objects.filter(player=bob).exists()


def test_one_seat_per_player_per_table():
    table = make_table()
    ann = make_seated_player(table, "ann", 1)
    with pytest.raises(TableError) as refused:
        services.table_sit(
            table=table,
            player=ann,
            seat_number=3,
            buy_in=5000,
            post_big_blind=False,
            idempotency_key="again",
        )
    assert refused.value.code == "already_seated"


# ------------------------------------------------------------------ button and blinds


def test_fresh_table_draws_the_button_then_it_moves_to_the_next_player_dealt_in():
    table = make_table()
    players = {n: make_seated_player(table, f"p{n}", n) for n in (1, 3, 5)}
    first = deal(table)
    assert first is not None
    buttons = [first.setup["button"]]
    assert buttons[0] in players
    for _ in range(3):
        hand = Hand.objects.get(table=table, status=Hand.Status.RUNNING)
        finish_checking(hand, players)
        next_hand = deal(table)
        buttons.append(next_hand.setup["button"])
    order = [1, 3, 5]
    for before, after in itertools.pairwise(buttons):
        assert after == order[(order.index(before) + 1) % 3]
    setup = next_hand.setup
    button = setup["button"]
    assert setup["small_blind_seat"] == order[(order.index(button) + 1) % 3]
    assert setup["big_blind_seat"] == order[(order.index(button) + 2) % 3]


def test_button_draw_breaks_ties_by_suit_spades_high(monkeypatch):
    # Two cards of the same rank: the spade wins the button (RULES.md 4).
    def scripted_shuffle(randbelow):
        return ["Ah", "As", *[c for c in FULL_DECK if c not in ("Ah", "As")]]

    monkeypatch.setattr(dealer, "shuffle_deck", scripted_shuffle)
    button, cards = dealer.draw_button([2, 6], secrets.randbelow)
    assert cards == {2: "Ah", 6: "As"}
    assert button == 6


def test_heads_up_the_button_posts_the_small_blind():
    table = make_table()
    make_seated_player(table, "ann", 2)
    make_seated_player(table, "ben", 4)
    hand = deal(table)
    assert hand.setup["small_blind_seat"] == hand.setup["button"]
    assert hand.setup["big_blind_seat"] != hand.setup["button"]


@pytest.mark.parametrize("who", ["button", "small blind", "big blind"])
def test_going_heads_up_nobody_posts_the_same_blind_two_hands_running(who):
    """RULES.md 4, "Going heads-up": after a three-handed hand one of them leaves; in the
    heads-up hand that follows, neither player posts the blind they just posted."""
    table = make_table()
    players = {n: make_seated_player(table, f"p{n}", n) for n in (1, 2, 3)}
    hand = deal(table)
    before = {"button": hand.setup["button"], "small blind": hand.setup["small_blind_seat"],
              "big blind": hand.setup["big_blind_seat"]}  # fmt: skip
    finish_checking(hand, players)
    services.table_leave(table=table, player=players[before[who]])
    hand = deal(table)
    setup = hand.setup
    assert sorted(seat for seat, _ in setup["seats"]) == sorted(set(players) - {before[who]})
    assert setup["small_blind_seat"] == setup["button"] != before["small blind"]
    assert setup["big_blind_seat"] != before["big blind"]


def test_a_new_player_waits_for_the_big_blind_or_posts_one_now():
    table = make_table()
    players = {n: make_seated_player(table, f"p{n}", n) for n in (1, 2, 3)}
    hand = deal(table)
    finish_checking(hand, players)
    waiter = make_seated_player(table, "wait", 4, post_big_blind=False)
    poster = make_seated_player(table, "post", 6, post_big_blind=True)
    dealt_waiter = False
    for _ in range(4):
        hand = deal(table)
        seats = [s for s, _ in hand.setup["seats"]]
        assert 6 in seats  # the poster plays at once
        if 4 in seats:
            assert hand.setup["big_blind_seat"] == 4  # the waiter comes in on the big blind
            dealt_waiter = True
            break
        players_now = {**players, 6: poster}
        finish_checking(hand, players_now)
    assert dealt_waiter
    assert Seat.objects.get(player=waiter).status == Seat.Status.PLAYING


def test_posting_now_is_an_extra_big_blind():
    table = make_table()
    players = {n: make_seated_player(table, f"p{n}", n) for n in (1, 2, 3)}
    finish_checking(deal(table), players)
    make_seated_player(table, "post", 5, post_big_blind=True)
    # The button moves from seat 5 to seat 1: blinds 2 and 3, so seat 5 posts an extra one.
    Table.objects.filter(pk=table.pk).update(button_seat=5)
    hand = deal(table)
    setup = hand.setup
    assert 5 in [seat for seat, _ in setup["seats"]]
    assert (setup["button"], setup["small_blind_seat"], setup["big_blind_seat"]) == (1, 2, 3)
    assert setup["extra_big_blind_seats"] == [5]
    posted = [e for e in hand.state["events"] if e["type"] == "blind_posted"]
    extra = {"type": "blind_posted", "seat": 5, "blind": "extra big", "amount": 100}
    assert {**extra, "all_in": False} in posted


def test_a_waiting_player_may_post_now_or_go_back_to_waiting():
    table = make_table()
    players = {n: make_seated_player(table, f"p{n}", n) for n in (1, 2, 3)}
    finish_checking(deal(table), players)
    waiter = make_seated_player(table, "wait", 5, post_big_blind=False)
    with pytest.raises(TableError) as refused:
        services.table_big_blind_choose(table=table, player=waiter, post_now=False)
    assert refused.value.code == "not_posting"
    with pytest.raises(TableError) as refused:
        services.table_big_blind_choose(table=table, player=waiter, post_now="yes")
    assert refused.value.code == "bad_field"
    services.table_big_blind_choose(table=table, player=waiter, post_now=True)
    services.table_big_blind_choose(table=table, player=waiter, post_now=False)
    seat = Seat.objects.get(player=waiter)
    assert (seat.status, seat.posts_big_blind_next) == (Seat.Status.WAITING_BIG_BLIND, False)
    services.table_big_blind_choose(table=table, player=waiter, post_now=True)
    with pytest.raises(TableError) as refused:
        services.table_big_blind_choose(table=table, player=waiter, post_now=True)
    assert refused.value.code == "not_waiting"
    Table.objects.filter(pk=table.pk).update(button_seat=5)  # blinds 2 and 3 next
    hand = deal(table)
    assert 5 in [seat for seat, _ in hand.setup["seats"]]
    assert hand.setup["extra_big_blind_seats"] == [5]
    seat.refresh_from_db()
    assert (seat.status, seat.posts_big_blind_next) == (Seat.Status.PLAYING, False)
    with pytest.raises(TableError) as refused:  # dealt in: nothing left to choose
        services.table_big_blind_choose(table=table, player=waiter, post_now=False)
    assert refused.value.code == "not_posting"


def test_three_to_start_and_two_may_go_on():
    table = make_table(three_to_start=True)
    players = {n: make_seated_player(table, f"p{n}", n) for n in (1, 2)}
    assert deal(table) is None  # two are not enough to start
    players[3] = make_seated_player(table, "p3", 3)
    finish_checking(deal(table), players)
    services.table_leave(table=table, player=players[3])
    hand = deal(table)  # the last hand had three: two may go on
    assert hand is not None and len(hand.setup["seats"]) == 2
    finish_checking(hand, {1: players[1], 2: players[2]})
    assert deal(table) is None  # the last hand had two: three are needed again


# ------------------------------------------------------------------ acting


def test_a_hand_to_a_fold_settles_in_the_cashier():
    table = make_table()
    players = {2: make_seated_player(table, "ann", 2), 5: make_seated_player(table, "ben", 5)}
    hand = deal(table)
    for account in Account.objects.filter(kind=Account.Kind.TABLE_STACK, table=table):
        assert account.in_hand_id == hand.pk
    button = hand.setup["button"]
    act(hand, players, "fold")
    hand.refresh_from_db()
    assert hand.status == Hand.Status.FINISHED
    other = 5 if button == 2 else 2
    assert table_stack_balance(player=players[button], table=table) == 10_000 - 50
    assert table_stack_balance(player=players[other], table=table) == 10_000 + 50
    assert not Account.objects.filter(in_hand_id=hand.pk).exists()


def test_after_a_hand_a_player_may_show_the_cards_nobody_saw():
    """Between hands, by choice; the log and the other players' history of
    the hand show them; a new hand closes the window; nothing moves in the cashier."""
    from histories.record import hand_record

    table = make_table(next_hand_delay_seconds=3600)
    players = {2: make_seated_player(table, "ann", 2), 5: make_seated_player(table, "ben", 5)}
    hand = deal(table)
    button = hand.setup["button"]
    other = 5 if button == 2 else 2
    act(hand, players, "fold")
    stacks = {n: table_stack_balance(player=p, table=table) for n, p in players.items()}
    with pytest.raises(TableError) as refused:
        services.table_show_cards(table=table, player=make_funded_player("cat"))
    assert refused.value.code == "not_in_hand"
    services.table_show_cards(table=table, player=players[button])
    hand.refresh_from_db()
    cards = engine_of(hand).hole_cards[engine_of(hand).seats.index(button)]
    assert hand.events.order_by("-seq").first().payload == {
        "type": "cards_shown", "seat": button, "cards": cards, "voluntary": True,
    }  # fmt: skip
    seen = hand_record(hand_id=hand.pk, viewer=players[other])
    assert next(s for s in seen["seats"] if s["seat"] == button)["cards"] == cards
    # Every page hears of it with the last hand's result: the seat and the last-hand panel
    # show the cards, not only the log.
    shown_hand = Hand.objects.with_deck().get(pk=hand.pk)
    engine = EngineHand.from_snapshot(shown_hand.state, shown_hand.deck)
    frame = json.loads(
        broadcast.frames_for_change(
            table=table,
            events=[],
            hand_row=shown_hand,
            engine=engine,
            since=len(engine.events) - 1,
        )["public"]
    )
    assert [e["type"] for e in frame["events"]] == ["cards_shown"]
    entry = next(e for e in frame["last_result"]["showdown"] if e["seat"] == button)
    assert entry["shown"] and entry["cards"] == cards
    with pytest.raises(TableError) as refused:
        services.table_show_cards(table=table, player=players[button])
    assert refused.value.code == "already_shown"
    assert {n: table_stack_balance(player=p, table=table) for n, p in players.items()} == stacks
    deal(table)
    with pytest.raises(TableError) as refused:
        services.table_show_cards(table=table, player=players[other])
    assert refused.value.code == "hand_running"


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"turn": 9}, "stale_turn"),
        ({"seq": 0}, "bad_field"),
        ({"turn": "1"}, "bad_field"),
        ({"action": "raise", "amount": 150}, "amount_too_small"),
        ({"action": "raise", "amount": 10**12}, "bad_amount"),
        ({"action": "check"}, "cannot_check"),
        ({"action": "dance"}, "unknown_action"),
        ({"who": "waiting"}, "not_your_turn"),
        ({"who": "outsider"}, "not_seated"),
    ],
)
def test_refused_actions_change_nothing(change, code):
    table = make_table()
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    outsider = make_funded_player("eve")
    hand = deal(table)
    to_act = EngineHand.from_dict(hand.state).to_act
    who = {"waiting": players[3 - to_act], "outsider": outsider}.get(
        change.pop("who", None), players[to_act]
    )
    request = {"action": "call", "amount": None, "turn": 1, "seq": 1, **change}
    with pytest.raises(TableError) as refused:
        services.table_act(table=table, player=who, **request)
    assert refused.value.code == code
    before = hand.state
    hand.refresh_from_db()
    assert hand.state == before and hand.turn == 1
    assert [row.last_seq for row in hand.seated_players().values()] == [0, 0]


def test_a_duplicate_seq_is_refused_even_on_a_later_turn():
    table = make_table()
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    hand = deal(table)
    first = EngineHand.from_dict(hand.state).to_act
    services.table_act(
        table=table, player=players[first], action="call", amount=None, turn=1, seq=4
    )
    act(hand, players, "check")  # the big blind checks: the flop
    hand.refresh_from_db()
    if EngineHand.from_dict(hand.state).to_act != first:
        act(hand, players, "check")  # heads-up the big blind acts first after the flop
        hand.refresh_from_db()
    assert EngineHand.from_dict(hand.state).to_act == first
    with pytest.raises(TableError) as refused:
        services.table_act(
            table=table, player=players[first], action="check", amount=None, turn=hand.turn, seq=4
        )
    assert refused.value.code == "duplicate_seq"
    hand.refresh_from_db()
    assert hand.last_seq_of(players[first].pk) == 4


# ------------------------------------------------------------------ sitting out and leaving


def test_sitting_out_misses_the_big_blind_and_sitting_in_owes_it():
    table = make_table()
    players = {n: make_seated_player(table, f"p{n}", n) for n in (1, 2, 3, 4)}
    services.table_sit_out(table=table, player=players[4])
    with pytest.raises(TableError) as refused:
        services.table_sit_out(table=table, player=players[4])
    assert refused.value.code == "already_sitting_out"
    seen_missed = False
    for _ in range(4):
        hand = deal(table)
        assert 4 not in [s for s, _ in hand.setup["seats"]]
        finish_checking(hand, players)
        if Seat.objects.get(player=players[4]).missed_big_blind:
            seen_missed = True
            break
    assert seen_missed
    services.table_sit_in(table=table, player=players[4], post_big_blind=True)
    seat = Seat.objects.get(player=players[4])
    assert (seat.status, seat.posts_big_blind_next) == (Seat.Status.PLAYING, True)
    hand = deal(table)
    setup = hand.setup
    assert 4 in [s for s, _ in setup["seats"]]
    assert (
        4 in setup["extra_big_blind_seats"]
        or setup["big_blind_seat"] == 4
        or (setup["small_blind_seat"] == 4)
    )


def test_sitting_in_without_posting_waits_for_the_big_blind():
    table = make_table()
    players = {n: make_seated_player(table, f"p{n}", n) for n in (1, 2, 3)}
    Seat.objects.filter(player=players[3]).update(
        status=Seat.Status.SITTING_OUT, missed_big_blind=True, sat_out_at=timezone.now()
    )
    services.table_sit_in(table=table, player=players[3], post_big_blind=False)
    assert Seat.objects.get(player=players[3]).status == Seat.Status.WAITING_BIG_BLIND


def test_leaving_mid_hand_folds_then_cashes_out_at_the_end():
    table = make_table()
    players = {n: make_seated_player(table, f"p{n}", n) for n in (1, 2, 3)}
    hand = deal(table)
    leaver_seat = EngineHand.from_dict(hand.state).to_act
    leaver = players[leaver_seat]
    services.table_leave(table=table, player=leaver)
    engine = engine_of(hand)
    index = engine.seats.index(leaver_seat)
    assert engine.folded[index]  # it was their turn: folded at once
    assert Seat.objects.get(player=leaver).leave_pending
    finish_checking(hand, players)
    assert not Seat.objects.filter(player=leaver).exists()
    stack = table_stack_balance(player=leaver, table=table)
    assert stack == 0
    assert wallet_balance(player=leaver) == 100_000 - engine.committed[index]


def test_leaving_between_hands_cashes_out_at_once():
    table = make_table()
    ann = make_seated_player(table, "ann", 1)
    services.table_leave(table=table, player=ann)
    assert wallet_balance(player=ann) == 100_000
    assert not Seat.objects.filter(player=ann).exists()
    with pytest.raises(TableError) as refused:
        services.table_leave(table=table, player=ann)
    assert refused.value.code == "not_seated"


def test_top_up_between_hands_not_during_one():
    table = make_table()
    players = {
        1: make_seated_player(table, "ann", 1, buy_in=6000),
        2: make_seated_player(table, "ben", 2),
    }
    hand = deal(table)
    with pytest.raises(TableError) as refused:
        services.table_top_up(table=table, player=players[1], amount=1000, idempotency_key="t1")
    assert refused.value.code == "in_hand"
    act(hand, players, "fold")
    before = table_stack_balance(player=players[1], table=table)
    services.table_top_up(table=table, player=players[1], amount=1000, idempotency_key="t2")
    assert table_stack_balance(player=players[1], table=table) == before + 1000
    with pytest.raises(TableError) as refused:
        services.table_top_up(table=table, player=players[2], amount=5000, idempotency_key="t3")
    assert refused.value.code == "top_up_over_max"


# ------------------------------------------------------------------ timers


def _expire(hand: Hand) -> None:
    Hand.objects.filter(pk=hand.pk).update(deadline=timezone.now() - timedelta(seconds=1))


def test_timeout_folds_facing_a_bet_and_sits_the_player_out_at_hand_end():
    table = make_table()
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    hand = deal(table)
    slow = EngineHand.from_dict(hand.state).to_act
    assert services.hand_turn_timeout(hand_id=hand.pk, turn=1) == "not_yet"
    _expire(hand)
    assert services.hand_turn_timeout(hand_id=hand.pk, turn=2) == "moved_on"
    assert services.hand_turn_timeout(hand_id=hand.pk, turn=1) == "fold"
    assert services.hand_turn_timeout(hand_id=hand.pk, turn=1) == "moved_on"  # a duplicate
    hand.refresh_from_db()
    assert hand.status == Hand.Status.FINISHED
    seat = Seat.objects.get(player=players[slow])
    assert seat.status == Seat.Status.SITTING_OUT and seat.sat_out_at is not None


def test_timeout_checks_when_it_can():
    table = make_table()
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    hand = deal(table)
    act(hand, players, "call")
    hand.refresh_from_db()
    big_blind = EngineHand.from_dict(hand.state).to_act
    _expire(hand)
    assert services.hand_turn_timeout(hand_id=hand.pk, turn=hand.turn) == "check"
    hand.refresh_from_db()
    assert hand.status == Hand.Status.RUNNING
    assert Seat.objects.get(player=players[big_blind]).time_out_pending
    finish_checking(hand, players)
    assert Seat.objects.get(player=players[big_blind]).status == Seat.Status.SITTING_OUT


def test_a_disconnected_player_to_act_gets_the_grace_time():
    table = make_table(action_seconds=30, disconnect_grace_seconds=20)
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    for player in players.values():
        services.table_connection_set(table=table, player=player, connected=True)
    hand = deal(table)
    assert hand.deadline - hand.action_started_at == timedelta(seconds=30)
    to_act = EngineHand.from_dict(hand.state).to_act
    services.table_connection_set(table=table, player=players[to_act], connected=False)
    hand.refresh_from_db()
    assert hand.deadline - hand.action_started_at == timedelta(seconds=50)
    # Coming back does not take the grace away; the next turn starts normally.
    services.table_connection_set(table=table, player=players[to_act], connected=True)
    act(hand, players, "call")
    hand.refresh_from_db()
    assert hand.deadline - hand.action_started_at == timedelta(seconds=30)


def test_a_reloaded_page_s_old_socket_leaving_late_does_not_mark_the_player_gone():
    table = make_table()
    ann = make_seated_player(table, "ann", 1)
    services.table_connection_set(table=table, player=ann, connected=True, socket="old")
    services.table_connection_set(table=table, player=ann, connected=True, socket="new")
    services.table_connection_set(table=table, player=ann, connected=False, socket="old")
    seat = Seat.objects.get(player=ann)
    assert seat.connected and seat.disconnected_at is None
    services.table_connection_set(table=table, player=ann, connected=False, socket="new")
    seat.refresh_from_db()
    assert not seat.connected and seat.disconnected_at is not None


def test_the_sweep_evicts_sitters_out_past_the_limit_and_cashes_them_out():
    table = make_table(sit_out_limit_seconds=600)
    ann = make_seated_player(table, "ann", 1)
    services.table_sit_out(table=table, player=ann)
    assert services.tables_sweep()["evicted"] == 0
    Seat.objects.filter(player=ann).update(sat_out_at=timezone.now() - timedelta(seconds=601))
    assert services.tables_sweep()["evicted"] == 1
    assert not Seat.objects.filter(player=ann).exists()
    assert wallet_balance(player=ann) == 100_000


def test_lobby_pages_hear_a_sit_out_a_sit_in_and_a_freed_seat(lobby_hears):
    """The lobby's figure is the players who can play: a sit-out moves it as much as a seat."""
    table = make_table(sit_out_limit_seconds=600)
    ann = make_seated_player(table, "ann", 1)
    make_seated_player(table, "ben", 2)
    two_one = [{"table": table.pk, "seats_taken": 2, "seats_playing": 1}]
    assert lobby_hears(lambda: services.table_sit_out(table=table, player=ann)) == two_one
    sit_in = lambda: services.table_sit_in(table=table, player=ann, post_big_blind=False)  # noqa: E731
    assert lobby_hears(sit_in) == [{"table": table.pk, "seats_taken": 2, "seats_playing": 2}]
    services.table_sit_out(table=table, player=ann)
    Seat.objects.filter(player=ann).update(sat_out_at=timezone.now() - timedelta(seconds=601))
    assert lobby_hears(services.tables_sweep) == [
        {"table": table.pk, "seats_taken": 1, "seats_playing": 1}
    ]


def test_lobby_pages_hear_a_player_bust(lobby_hears):
    table = make_table()
    players = {
        1: make_seated_player(table, "ann", 1, buy_in=5000),
        2: make_seated_player(table, "ben", 2),
    }
    heard = lobby_hears(lambda: bust_seat_one(table, players))
    assert heard == [{"table": table.pk, "seats_taken": 2, "seats_playing": 1}]


def test_the_sweep_looks_for_a_deal_only_where_two_seats_are_taken():
    """A lone player waiting for opponents is not a deal to try every sweep (at a table's owner
    that would be a command every two seconds for each such table)."""
    lone, pair = make_table(next_hand_delay_seconds=0), make_table(next_hand_delay_seconds=0)
    make_seated_player(lone, "ann", 1)
    sent: list[tuple[int, dict]] = []

    def at_owner(table_id: int, item: dict) -> bool:
        sent.append((table_id, item))
        return True

    assert services.tables_sweep(at_owner=at_owner)["sent"] == 0
    make_seated_player(pair, "ben", 1)
    make_seated_player(pair, "cid", 2)
    assert services.tables_sweep(at_owner=at_owner)["sent"] == 1
    assert [(table_id, item["do"]) for table_id, item in sent] == [(pair.pk, "deal")]


def test_the_sweep_acts_on_overdue_turns_and_starts_due_hands():
    table = make_table(next_hand_delay_seconds=0)
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    assert services.tables_sweep()["started"] == 1
    hand = Hand.objects.get(table=table)
    _expire(hand)
    assert services.tables_sweep()["timeouts"] == 1
    hand.refresh_from_db()
    assert hand.status == Hand.Status.FINISHED
    assert players


# ------------------------------------------------------------------ cancelling


def test_a_hand_whose_state_is_corrupted_is_cancelled_and_every_bet_returned():
    table = make_table()
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    hand = deal(table)
    act(hand, players, "raise", 300)
    with connection.cursor() as cursor:  # someone edits the stored stacks behind our back
        cursor.execute(
            "UPDATE poker_hand SET state = jsonb_set(state, '{stacks,0}', '999999') WHERE id = %s",
            [hand.pk],
        )
    hand.refresh_from_db()
    to_act = EngineHand.from_dict(hand.state).to_act
    with pytest.raises(TableError) as refused:
        services.table_act(
            table=table, player=players[to_act], action="call", amount=None, turn=hand.turn, seq=1
        )
    assert refused.value.code == "hand_cancelled"
    hand.refresh_from_db()
    assert hand.status == Hand.Status.CANCELLED and hand.cancel_reason
    incident = HandIncident.objects.get(hand=hand)
    assert incident.code == "state_refused" and "ReplayMismatch" in incident.detail["detail"]
    for player in players.values():
        assert table_stack_balance(player=player, table=table) == 10_000
    assert not Account.objects.filter(in_hand_id=hand.pk).exists()
    # The table goes on with a fresh hand.
    assert deal(table) is not None


# ------------------------------------------------------------------ races


@pytest.mark.django_db(transaction=True)
def test_two_actions_racing_for_one_turn_exactly_one_applies():
    table = make_table()
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    hand = deal(table)
    to_act = EngineHand.from_dict(hand.state).to_act
    barrier = threading.Barrier(2)
    outcomes = []

    def attempt(seq: int) -> None:
        barrier.wait()
        try:
            services.table_act(
                table=table, player=players[to_act], action="call", amount=None, turn=1, seq=seq
            )
            outcomes.append("applied")
        except TableError as error:
            outcomes.append(error.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=attempt, args=(seq,)) for seq in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["applied", "stale_turn"] or sorted(outcomes) == [
        "applied",
        "duplicate_seq",
    ]
    hand.refresh_from_db()
    calls = [e for e in hand.state["events"] if e["type"] == "action"]
    assert len(calls) == 1 and hand.turn == 2


def test_a_hand_stuck_past_the_limit_is_cancelled_by_the_sweep(monkeypatch):
    table = make_table()
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    hand = deal(table)
    act(hand, players, "call")
    # The timeout itself keeps failing (say a bug): past the limit the sweep gives up on it.
    monkeypatch.setattr(timers, "hand_turn_timeout", _broken_timeout)
    Hand.objects.filter(pk=hand.pk).update(deadline=timezone.now() - timedelta(seconds=5))
    assert services.tables_sweep()["cancelled"] == 0
    Hand.objects.filter(pk=hand.pk).update(
        deadline=timezone.now() - timedelta(seconds=services.STUCK_HAND_SECONDS + 1)
    )
    assert services.tables_sweep()["cancelled"] == 1
    hand.refresh_from_db()
    assert hand.status == Hand.Status.CANCELLED
    assert HandIncident.objects.get(hand=hand).code == "stuck"
    for player in players.values():
        assert table_stack_balance(player=player, table=table) == 10_000
        services.table_leave(table=table, player=player)  # nothing is stuck in the hand
        assert wallet_balance(player=player) == 100_000


def _broken_timeout(**kwargs):
    raise RuntimeError("a fault in the timeout")
