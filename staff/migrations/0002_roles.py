"""The staff roles as Django groups (docs/operations.md, "Staff roles and tools").

Every role reads the room (tables, seats, hands, incidents, the ledger, adjustments, players,
notes, responsible gaming, the banked game, the audit log); on top of that:

- support: notes on players;
- table managers: edit tables, and the table tools (cancel a hand, remove a player from a
  seat, close and reopen a table);
- cashier managers: ask for balance adjustments and approve other staff's, and suspend and
  reinstate accounts.

A member must also be `is_staff` to reach the admin. Roles add up: someone in two groups has
both sets of rights (the four-eyes rule still refuses anyone approving their own request).
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations

READ = [
    ("poker", "view_table"),
    ("poker", "view_seat"),
    ("poker", "view_hand"),
    ("poker", "view_handincident"),
    ("poker", "view_rakeschedule"),
    ("poker", "view_rngcheck"),
    ("cashier", "view_account"),
    ("cashier", "view_entry"),
    ("cashier", "view_posting"),
    ("cashier", "view_balanceadjustment"),
    ("lobby", "view_profile"),
    ("responsible", "view_depositlimit"),
    ("responsible", "view_exclusion"),
    ("responsible", "view_realitycheck"),
    ("responsible", "view_responsiblegamingevent"),
    ("showdown", "view_showdowntable"),
    ("showdown", "view_showdownround"),
    ("showdown", "view_paytable"),
    ("audit", "view_auditrecord"),
    ("staff", "view_player"),
    ("staff", "view_playernote"),
]

ROLES = {
    "support": READ + [("staff", "add_playernote")],
    "table managers": READ
    + [
        ("poker", "change_table"),
        ("staff", "cancel_hand"),
        ("staff", "remove_seat"),
        ("staff", "close_table"),
    ],
    "cashier managers": READ
    + [
        ("cashier", "add_balanceadjustment"),
        ("cashier", "approve_balanceadjustment"),
        ("staff", "suspend_player"),
    ],
}


MOVED_TO = {"lobby": "accounts"}


def create_roles(apps, schema_editor=None):
    """Also called by the tests' `make_staff` with the real registry, after a transactional
    test's flush emptied the groups."""
    # Permissions are normally made after every migration ran (post_migrate): make them now.
    for app_config in apps.get_app_configs():
        models_module = getattr(app_config, "models_module", None)
        app_config.models_module = models_module or True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = models_module
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for name, codes in ROLES.items():
        group, _ = Group.objects.get_or_create(name=name)
        permissions = []
        for app_label, codename in codes:
            # Profile moved to accounts later (accounts 0001 relabels its content type): the
            # tests' make_staff runs this with today's registry, where it is under accounts.
            labels = [app_label, MOVED_TO.get(app_label, app_label)]
            permissions.append(
                Permission.objects.get(content_type__app_label__in=labels, codename=codename)
            )
        group.permissions.set(permissions)


def remove_roles(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=ROLES).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("staff", "0001_notes_and_tools"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("poker", "0005_rng_check"),
        ("cashier", "0005_balance_adjustments"),
        ("lobby", "0002_email_verification"),
        ("responsible", "0001_initial"),
        ("showdown", "0004_live_seat_leave_pending"),
        ("audit", "0001_audit_log"),
    ]

    operations = [migrations.RunPython(create_roles, remove_roles)]
