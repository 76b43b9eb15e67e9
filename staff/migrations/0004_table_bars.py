"""Every role reads the table bars (players staff removed from a table, until when); table
managers, who remove players, lift them (the `remove_seat` tool permission they hold)."""

import importlib

from django.db import migrations

GRANTS = {
    "support": [("poker", "view_tablebar")],
    "table managers": [("poker", "view_tablebar")],
    "cashier managers": [("poker", "view_tablebar")],
}


def grant_bar_view(apps, schema_editor=None):
    """Also called by the tests' `make_staff` after 0002's `create_roles`."""
    importlib.import_module("staff.migrations.0003_waiting_tools").grant(apps, GRANTS)


def revoke_bar_view(apps, schema_editor):
    importlib.import_module("staff.migrations.0003_waiting_tools").revoke(apps, GRANTS)


class Migration(migrations.Migration):
    dependencies = [
        ("staff", "0003_waiting_tools"),
        ("poker", "0013_table_bar"),
    ]

    operations = [migrations.RunPython(grant_bar_view, revoke_bar_view)]
