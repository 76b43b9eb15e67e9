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
    waiting = importlib.import_module("staff.migrations.0003_waiting_tools")
    waiting.grant(apps, GRANTS)


def revoke_bar_view(apps, schema_editor):
    Permission = apps.get_model("auth", "Permission")
    view = Permission.objects.filter(content_type__app_label="poker", codename="view_tablebar")
    for group in apps.get_model("auth", "Group").objects.filter(name__in=GRANTS):
        group.permissions.remove(*view)


class Migration(migrations.Migration):
    dependencies = [
        ("staff", "0003_waiting_tools"),
        ("poker", "0013_table_bar"),
    ]

    operations = [migrations.RunPython(grant_bar_view, revoke_bar_view)]
