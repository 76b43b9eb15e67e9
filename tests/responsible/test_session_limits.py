"""Session length limits: a play session (play with no break of 30 minutes) capped in minutes;
reached, the player leaves every table after the hand and may not play until a break; lower at
once, higher after 24 hours. Loss and session limits stop play, not deposits or chat."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from cashier.services import wallet_deposit
from poker import services as poker
from poker.models import Seat
from responsible.models import PlaySession, ResponsibleGamingEvent, SessionLimit
from responsible.rules import check_play, play_session_now, play_session_touch
from responsible.services import (
    ResponsibleError,
    loss_limit_set,
    session_limit_reach,
    session_limit_set,
    session_limits_sweep,
)
from showdown.services import ShowdownRefused, round_deal, round_decide
from tests.factories import (
    call_down,
    deal_hand,
    make_funded_player,
    make_seated_player,
    make_showdown_table,
    make_table,
    sit_refusal,
)

pytestmark = pytest.mark.django_db


def played_for(player, minutes: int) -> None:
    """The player's session began `minutes` ago and they played just now."""
    now = timezone.now()
    PlaySession.objects.update_or_create(
        player=player,
        defaults={
            "started_at": now - timedelta(minutes=minutes),
            "last_play_at": now,
            "limit_reached_at": None,
        },
    )


def test_lower_at_once_higher_after_24_hours_and_each_change_recorded():
    alice = make_funded_player("alice", cents=0)
    start = timezone.now()
    assert session_limit_set(player=alice, minutes=120, now=start).amount == 120
    lowered = session_limit_set(player=alice, minutes=60, now=start)
    assert lowered.amount == 60 and lowered.pending_from is None
    raised = session_limit_set(player=alice, minutes=90, now=start)
    assert raised.amount == 60 and raised.pending_amount == 90
    assert raised.pending_from == start + timedelta(hours=24)
    removed = session_limit_set(player=alice, minutes=None, now=start)
    assert removed.pending_from is not None and removed.pending_amount is None
    # A lower one cancels the raise waiting.
    again = session_limit_set(player=alice, minutes=30, now=start + timedelta(hours=1))
    assert again.amount == 30 and again.pending_from is None
    kinds = list(
        ResponsibleGamingEvent.objects.filter(player=alice)
        .order_by("id")
        .values_list("kind", flat=True)
    )
    assert kinds == [
        "session_limit_lowered",
        "session_limit_lowered",
        "session_limit_raise_pending",
        "session_limit_raise_pending",
        "session_limit_lowered",
    ]
    for bad in (0, 9, 1441, "60", True):
        with pytest.raises(ResponsibleError) as refused:
            session_limit_set(player=alice, minutes=bad)
        assert refused.value.code == "bad_minutes"
    assert SessionLimit.objects.get(player=alice).amount == 30


def test_a_session_runs_from_the_first_play_after_a_break_of_30_minutes():
    table = make_table()
    alice = make_seated_player(table, "alice", 1)  # a seat taken is play
    bob = make_seated_player(table, "bob", 2)
    sat = PlaySession.objects.get(player=alice)
    deal_hand(table)  # dealt in is play: the same session goes on
    session = PlaySession.objects.get(player=alice)
    assert session.started_at == sat.started_at and session.last_play_at > sat.last_play_at
    later = session.last_play_at + timedelta(minutes=29)
    play_session_touch(player_ids=[alice.pk, bob.pk], now=later)
    assert PlaySession.objects.get(player=alice).started_at == sat.started_at
    # 30 minutes with no play is a break: the next play starts a new session.
    assert play_session_now(player=alice, now=later + timedelta(minutes=30)) is None
    play_session_touch(player_ids=[alice.pk], now=later + timedelta(minutes=30))
    assert PlaySession.objects.get(player=alice).started_at == later + timedelta(minutes=30)
    # A banked round is play too (recorded for a player with a session limit: the others'
    # deals stay one read and one statement).
    carol = make_funded_player("carol")
    session_limit_set(player=carol, minutes=60)
    round_deal(player=carol, table=make_showdown_table(), ante=500, idempotency_key="d")
    assert PlaySession.objects.filter(player=carol).exists()


def test_a_session_past_its_limit_refuses_play_with_the_figures_until_a_break():
    alice = make_funded_player("alice")
    banked = make_showdown_table()
    session_limit_set(player=alice, minutes=60)
    dealt = round_deal(player=alice, table=banked, ante=500, idempotency_key="deal-1")
    round_decide(player=alice, round_id=dealt.pk, decision="fold", idempotency_key="fold-1")
    check_play(player=alice, error=ShowdownRefused)  # 0 minutes played
    PlaySession.objects.filter(player=alice).update(
        started_at=timezone.now() - timedelta(minutes=61, seconds=30)
    )
    with pytest.raises(ShowdownRefused) as refused:
        round_deal(player=alice, table=banked, ante=500, idempotency_key="deal-2")
    assert refused.value.code == "session_limit"
    message = refused.value.message
    assert "60 minutes" in message and "1 h 01 min" in message and "-$5.00" in message
    assert sit_refusal(alice).code == "session_limit"
    # Deposits are not play: a session limit (like a loss limit) does not stop them.
    wallet_deposit(player=alice, amount=100, idempotency_key="more")
    # After a break of 30 minutes the session is over and play may start again.
    check_play(player=alice, error=ShowdownRefused, now=timezone.now() + timedelta(minutes=31))


def test_a_loss_limit_reached_refuses_play_but_not_deposits_or_chat():
    table = make_table()
    alice = make_seated_player(table, "alice", 1)
    make_seated_player(table, "bob", 2)
    dealt = round_deal(player=alice, table=make_showdown_table(), ante=500, idempotency_key="d")
    round_decide(player=alice, round_id=dealt.pk, decision="fold", idempotency_key="f")
    loss_limit_set(player=alice, period="day", amount=500)
    assert sit_refusal(alice).code == "loss_limit"
    poker.table_chat_send(table=table, player=alice, text="still here")
    wallet_deposit(player=alice, amount=100, idempotency_key="more")


def test_the_limit_ends_play_after_the_hand_and_holds_until_a_break():
    table, other = make_table(), make_table(name="Second")
    players = {1: make_seated_player(table, "alice", 1), 2: make_seated_player(table, "bob", 2)}
    alice = players[1]
    poker.table_sit(
        table=other, player=alice, seat_number=1, buy_in=other.max_buy_in,
        post_big_blind=False, idempotency_key="sit-other",
    )  # fmt: skip
    hand = deal_hand(table)
    session_limit_set(player=alice, minutes=30)
    assert not session_limit_reach(player=alice)  # not due yet: nothing changes
    played_for(alice, 31)
    assert session_limit_reach(player=alice)
    assert not session_limit_reach(player=alice)  # once per session
    assert not Seat.objects.filter(table=other, player=alice).exists()  # no hand there: at once
    seat = Seat.objects.get(table=table, player=alice)
    assert seat.leave_after_hand and not seat.leave_pending  # the hand is played out as usual
    with pytest.raises(poker.TableError) as refused:
        poker.table_seat_options_set(table=table, player=alice, leave_after_hand=False)
    assert refused.value.code == "session_limit"
    call_down(hand, players)
    assert not Seat.objects.filter(table=table, player=alice).exists()
    event = ResponsibleGamingEvent.objects.get(player=alice, kind="session_limit_reached")
    assert event.detail["limit_minutes"] == 30 and sorted(event.detail["tables"]) == sorted(
        [table.pk, other.pk]
    )
    assert sit_refusal(alice).code == "session_limit"


def test_the_sweep_ends_a_session_whose_timer_was_lost_and_a_lowered_limit_applies_now():
    alice = make_funded_player("alice")
    bob = make_funded_player("bob")
    played_for(alice, 45)
    played_for(bob, 45)
    session_limit_set(player=alice, minutes=120)
    assert session_limits_sweep() == 0
    session_limit_set(player=alice, minutes=40)  # lower: at once, on the session running
    session_limit_set(player=bob, minutes=50)
    assert session_limits_sweep() == 1
    assert PlaySession.objects.get(player=alice).limit_reached_at is not None
    assert PlaySession.objects.get(player=bob).limit_reached_at is None


def test_profile_page_and_api():
    alice = make_funded_player("alice")
    played_for(alice, 5)
    browser = Client()
    browser.force_login(alice)
    page = browser.post("/responsible/session-limit/", {"minutes": "90"}, follow=True)
    assert b"data-session-limit" in page.content and b"90 minutes" in page.content
    assert SessionLimit.objects.get(player=alice).amount == 90
    answer = browser.post(
        "/api/responsible/session-limit/", {"minutes": 120}, content_type="application/json"
    )
    assert answer.status_code == 200
    summary = answer.json()
    assert summary["session_limit"]["minutes"] == 90
    assert summary["session_limit"]["pending_minutes"] == 120
    assert summary["session"]["limit_minutes"] == 90 and not summary["session"]["reached"]
    bad = browser.post(
        "/api/responsible/session-limit/", {"minutes": 5}, content_type="application/json"
    )
    assert bad.status_code == 400 and bad.json()["code"] == "bad_minutes"
