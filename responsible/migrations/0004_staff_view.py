"""Every staff role reads the players' loss limits, the terms' versions and who accepted which
(docs/operations.md, "Terms and fair-play policy"); publishing a version is for superusers (no
role holds `add_termsversion`)."""

import importlib

from django.db import migrations

VIEW = [
    ("responsible", "view_losslimit"),
    ("responsible", "view_termsversion"),
    ("responsible", "view_termsacceptance"),
]
GRANTS = {"support": VIEW, "table managers": VIEW, "cashier managers": VIEW}


def grant_staff_view(apps, schema_editor=None):
    """Also called by the tests' `make_staff` after staff 0002's `create_roles`."""
    importlib.import_module("staff.migrations.0003_waiting_tools").grant(apps, GRANTS)


def revoke_staff_view(apps, schema_editor):
    importlib.import_module("staff.migrations.0003_waiting_tools").revoke(apps, GRANTS)


class Migration(migrations.Migration):
    dependencies = [
        ("responsible", "0003_loss_limits"),
        ("staff", "0004_table_bars"),
    ]

    operations = [migrations.RunPython(grant_staff_view, revoke_staff_view)]
