"""Set up the PostgreSQL role the room's processes connect as (see cashier/database_roles.py).

Run it as the tables' owner (the `DATABASE_URL` that `migrate` uses) after every migrate:

    DATABASE_URL=postgres://room_owner@db/room python manage.py db_grant_app_role --role room_app
"""

import os

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, DatabaseError

from cashier.database_roles import RoleError, app_role_grant

PASSWORD_VARIABLE = "APP_ROLE_PASSWORD"


class Command(BaseCommand):
    help = (
        "Grant a PostgreSQL role exactly what the running room needs (DML, but entries and "
        "postings append-only and only balances of accounts updatable) and nothing it could "
        "use to switch the ledger's triggers off. Run as the tables' owner after each migrate."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--role", required=True, help="the role the processes connect as")
        parser.add_argument(
            "--create",
            action="store_true",
            help=f"create the role (LOGIN) if it does not exist, with the password in "
            f"${PASSWORD_VARIABLE} if set",
        )
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS)

    def handle(self, *args, role: str, create: bool, database: str, **options) -> None:
        try:
            statements = app_role_grant(
                role=role,
                create=create,
                password=os.environ.get(PASSWORD_VARIABLE) or None,
                using=database,
            )
        except RoleError as error:
            raise CommandError(error.message) from error
        except DatabaseError as error:
            raise CommandError(f"PostgreSQL refused: {error}") from error
        for statement in statements:
            self.stdout.write(f"{statement};")
        self.stdout.write(
            self.style.SUCCESS(
                f"{role} may now run the room and cannot change the ledger's history or guards."
            )
        )
