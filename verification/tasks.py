from celery import shared_task

from verification.services import documents_expire


@shared_task(name="verification.expire_documents")
def expire_documents() -> int:
    """Once a day: delete the files whose retention period ended (docs/operations.md)."""
    return documents_expire()
