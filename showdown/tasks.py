"""The banked game's periodic task: void rounds unresolved for 90 days (RULES.md 6)."""

from celery import shared_task

from showdown.services import rounds_void_stale


@shared_task(name="showdown.void_stale_rounds")
def void_stale_rounds() -> int:
    """From beat, daily: each due round voided in its own transaction; how many."""
    return len(rounds_void_stale())


@shared_task(name="showdown.live_round_advance", ignore_result=True)
def live_round_advance(round_id: int, phase: str) -> str:
    """A live round's timer at its deadline: deal, or fold the undecided and settle. Does
    nothing once the round has moved on (the service re-reads it under the table lock)."""
    from showdown.live import live_round_advance as advance

    return advance(round_id=round_id, phase=phase)


@shared_task(name="showdown.sweep_live_rounds")
def sweep_live_rounds() -> dict:
    """Every few seconds, from beat: live rounds past their deadline (a lost timer's backstop)."""
    from showdown.live import live_rounds_sweep

    return live_rounds_sweep()
