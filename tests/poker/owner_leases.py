"""A table's lease as another owner would hold it, for the owner tests: set it, read the
table's row as the database has it."""

from datetime import timedelta

from channels.db import database_sync_to_async
from django.utils import timezone

from poker.models import Table

ELSEWHERE = "owner|elsewhere:1|"  # another host's owner, by the lease's naming


@database_sync_to_async
def lease_set(table, holder: str, seconds: float) -> None:
    Table.objects.filter(pk=table.pk).update(
        lease_owner=holder, lease_expires_at=timezone.now() + timedelta(seconds=seconds)
    )


@database_sync_to_async
def table_row(table) -> Table:
    return Table.objects.get(pk=table.pk)
