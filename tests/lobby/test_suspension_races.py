"""A suspension made while the player's table deals and plays: the account tool's transaction
and the table's changes take their locks in one order (lobby/suspension.py, docs/architecture.md
"Lock order"), so PostgreSQL never aborts one of them as a deadlock, and the money stays
exact."""

import functools

import pytest

from cashier.verify import ledger_verify
from lobby.suspension import account_suspend
from poker.models import Hand, Seat
from tests.factories import (
    deal_and_play_out,
    make_seated_player,
    make_staff,
    make_table,
    run_together,
)

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = 8


def test_a_suspension_mid_hand_never_deadlocks_against_the_tables_changes():
    manager = make_staff("cm", "cashier managers")
    for n in range(ROUNDS):
        table = make_table(name=f"Race {n}", next_hand_delay_seconds=3600)
        players = {
            seat: make_seated_player(table, f"{name}{n}", seat)
            for seat, name in ((1, "ann"), (2, "ben"), (3, "cy"))
        }
        suspended = players[1 + n % 3]
        failures = run_together(
            functools.partial(deal_and_play_out, table, players),
            functools.partial(
                account_suspend, player=suspended, staff=manager, reason="fraud check"
            ),
        )
        assert failures == [], f"round {n}: {failures}"
        assert not Hand.objects.filter(table=table, status=Hand.Status.RUNNING).exists()
        assert not Seat.objects.filter(table=table, player=suspended).exists()
    assert ledger_verify().ok
