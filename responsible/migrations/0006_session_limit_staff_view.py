"""Every staff role reads the players' session limits and play sessions, as the loss limits
(docs/operations.md, "Session length limits")."""

import importlib

from django.db import migrations

VIEW = [("responsible", "view_sessionlimit"), ("responsible", "view_playsession")]
GRANTS = {"support": VIEW, "table managers": VIEW, "cashier managers": VIEW}


def grant_session_view(apps, schema_editor=None):
    """Also called by the tests' `make_staff` after staff 0002's `create_roles`."""
    importlib.import_module("staff.migrations.0003_waiting_tools").grant(apps, GRANTS)


def revoke_session_view(apps, schema_editor):
    importlib.import_module("staff.migrations.0003_waiting_tools").revoke(apps, GRANTS)


class Migration(migrations.Migration):
    dependencies = [
        ("responsible", "0005_session_limits"),
        # After profiles moved to accounts: its permissions are made for the apps as they are.
        ("lobby", "0004_accounts_move_out"),
    ]

    operations = [migrations.RunPython(grant_session_view, revoke_session_view)]
