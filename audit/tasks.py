"""Celery tasks of the audit log (beat schedule in config/settings.py)."""

import logging

from celery import shared_task

from audit.services import audit_chain_link
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


@shared_task(name="audit.link_pending", ignore_result=True)
def link_pending() -> int:
    """Every few seconds: link the records of commits that found the chain head busy and did
    not wait for it (migration audit 0006), so the unlinked tail stays young when the room is
    quiet (a busy room links them at its next commit)."""
    return audit_chain_link()
