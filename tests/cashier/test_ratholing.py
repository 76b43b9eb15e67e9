"""Every row of the ratholing table (RULES.md section 5), the 30-minute window and the daily
reset at 00:00 UTC, driven through the services with explicit times."""

from datetime import UTC, datetime, timedelta

import pytest

from cashier.selectors import buy_in_range, buy_in_terms, table_stack_balance
from cashier.services import (
    CashierError,
    table_buy_in,
    table_cash_out,
    table_top_up,
)
from tests.cashier.ratholing import MAX, MIN, key, play_and_leave
from tests.factories import make_funded_player, make_table, table_stakes

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


@pytest.fixture
def alice(db):
    return make_funded_player("alice", cents=10_000_000)


@pytest.fixture
def feeder(db):
    return make_funded_player("feeder", cents=10_000_000)


def test_a_fresh_player_gets_the_table_range(table, alice):
    assert buy_in_range(player=alice, table=table, now=T0) == (MIN, MAX)
    assert buy_in_terms(player=alice, table=table, now=T0).rule is None


def test_another_table_is_not_ratholing(table, alice, feeder):
    play_and_leave(alice, table, left_with=15_000, at=T0, feeder=feeder)
    other = make_table(name="Other")
    assert buy_in_range(player=alice, table=other, now=T0 + timedelta(minutes=1)) == (MIN, MAX)


def test_after_thirty_minutes_the_table_range_applies_again(table, alice, feeder):
    play_and_leave(alice, table, left_with=15_000, at=T0, feeder=feeder)
    assert buy_in_range(player=alice, table=table, now=T0 + timedelta(minutes=30)) == (
        MAX,
        15_000,
    )
    assert buy_in_range(player=alice, table=table, now=T0 + timedelta(minutes=30, seconds=1)) == (
        MIN,
        MAX,
    )


@pytest.mark.parametrize("left_with", [1_000, 4_000, 5_000])
def test_leaving_with_fifty_big_blinds_or_less_changes_nothing(table, alice, feeder, left_with):
    play_and_leave(alice, table, left_with=left_with, at=T0, feeder=feeder, buy_in=MIN)
    assert buy_in_range(player=alice, table=table, now=T0 + timedelta(minutes=5)) == (MIN, MAX)


@pytest.mark.parametrize("left_with", [5_001, 7_300, 9_999])
def test_between_fifty_and_a_hundred_the_minimum_is_what_they_left_with(
    table, alice, feeder, left_with
):
    play_and_leave(alice, table, left_with=left_with, at=T0, feeder=feeder)
    later = T0 + timedelta(minutes=10)
    assert buy_in_range(player=alice, table=table, now=later) == (left_with, MAX)
    terms = buy_in_terms(player=alice, table=table, now=later)  # the page says why
    assert (terms.rule, terms.left_with) == ("at_least_left_with", left_with)
    assert terms.until == T0 + timedelta(minutes=30)
    with pytest.raises(CashierError) as error:
        table_buy_in(
            player=alice, **table_stakes(table), amount=MIN, idempotency_key=key(), now=later
        )
    assert error.value.code == "buy_in_out_of_range"
    low = f"${left_with // 100}.{left_with % 100:02d}"
    assert f"between {low} and $100.00" in error.value.message
    table_buy_in(
        player=alice, **table_stakes(table), amount=left_with, idempotency_key=key(), now=later
    )


@pytest.mark.parametrize("left_with", [10_000, 15_000, 19_950])
def test_a_hundred_or_more_with_a_low_count_brings_at_least_the_maximum(
    table, alice, feeder, left_with
):
    play_and_leave(alice, table, left_with=left_with, at=T0, feeder=feeder)
    later = T0 + timedelta(minutes=29)
    assert buy_in_range(player=alice, table=table, now=later) == (MAX, left_with)
    terms = buy_in_terms(player=alice, table=table, now=later)
    assert (terms.rule, terms.left_with) == ("up_to_left_with", left_with)
    with pytest.raises(CashierError):
        table_buy_in(
            player=alice, **table_stakes(table), amount=MAX - 1, idempotency_key=key(), now=later
        )
    with pytest.raises(CashierError):
        table_buy_in(
            player=alice,
            **table_stakes(table),
            amount=left_with + 1,
            idempotency_key=key(),
            now=later,
        )
    table_buy_in(
        player=alice, **table_stakes(table), amount=left_with, idempotency_key=key(), now=later
    )


def rathole(player, table, *, times, start, feeder, left_with=15_000):
    """Leave with `left_with` and come back within the window `times` times; return the time
    of the last departure (the player is off the table then)."""
    at = start
    play_and_leave(player, table, left_with=left_with, at=at, feeder=feeder)
    for _ in range(times):
        at += timedelta(minutes=5)
        low, high = buy_in_range(player=player, table=table, now=at)
        amount = min(max(low, left_with), high)
        assert amount == left_with
        table_buy_in(
            player=player, **table_stakes(table), amount=amount, idempotency_key=key(), now=at
        )
        at += timedelta(minutes=1)
        table_cash_out(player=player, table_id=table.pk, now=at)
    return at


def test_the_fifth_rathole_of_the_day_forces_the_exact_stack(table, alice, feeder):
    last = rathole(alice, table, times=4, start=T0, feeder=feeder)
    # Four returns so far today: the fifth return may still bring 100 BB up to the stack.
    assert buy_in_range(player=alice, table=table, now=last + timedelta(minutes=5)) == (
        MAX,
        15_000,
    )
    last = rathole(alice, table, times=1, start=last + timedelta(minutes=10), feeder=feeder)
    # Now five returns: from here on it must be exactly the stack they left with.
    forced = last + timedelta(minutes=5)
    assert buy_in_range(player=alice, table=table, now=forced) == (15_000, 15_000)
    assert buy_in_terms(player=alice, table=table, now=forced).rule == "exactly_left_with"
    with pytest.raises(CashierError) as error:
        table_buy_in(
            player=alice, **table_stakes(table), amount=MAX, idempotency_key=key(), now=forced
        )
    assert "exactly $150.00" in error.value.message


def test_the_count_is_across_all_games(table, alice, feeder):
    hi_lo = make_table(name="Hi-lo", game="omaha8")
    last = rathole(alice, hi_lo, times=3, start=T0, feeder=feeder)
    last = rathole(alice, table, times=2, start=last + timedelta(minutes=40), feeder=feeder)
    assert buy_in_range(player=alice, table=table, now=last + timedelta(minutes=1)) == (
        15_000,
        15_000,
    )


def test_returning_with_less_than_a_hundred_does_not_count(table, alice, feeder):
    last = rathole(alice, table, times=6, start=T0, feeder=feeder, left_with=8_000)
    play_and_leave(alice, table, left_with=15_000, at=last + timedelta(minutes=40), feeder=feeder)
    assert buy_in_range(player=alice, table=table, now=last + timedelta(minutes=45)) == (
        MAX,
        15_000,
    )


def test_the_count_resets_at_midnight_utc(table, alice, feeder):
    evening = datetime(2026, 3, 10, 22, 0, tzinfo=UTC)
    last = rathole(alice, table, times=5, start=evening, feeder=feeder)
    # Leave once more at 23:55 with 150 BB.
    play_and_leave(
        alice,
        table,
        left_with=15_000,
        at=datetime(2026, 3, 10, 23, 55, tzinfo=UTC),
        feeder=feeder,
    )
    assert last < datetime(2026, 3, 10, 23, 55, tzinfo=UTC)
    before_midnight = datetime(2026, 3, 10, 23, 59, 59, tzinfo=UTC)
    after_midnight = datetime(2026, 3, 11, 0, 0, tzinfo=UTC)
    assert buy_in_range(player=alice, table=table, now=before_midnight) == (15_000, 15_000)
    assert buy_in_range(player=alice, table=table, now=after_midnight) == (MAX, 15_000)
    table_buy_in(
        player=alice, **table_stakes(table), amount=MAX, idempotency_key=key(), now=after_midnight
    )


def test_a_ratholer_may_top_up_to_what_they_left_with(table, alice, feeder):
    play_and_leave(alice, table, left_with=15_000, at=T0, feeder=feeder)
    back = T0 + timedelta(minutes=10)
    table_buy_in(player=alice, **table_stakes(table), amount=MAX, idempotency_key=key(), now=back)
    table_top_up(player=alice, **table_stakes(table), amount=5_000, idempotency_key=key(), now=back)
    with pytest.raises(CashierError) as error:
        table_top_up(player=alice, **table_stakes(table), amount=1, idempotency_key=key(), now=back)
    assert error.value.code == "top_up_over_max"
    assert table_stack_balance(player=alice, table=table) == 15_000
