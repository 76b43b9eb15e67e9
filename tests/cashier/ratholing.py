"""Playing at a table and leaving with a given stack, for the ratholing tests: the buy-in,
the stack moved by a settled hand against a feeder, and the cash-out."""

import itertools
import uuid
from datetime import timedelta

from cashier.selectors import buy_in_range, table_stack_balance
from cashier.services import (
    hand_settle,
    table_buy_in,
    table_cash_out,
    table_top_up,
)
from tests.factories import table_stakes

MIN, MAX = 5_000, 10_000  # $0.50/$1 pot limit: 50 and 100 big blinds
hand_ids = itertools.count(10_000)


def play_and_leave(player, table, *, left_with, at, feeder, buy_in=None):
    """Sit (a minute before `at`), reach `left_with` chips, and cash out at `at`."""
    sit_at = at - timedelta(minutes=1)
    low, high = buy_in_range(player=player, table=table, now=sit_at)
    amount = buy_in if buy_in is not None else max(low, min(high, left_with))
    table_buy_in(
        player=player, **table_stakes(table), amount=amount, idempotency_key=key(), now=sit_at
    )
    adjust_stack(player, table, left_with, feeder, at)
    entry = table_cash_out(player=player, table_id=table.pk, now=at)
    assert entry is not None
    return entry


def key() -> str:
    return uuid.uuid4().hex


def adjust_stack(player, table, target, feeder, at):
    """Win or lose chips against `feeder` in a settled hand until the stack is `target`."""
    diff = target - table_stack_balance(player=player, table=table)
    if diff == 0:
        return
    feeder_stack = table_stack_balance(player=feeder, table=table)
    if feeder_stack == 0:
        table_buy_in(
            player=feeder, **table_stakes(table), amount=MAX, idempotency_key=key(), now=at
        )
    elif feeder_stack < diff:
        table_top_up(
            player=feeder,
            **table_stakes(table),
            amount=MAX - feeder_stack,
            idempotency_key=key(),
            now=at,
        )
    hand_settle(
        table_id=table.pk,
        hand_id=next(hand_ids),
        net_by_player={player.pk: diff, feeder.pk: -diff},
        rake=0,
    )
