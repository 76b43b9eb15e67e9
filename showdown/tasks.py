"""The banked game's tasks: void rounds unresolved for 90 days (RULES.md 6), the live table's
timers and their sweep."""

from celery import shared_task

from config.timeouts import Timeout
from showdown.services import rounds_void_stale


@shared_task(name="showdown.void_stale_rounds")
def void_stale_rounds() -> int:
    """From beat, daily: each due round voided in its own transaction; how many."""
    return len(rounds_void_stale())


def live_round_timeout(timeout: Timeout) -> str:
    """A live round's timer at its deadline (`config.timeouts`): deal, or fold the undecided
    and settle. Does nothing once the round has moved on from the phase it was set in."""
    from showdown.live import live_round_advance

    return live_round_advance(round_id=timeout.ref_id, phase=str(timeout.step))


@shared_task(name="showdown.sweep_live_rounds")
def sweep_live_rounds() -> dict:
    """Every few seconds, from beat: live rounds past their deadline (a lost timer's backstop)."""
    from showdown.live import live_rounds_sweep

    return live_rounds_sweep()
