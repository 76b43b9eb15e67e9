"""Celery tasks of the integrity checks (beat schedule in config/settings.py)."""

import logging

from celery import shared_task

from integrity.services import integrity_run

log = logging.getLogger(__name__)


@shared_task(name="integrity.run_nightly", ignore_result=True)
def run_nightly() -> int:
    """Each night: the checks over the last `INTEGRITY_WINDOW_DAYS` of finished hands, so the
    review queue staff open in the morning is fresh. Returns the run's id."""
    run = integrity_run()
    log.info("integrity run #%s: %s hands, %s queue entries", run.pk, run.hands, run.entries)
    return run.pk
