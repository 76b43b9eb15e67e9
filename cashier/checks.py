"""`manage.py check --deploy --database default`: is the room connected as a role that could
switch the ledger's guards off?

The ledger's triggers (migrations 0002 and 0004) bind every role but the tables' owner and
superusers; the room's processes should connect as the app role `db_grant_app_role` sets up
(docs/operations.md). Database checks run only when a database is named, so plain `check
--deploy` and `migrate` (which runs as the owner) do not ask.
"""

from django.core.checks import Tags, Warning, register
from django.db import connections

from cashier.models import Entry


@register(Tags.database, deploy=True)
def ledger_guards_hold(app_configs=None, databases=None, **kwargs) -> list[Warning]:
    warnings = []
    for alias in databases or ():
        connection = connections[alias]
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT current_user, rolsuper, coalesce((SELECT pg_has_role(current_user, "
                "tableowner, 'MEMBER') FROM pg_tables WHERE schemaname = current_schema() "
                "AND tablename = %s), false) FROM pg_roles WHERE rolname = current_user",
                [Entry._meta.db_table],
            )
            user, superuser, owner = cursor.fetchone()
        if superuser or owner:
            warnings.append(
                Warning(
                    f"Database {alias!r} is used as {user!r}, "
                    f"{'a superuser' if superuser else 'the owner of the ledger tables'}: "
                    "it could switch the ledger's triggers off.",
                    hint="Run migrate as the owner and the room's processes as an app role "
                    "(manage.py db_grant_app_role, docs/operations.md).",
                    id="cashier.W001",
                )
            )
    return warnings
