"""The live table's timers run by a real Celery worker: the betting timer deals, the decision
timer folds the undecided, and the sweep acts on stored deadlines (back-dated, not slept)."""

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from cashier.verify import ledger_verify
from showdown.live import live_seat_take, live_wagers_place
from showdown.models import LiveRound, ShowdownRound
from showdown.tasks import sweep_live_rounds
from tests.factories import make_funded_player, make_showdown_table


def wait_for_phase(live: LiveRound, phase: str, timeout: float = 45) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        live.refresh_from_db()
        if live.phase == phase:
            return
        time.sleep(0.2)
    pytest.fail(f"live round {live.pk} stayed {live.phase}, never reached {phase}")


@pytest.mark.django_db(transaction=True)
def test_the_worker_deals_then_folds_a_seat_that_does_not_decide(celery_worker_process):
    table = make_showdown_table(seats=7, bet_seconds=5, action_seconds=1)
    ann, bob = make_funded_player("ann"), make_funded_player("bob")
    live_seat_take(player=ann, table_id=table.pk, seat=1)
    live_seat_take(player=bob, table_id=table.pk, seat=2)
    # Placed with the clock set back: the betting window closed before the commit, so the timer
    # scheduled on commit is due at once; the worker deals and arms the one-second decision timer.
    live_wagers_place(
        player=ann,
        table_id=table.pk,
        ante=500,
        hole_card_bonus=100,
        idempotency_key="a1",
        now=timezone.now() - timedelta(seconds=30),
    )
    live = LiveRound.objects.get()
    wait_for_phase(live, LiveRound.Phase.SETTLED)
    mine = ShowdownRound.objects.get(player=ann)
    assert mine.status == ShowdownRound.Status.SETTLED
    assert mine.decision == "fold" and mine.bet == 0
    assert not ShowdownRound.objects.filter(player=bob).exists()
    assert ledger_verify().ok


@pytest.mark.django_db(transaction=True)
def test_the_sweep_deals_a_round_whose_timer_is_still_ahead(celery_worker_process):
    table = make_showdown_table(seats=7, bet_seconds=60, action_seconds=60)
    ann, bob = make_funded_player("ann"), make_funded_player("bob")
    live_seat_take(player=ann, table_id=table.pk, seat=3)
    live_seat_take(player=bob, table_id=table.pk, seat=4)
    live_wagers_place(player=ann, table_id=table.pk, ante=500, idempotency_key="a1")
    live = LiveRound.objects.get()
    assert sweep_live_rounds.delay().get(timeout=60) == {"dealt": 0, "settled": 0, "stood_up": 0}
    LiveRound.objects.filter(pk=live.pk).update(bet_deadline=timezone.now() - timedelta(seconds=1))
    assert sweep_live_rounds.delay().get(timeout=60) == {"dealt": 1, "settled": 0, "stood_up": 0}
    live.refresh_from_db()
    assert live.phase == LiveRound.Phase.DECIDING
    LiveRound.objects.filter(pk=live.pk).update(
        action_deadline=timezone.now() - timedelta(seconds=1)
    )
    assert sweep_live_rounds.delay().get(timeout=60) == {"dealt": 0, "settled": 1, "stood_up": 0}
    assert ShowdownRound.objects.get().decision == "fold"
    assert ledger_verify().ok
