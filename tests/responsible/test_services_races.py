"""A time-out taken while the player's table deals and plays: the exclusion's transaction and
the table's changes take their locks in one order (responsible/services.py `exclusion_start`,
docs/architecture.md "Lock order"), so PostgreSQL never aborts one of them as a deadlock, and
the money stays exact."""

import functools

import pytest

from cashier.verify import ledger_verify
from poker.models import Hand, Seat
from responsible.services import exclusion_start
from tests.factories import deal_and_play_out, make_seated_player, make_table, run_together

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = 12  # before the order was fixed, the first round or two already deadlocked


def test_a_time_out_taken_mid_hand_never_deadlocks_against_the_tables_changes():
    for n in range(ROUNDS):
        table = make_table(name=f"Race {n}", next_hand_delay_seconds=3600)
        players = {
            seat: make_seated_player(table, f"{name}{n}", seat)
            for seat, name in ((1, "ann"), (2, "ben"), (3, "cy"))
        }
        excluded = players[1 + n % 3]
        failures = run_together(
            functools.partial(deal_and_play_out, table, players),
            functools.partial(exclusion_start, player=excluded, kind="time_out", length=1),
        )
        assert failures == [], f"round {n}: {failures}"
        assert not Hand.objects.filter(table=table, status=Hand.Status.RUNNING).exists()
        # Out after the hand (or at once, before it was dealt), as the exclusion says.
        assert not Seat.objects.filter(table=table, player=excluded).exists()
    assert ledger_verify().ok
