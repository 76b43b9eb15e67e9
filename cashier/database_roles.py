"""The PostgreSQL role the room runs as: it owns nothing and may only do the DML it needs.

The ledger's triggers (migrations 0002 and 0004) hold only against a role that cannot switch
them off, and the owner of a table can (`ALTER TABLE ... DISABLE TRIGGER`, `DROP TRIGGER`).
So `migrate` runs as the owner and daphne and the Celery processes connect as an app role that:

- reads, inserts, updates and deletes rows of every table in the schema, and uses sequences;
- only reads and inserts ledger entries and postings: history is append-only even without
  the triggers;
- updates only an account's `balance` and `in_hand_id`: its kind, owner and table cannot
  change even without the trigger (column privileges);
- only reads and inserts audit records and hand events (`poker_handevent`);
- only reads `django_migrations`.

Default privileges give tables that later migrations create (as the owner) the same plain DML;
granting again after each `migrate` re-applies the restrictions above (it is idempotent).
Before granting, the role is refused if it could act as an owner after all: a superuser, a
role with CREATEROLE or BYPASSRLS, a member of the role owning any table, the schema or the
database, or a role that may CREATE in the schema (where it could plant a look-alike operator
for the ledger's trigger functions to pick up).
"""

from __future__ import annotations

import re

from django.db import connections, transaction
from psycopg import sql

from audit.models import AuditChainHead, AuditRecord
from cashier.models import Account, Entry, Posting
from config.errors import Refused

ROLE_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
PLAIN_DML = ("SELECT", "INSERT", "UPDATE", "DELETE")


class RoleError(Refused):
    """The app role cannot be set up as asked; nothing was granted."""


def _restricted_tables() -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """table -> (table privileges, columns the role may UPDATE) where plain DML is too much."""
    return {
        Entry._meta.db_table: (("SELECT", "INSERT"), ()),
        Posting._meta.db_table: (("SELECT", "INSERT"), ()),
        Account._meta.db_table: (("SELECT", "INSERT"), ("balance", "in_hand_id")),
        "django_migrations": (("SELECT",), ()),
        # The audit log: written only by INSERT; its chain trigger runs as the owner.
        AuditRecord._meta.db_table: (("SELECT", "INSERT"), ()),
        AuditChainHead._meta.db_table: (("SELECT",), ()),
        # The transactions whose records wait to be linked (audit 0007): the linker's only.
        "audit_chainpending": (("SELECT",), ()),
        # A hand's event log (poker.HandEvent, named not imported: the cashier is below the
        # games): written once per event, like the ledger.
        "poker_handevent": (("SELECT", "INSERT"), ()),
    }


def app_role_grant(
    *, role: str, create: bool = False, password: str | None = None, using: str = "default"
) -> list[str]:
    """Give `role` exactly the app's privileges on the tables of `using`'s current schema and
    return the statements run (a password shown as '***'). With `create`, a missing role is
    created first (LOGIN, with `password` if given). Runs as the tables' owner or a superuser."""
    if not isinstance(role, str) or not ROLE_NAME.match(role):
        raise RoleError(
            "invalid_role",
            f"Not a role name: {role!r}. Use lower-case letters, digits and underscores.",
        )
    connection = connections[using]
    with transaction.atomic(using=using), connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_schema(), current_database(), current_user, "
            "(SELECT tableowner FROM pg_tables WHERE schemaname = current_schema() "
            "AND tablename = %s)",
            [Entry._meta.db_table],
        )
        schema, database, me, owner = cursor.fetchone()
        if owner is None:
            raise RoleError(
                "not_migrated", f"No ledger tables in schema {schema!r}: run migrate first."
            )
        if role in (owner, me):
            raise RoleError(
                "role_is_owner",
                f"{role!r} owns the tables (or is running this command); the app role must "
                "be another role.",
            )
        cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
        exists = cursor.fetchone() is not None
        if not exists and not create:
            raise RoleError(
                "unknown_role", f"There is no role {role!r}; create it, or pass --create."
            )
        raw = connection.connection
        shown: list[str] = []

        def run(statement: sql.Composable, display: sql.Composable | None = None) -> None:
            cursor.execute(statement.as_string(raw))
            shown.append((display or statement).as_string(raw))

        name, the_owner = sql.Identifier(role), sql.Identifier(owner)
        the_schema, the_database = sql.Identifier(schema), sql.Identifier(database)
        if not exists:
            create_role = sql.SQL(
                "CREATE ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"
            ).format(name)
            if password:
                run(
                    sql.SQL("{} PASSWORD {}").format(create_role, sql.Literal(password)),
                    sql.SQL("{} PASSWORD '***'").format(create_role),
                )
            else:
                run(create_role)
        problems = _role_problems(cursor, role=role, schema=schema)
        if problems:
            raise RoleError(
                "role_too_powerful",
                f"{role!r} could switch the ledger's guards off: {'; '.join(problems)}.",
            )
        run(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(the_database, name))
        run(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(the_schema, name))
        run(sql.SQL("REVOKE ALL ON ALL TABLES IN SCHEMA {} FROM {}").format(the_schema, name))
        run(
            sql.SQL("GRANT {} ON ALL TABLES IN SCHEMA {} TO {}").format(
                sql.SQL(", ").join(map(sql.SQL, PLAIN_DML)), the_schema, name
            )
        )
        run(sql.SQL("GRANT USAGE ON ALL SEQUENCES IN SCHEMA {} TO {}").format(the_schema, name))
        for table, (privileges, columns) in _restricted_tables().items():
            target = sql.Identifier(schema, table)
            run(sql.SQL("REVOKE ALL ON {} FROM {}").format(target, name))
            run(
                sql.SQL("GRANT {} ON {} TO {}").format(
                    sql.SQL(", ").join(map(sql.SQL, privileges)), target, name
                )
            )
            if columns:
                run(
                    sql.SQL("GRANT UPDATE ({}) ON {} TO {}").format(
                        sql.SQL(", ").join(map(sql.Identifier, columns)), target, name
                    )
                )
        run(
            sql.SQL(
                "ALTER DEFAULT PRIVILEGES FOR ROLE {} IN SCHEMA {} GRANT {} ON TABLES TO {}"
            ).format(the_owner, the_schema, sql.SQL(", ").join(map(sql.SQL, PLAIN_DML)), name)
        )
        run(
            sql.SQL(
                "ALTER DEFAULT PRIVILEGES FOR ROLE {} IN SCHEMA {} GRANT USAGE ON SEQUENCES TO {}"
            ).format(the_owner, the_schema, name)
        )
    return shown


def _role_problems(cursor, *, role: str, schema: str) -> list[str]:
    """Why `role` could act as an owner of the ledger after all (empty when it cannot)."""
    cursor.execute(
        "SELECT rolsuper, rolcreaterole, rolbypassrls FROM pg_roles WHERE rolname = %s", [role]
    )
    superuser, createrole, bypassrls = cursor.fetchone()
    problems = [
        what
        for flag, what in [
            (superuser, "it is a superuser"),
            (createrole, "it has CREATEROLE (it could grant itself the owner's role)"),
            (bypassrls, "it has BYPASSRLS"),
        ]
        if flag
    ]
    cursor.execute(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = %s AND pg_has_role(%s, c.relowner, 'MEMBER') ORDER BY c.relname",
        [schema, role],
    )
    owned = [row[0] for row in cursor.fetchall()]
    if owned:
        shown = ", ".join(owned[:5]) + (" ..." if len(owned) > 5 else "")
        problems.append(f"it owns, or is a member of the owner of, {shown}")
    cursor.execute(
        "SELECT pg_has_role(%s, n.nspowner, 'MEMBER'), has_schema_privilege(%s, n.oid, 'CREATE'),"
        " (SELECT pg_has_role(%s, datdba, 'MEMBER') FROM pg_database "
        "  WHERE datname = current_database()) "
        "FROM pg_namespace n WHERE n.nspname = %s",
        [role, role, role, schema],
    )
    owns_schema, creates, owns_database = cursor.fetchone()
    if owns_schema:
        problems.append(f"it owns schema {schema!r} (or is a member of its owner)")
    elif creates:
        problems.append(
            f"it may CREATE in schema {schema!r} (REVOKE CREATE ON SCHEMA {schema} FROM PUBLIC, "
            "and grant CREATE to the tables' owner only)"
        )
    if owns_database:
        problems.append("it owns the database (or is a member of its owner)")
    return problems
