"""Deposit limits, exclusions and the reality check, through the services."""

from datetime import timedelta

import pytest
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token

from cashier.models import Entry
from cashier.services import CashierError, table_top_up, wallet_deposit, wallet_withdraw
from poker import services as poker
from poker.models import Seat
from responsible.models import DepositLimit, Exclusion, ResponsibleGamingEvent
from responsible.rules import check_deposit, check_play, deposit_room
from responsible.selectors import net_result_since, reality_check_for
from responsible.services import (
    ResponsibleError,
    deposit_limit_set,
    exclusion_end_for,
    exclusion_start,
    reality_check_set,
)
from showdown.services import ShowdownRefused, round_deal
from tests.factories import (
    call_down,
    deal_hand,
    make_funded_player,
    make_player,
    make_seated_player,
    make_showdown_table,
    make_table,
    sit_refusal,
    table_stakes,
)
from tests.poker.engine.conftest import build_deck

pytestmark = pytest.mark.django_db


def deposit(player, cents, key):
    return wallet_deposit(player=player, amount=cents, idempotency_key=key)


def test_a_daily_limit_counts_the_last_24_hours_rolling():
    alice = make_player("alice")
    deposit_limit_set(player=alice, period="day", amount=10_000)
    deposit(alice, 8_000, "a")
    with pytest.raises(CashierError) as refused:
        deposit(alice, 2_001, "b")
    assert refused.value.code == "deposit_limit" and "$20.00 more" in refused.value.message
    assert not Entry.objects.filter(idempotency_key="b").exists()
    deposit(alice, 2_000, "b")
    # Ledger rows cannot be backdated, so the clock moves instead: just under 24 hours later
    # the window still holds both deposits; just over, it holds none.
    later = timezone.now() + timedelta(hours=23, minutes=59)
    with pytest.raises(CashierError):
        check_deposit(player=alice, amount=1, error=CashierError, now=later)
    later = timezone.now() + timedelta(hours=24, seconds=1)
    assert deposit_room(player=alice, now=later)["day"]["left"] == 10_000
    check_deposit(player=alice, amount=10_000, error=CashierError, now=later)


def test_week_and_month_windows_apply_alongside():
    alice = make_player("alice")
    deposit_limit_set(player=alice, period="week", amount=30_000)
    deposit_limit_set(player=alice, period="month", amount=50_000)
    deposit(alice, 25_000, "a")
    eight_days = timezone.now() + timedelta(days=8)  # outside the week, inside the month
    with pytest.raises(CashierError) as refused:
        check_deposit(player=alice, amount=25_001, error=CashierError, now=eight_days)
    assert "month" in refused.value.message
    check_deposit(player=alice, amount=25_000, error=CashierError, now=eight_days)
    with pytest.raises(CashierError) as refused:
        deposit(alice, 5_001, "b")
    assert "week" in refused.value.message
    deposit(alice, 5_000, "b")
    room = deposit_room(player=alice)
    assert room["week"]["left"] == 0 and room["month"]["left"] == 20_000


def test_a_lower_limit_applies_at_once_a_higher_one_after_24_hours():
    alice = make_player("alice")
    start = timezone.now()
    deposit_limit_set(player=alice, period="day", amount=10_000, now=start)
    lowered = deposit_limit_set(player=alice, period="day", amount=5_000, now=start)
    assert lowered.amount == 5_000 and lowered.pending_from is None
    raised = deposit_limit_set(player=alice, period="day", amount=20_000, now=start)
    assert raised.amount == 5_000 and raised.pending_amount == 20_000
    assert raised.pending_from == start + timedelta(hours=24)
    with pytest.raises(CashierError):
        deposit(alice, 6_000, "a")
    later = start + timedelta(hours=24, seconds=1)
    assert deposit_room(player=alice, now=later)["day"]["limit"] == 20_000

    # Removing a limit is a raise too; lowering again cancels the raise waiting.
    removed = deposit_limit_set(player=alice, period="day", amount=None, now=start)
    assert removed.pending_from is not None and removed.pending_amount is None
    assert deposit_room(player=alice, now=later) == {}
    deposit_limit_set(player=alice, period="day", amount=4_000, now=start)
    assert deposit_room(player=alice, now=later)["day"]["limit"] == 4_000
    kinds = list(
        ResponsibleGamingEvent.objects.filter(player=alice)
        .order_by("id")
        .values_list("kind", flat=True)
    )
    assert kinds == [
        "limit_lowered",
        "limit_lowered",
        "limit_raise_pending",
        "limit_raise_pending",
        "limit_lowered",
    ]


@pytest.mark.parametrize(
    ("period", "amount", "code"),
    [
        ("fortnight", 100, "bad_period"),
        ("day", 0, "bad_amount"),
        ("day", "12", "bad_amount"),
        ("day", 1.5, "bad_amount"),
        (["day"], 100, "bad_period"),
    ],
)
def test_a_bad_limit_is_refused_and_changes_nothing(period, amount, code):
    alice = make_player("alice")
    with pytest.raises(ResponsibleError) as refused:
        deposit_limit_set(player=alice, period=period, amount=amount)
    assert refused.value.code == code
    assert not DepositLimit.objects.exists() and not ResponsibleGamingEvent.objects.exists()


def test_exclusion_lengths():
    now = timezone.now().replace(year=2026, month=8, day=31)
    assert exclusion_end_for(kind="time_out", length=1, now=now) == now + timedelta(days=1)
    assert exclusion_end_for(kind="time_out", length=42, now=now) == now + timedelta(weeks=6)
    assert exclusion_end_for(kind="self_exclusion", length="6m", now=now).date().isoformat() == (
        "2027-02-28"
    )
    assert exclusion_end_for(kind="self_exclusion", length="5y", now=now).year == 2031
    for kind, length in [
        ("time_out", 0),
        ("time_out", 43),
        ("time_out", "7"),
        ("time_out", True),
        ("self_exclusion", "2y"),
        ("self_exclusion", ["6m"]),
        ("forever", 1),
    ]:
        with pytest.raises(ResponsibleError):
            exclusion_end_for(kind=kind, length=length, now=now)


def test_an_exclusion_ends_sessions_and_tokens_and_stops_deposits_and_play():
    alice = make_funded_player("alice")
    browser = Client()
    browser.force_login(alice)
    other = make_player("bob")
    Client().force_login(other)
    Token.objects.create(user=alice)
    exclusion = exclusion_start(player=alice, kind="time_out", length=7)

    remaining = [s.get_decoded().get("_auth_user_id") for s in Session.objects.all()]
    assert remaining == [str(other.pk)]
    assert not Token.objects.filter(user=alice).exists()
    with pytest.raises(CashierError) as refused:
        deposit(alice, 100, "after")
    assert refused.value.code == "excluded" and "time-out" in refused.value.message
    assert sit_refusal(alice, idempotency_key="sit-1").code == "excluded"
    with pytest.raises(ShowdownRefused) as refused:
        round_deal(player=alice, table=make_showdown_table(), ante=100, idempotency_key="deal")
    assert refused.value.code == "excluded"
    # Money out is still allowed: an excluded player can take their money home.
    wallet_withdraw(player=alice, amount=1_000, idempotency_key="home")

    # It cannot be undone or shortened; a longer one may follow.
    with pytest.raises(ResponsibleError) as refused:
        exclusion_start(player=alice, kind="time_out", length=1)
    assert refused.value.code == "already_excluded"
    longer = exclusion_start(player=alice, kind="self_exclusion", length="6m")
    assert longer.ends_at > exclusion.ends_at
    assert Exclusion.objects.filter(player=alice).count() == 2
    # Once over, the player may deposit again.
    Exclusion.objects.filter(player=alice).update(ends_at=timezone.now() - timedelta(seconds=1))
    deposit(alice, 100, "back")


def test_an_exclusion_takes_the_player_out_of_every_seat_after_the_hand():
    table, other_table = make_table(), make_table(name="Second")
    alice = make_seated_player(table, "alice", 1)
    bob = make_seated_player(table, "bob", 2)
    carol = make_seated_player(table, "carol", 3)  # three, so alice's fold ends no hand
    seat_elsewhere = poker.table_sit(
        table=other_table,
        player=alice,
        seat_number=3,
        buy_in=other_table.max_buy_in,
        post_big_blind=False,
        idempotency_key="sit-second",
    )
    hand = deal_hand(table)
    assert hand is not None and hand.is_dealt(1)

    exclusion_start(player=alice, kind="self_exclusion", length="1y")

    assert not Seat.objects.filter(pk=seat_elsewhere.pk).exists()  # no hand there: at once
    seat = Seat.objects.get(table=table, player=alice)
    assert seat.leave_pending
    with pytest.raises(CashierError) as refused:
        table_top_up(player=alice, **table_stakes(table), amount=100, idempotency_key="top")
    assert refused.value.code == "excluded"
    call_down(hand, {1: alice, 2: bob, 3: carol})
    assert not Seat.objects.filter(table=table, player=alice).exists()
    event = ResponsibleGamingEvent.objects.get(player=alice, kind="sessions_ended")
    assert sorted(event.detail["tables"]) == sorted([table.pk, other_table.pk])


def test_sitting_in_again_is_refused_to_an_excluded_player():
    table = make_table()
    alice = make_seated_player(table, "alice", 1)
    poker.table_sit_out(table=table, player=alice)
    Exclusion.objects.create(
        player=alice,
        kind="time_out",
        starts_at=timezone.now(),
        ends_at=timezone.now() + timedelta(days=1),
    )
    with pytest.raises(poker.TableError) as refused:
        poker.table_sit_in(table=table, player=alice, post_big_blind=False)
    assert refused.value.code == "excluded"


def test_reality_check_interval_and_net_result():
    table = make_table()
    alice = make_seated_player(table, "alice", 1)
    bob = make_seated_player(table, "bob", 2)
    since = timezone.now()
    # Aces full against nothing, whoever gets which: a shuffled deck chopped about 1 hand in 70.
    deck = build_deck(["AhAdKhKd", "2c3c7d8s"], "As Ks Kc 9h 4d")
    hand = call_down(deal_hand(table, deck), {1: alice, 2: bob})
    net_alice, net_bob = (
        net_result_since(player=alice, since=since),
        net_result_since(player=bob, since=since),
    )
    assert net_alice != 0 and net_alice + net_bob <= 0  # the rake leaves the table
    assert net_result_since(player=alice, since=timezone.now()) == 0
    assert hand.status != "running"

    with pytest.raises(ResponsibleError):
        reality_check_set(player=alice, minutes=5)
    with pytest.raises(ResponsibleError):
        reality_check_set(player=alice, minutes="30")
    reality_check_set(player=alice, minutes=30)
    check = reality_check_for(player=alice, session_started_at=since - timedelta(minutes=45))
    assert check["interval_minutes"] == 30
    assert 45 * 60 <= check["seconds_played"] < 46 * 60
    assert check["net"] == net_alice
    reality_check_set(player=alice, minutes=None)
    assert reality_check_for(player=alice, session_started_at=since)["interval_minutes"] is None


@pytest.mark.django_db
def test_check_play_reads_the_account_and_its_exclusions_in_one_query(django_assert_num_queries):
    alice = make_player("alice")
    with django_assert_num_queries(1):
        check_play(player=alice, error=ShowdownRefused)  # open, not excluded
    now = timezone.now()
    Exclusion.objects.create(
        player=alice, kind="time_out", starts_at=now - timedelta(days=9), ends_at=now
    )  # over: no refusal
    check_play(player=alice, error=ShowdownRefused)
    exclusion_start(player=alice, kind="time_out", length=1)
    longest = exclusion_start(player=alice, kind="self_exclusion", length="6m")
    with pytest.raises(ShowdownRefused) as refused:
        check_play(player=alice, error=ShowdownRefused)
    assert refused.value.code == "excluded"
    assert f"{longest.ends_at:%Y-%m-%d %H:%M}" in refused.value.message  # the one running longest
    type(alice).objects.filter(pk=alice.pk).update(is_active=False)
    with pytest.raises(ShowdownRefused) as refused:
        check_play(player=alice, error=ShowdownRefused)  # the suspension is said first
    assert refused.value.code == "account_suspended"
