"""The staff roles' rights on tournaments (docs/operations.md, "Tournaments"): every role reads
templates, Sit & Gos, registrations and cancellations; table managers edit templates and ask
for a cancellation; cashier managers approve or reject one (four eyes: never their own)."""

import importlib

from django.db import migrations

VIEW = [
    ("tournaments", "view_tournamenttemplate"),
    ("tournaments", "view_tournament"),
    ("tournaments", "view_registration"),
    ("tournaments", "view_cancellation"),
]
GRANTS = {
    "support": VIEW,
    "table managers": VIEW
    + [
        ("tournaments", "add_tournamenttemplate"),
        ("tournaments", "change_tournamenttemplate"),
        ("tournaments", "add_cancellation"),
    ],
    "cashier managers": VIEW + [("tournaments", "approve_cancellation")],
}


def grant_tournament_rights(apps, schema_editor=None):
    """Also called by the tests' `make_staff` after staff 0002's `create_roles`."""
    importlib.import_module("staff.migrations.0003_waiting_tools").grant(apps, GRANTS)


def revoke_tournament_rights(apps, schema_editor):
    importlib.import_module("staff.migrations.0003_waiting_tools").revoke(apps, GRANTS)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0001_sit_and_go"),
        ("staff", "0004_table_bars"),
        # After profiles moved to accounts: its permissions are made for the apps as they are.
        ("lobby", "0004_accounts_move_out"),
    ]

    operations = [migrations.RunPython(grant_tournament_rights, revoke_tournament_rights)]
