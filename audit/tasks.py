"""Celery tasks of the audit log (beat schedule in config/settings.py)."""

import logging

from celery import shared_task

from audit.verify import verifications_record

log = logging.getLogger(__name__)


@shared_task(name="audit.verify_daily", ignore_result=True)
def verify_daily() -> dict:
    """Once a day: verify_ledger and verify_audit, each result recorded in the audit log and
    shown in the admin ("Verification runs")."""
    results = verifications_record()
    for name, ok in results.items():
        if not ok:
            log.error("daily verification FAILED: %s (see the audit log's verify.%s)", name, name)
    return results
