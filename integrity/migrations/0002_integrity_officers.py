"""The "integrity officers" staff role: every role's reading of the room (staff 0002's list)
plus the integrity checks' pages, running them for a player, and working cases (opening,
notes, closing with an outcome, a suspension included: docs/operations.md "Game integrity").

The integrity data are this group's alone: the other roles do not read the queue or the
cases. The permissions live on the integrity models, so a role made elsewhere (a compliance
role) can be given them too without this group."""

import importlib

from django.db import migrations

OFFICERS = "integrity officers"
INTEGRITY = [
    ("integrity", "view_run"),
    ("integrity", "view_queueentry"),
    ("integrity", "view_signal"),
    ("integrity", "view_case"),
    ("integrity", "view_casenote"),
    ("integrity", "run_checks"),
    ("integrity", "work_case"),
]


def grant_integrity_officers(apps, schema_editor=None):
    """Also called by the tests' `make_staff` after staff 0002's `create_roles`."""
    read = importlib.import_module("staff.migrations.0002_roles").READ
    moved = importlib.import_module("staff.migrations.0002_roles").MOVED_TO
    codes = [(moved.get(app, app), code) for app, code in read] + INTEGRITY
    importlib.import_module("staff.migrations.0003_waiting_tools").grant(apps, {OFFICERS: codes})


def remove_integrity_officers(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=OFFICERS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("integrity", "0001_integrity_signals_and_cases"),
        ("staff", "0004_table_bars"),
        ("accounts", "0001_initial"),
        # After profiles moved to accounts: its permissions are made for the apps as they are.
        ("lobby", "0004_accounts_move_out"),
    ]

    operations = [migrations.RunPython(grant_integrity_officers, remove_integrity_officers)]
