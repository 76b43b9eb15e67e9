"""The waiting-list tools: a permission for table managers, and every role may now
read waiting lists (the table page's list and each entry's page with its tools)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

VIEW = ("poker", "view_waitingentry")
GRANTS = {
    "support": [VIEW],
    "table managers": [VIEW, ("staff", "manage_waiting")],
    "cashier managers": [VIEW],
}


def grant_waiting_tools(apps, schema_editor=None):
    """Also called by the tests' `make_staff` after 0002's `create_roles`, which sets each
    group's permissions afresh: this adds to them."""
    grant(apps, GRANTS)


def grant(apps, grants: dict) -> None:
    """Add each group's permissions (creating permissions not made yet: migrations run before
    Django's post_migrate creates them)."""
    for app_config in apps.get_app_configs():
        models_module = getattr(app_config, "models_module", None)
        app_config.models_module = models_module or True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = models_module
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for name, codes in grants.items():
        group, _ = Group.objects.get_or_create(name=name)
        for app_label, codename in codes:
            group.permissions.add(
                Permission.objects.get(content_type__app_label=app_label, codename=codename)
            )


def revoke_waiting_tools(apps, schema_editor):
    Permission = apps.get_model("auth", "Permission")
    Permission.objects.filter(content_type__app_label="staff", codename="manage_waiting").delete()
    revoke(apps, GRANTS)


def revoke(apps, grants: dict) -> None:
    """Take each group's granted permissions away again."""
    Permission = apps.get_model("auth", "Permission")
    for group in apps.get_model("auth", "Group").objects.filter(name__in=grants):
        for app_label, codename in grants[group.name]:
            group.permissions.remove(
                *Permission.objects.filter(content_type__app_label=app_label, codename=codename)
            )


class Migration(migrations.Migration):
    dependencies = [
        ("staff", "0002_roles"),
        ("poker", "0010_waiting_list"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="tool",
            options={
                "default_permissions": (),
                "managed": False,
                "permissions": [
                    ("cancel_hand", "Can cancel a running hand"),
                    ("remove_seat", "Can remove a player from a seat"),
                    ("close_table", "Can close and reopen a table"),
                    (
                        "manage_waiting",
                        "Can remove, move and offer a seat to a player on a waiting list",
                    ),
                ],
            },
        ),
        migrations.RunPython(grant_waiting_tools, revoke_waiting_tools),
    ]
