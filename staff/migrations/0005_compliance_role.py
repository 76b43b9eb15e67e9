"""The compliance role (docs/operations.md, "Identity checks"): it reads the room as every role
does, and alone reads, opens and decides identity documents and decides withdrawals waiting for
them (approve, reject, hold, release). Every role may see those withdrawals (no document)."""

import importlib

from django.db import migrations

_ROLES = importlib.import_module("staff.migrations.0002_roles")
# Every role's reading of the room, under the labels the models have now (profiles moved).
READ = [(_ROLES.MOVED_TO.get(app, app), code) for app, code in _ROLES.READ]
VIEW_WAITING = [("cashier", "view_pendingwithdrawal")]
COMPLIANCE = [
    *VIEW_WAITING,
    ("cashier", "decide_pendingwithdrawal"),
    ("verification", "view_identity"),
    ("verification", "view_document"),
    ("verification", "review_document"),
    ("verification", "view_document_file"),
    ("poker", "view_waitingentry"),
    ("poker", "view_tablebar"),
    ("poker", "view_chatmessage"),
    ("responsible", "view_losslimit"),
    ("responsible", "view_termsversion"),
    ("responsible", "view_termsacceptance"),
]
GRANTS = {
    "compliance": READ + COMPLIANCE,
    "support": VIEW_WAITING,
    "table managers": VIEW_WAITING,
    "cashier managers": VIEW_WAITING,
}


def grant_compliance(apps, schema_editor=None):
    """Also called by the tests' `make_staff` after staff 0002's `create_roles`."""
    importlib.import_module("staff.migrations.0003_waiting_tools").grant(apps, GRANTS)


def revoke_compliance(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name="compliance").delete()
    importlib.import_module("staff.migrations.0003_waiting_tools").revoke(
        apps, {name: codes for name, codes in GRANTS.items() if name != "compliance"}
    )


class Migration(migrations.Migration):
    dependencies = [
        ("staff", "0004_table_bars"),
        ("cashier", "0009_pending_withdrawals"),
        ("verification", "0001_identity_documents"),
        ("responsible", "0004_staff_view"),
        ("poker", "0017_table_chat"),
        # After profiles moved to accounts: its permissions are made for the apps as they are.
        ("lobby", "0004_accounts_move_out"),
    ]

    operations = [migrations.RunPython(grant_compliance, revoke_compliance)]
