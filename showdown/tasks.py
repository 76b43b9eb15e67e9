"""The banked game's periodic task: void rounds unresolved for 90 days (RULES.md 6)."""

from celery import shared_task

from showdown.services import rounds_void_stale


@shared_task(name="showdown.void_stale_rounds")
def void_stale_rounds() -> int:
    """From beat, daily: each due round voided in its own transaction; how many."""
    return len(rounds_void_stale())
