"""Table chat: its messages, and the permissions to read them (every
staff role) and to remove one (support and table managers)."""

from django.contrib.auth.management import create_permissions
import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


VIEW = ("poker", "view_chatmessage")
REMOVE = ("poker", "remove_chatmessage")
GRANTS = {
    "support": [VIEW, REMOVE],
    "table managers": [VIEW, REMOVE],
    "cashier managers": [VIEW],
}


def grant_chat_moderation(apps, schema_editor=None):
    """Also called by the tests' `make_staff` after a flush emptied the groups."""
    for app_config in apps.get_app_configs():
        models_module = getattr(app_config, "models_module", None)
        app_config.models_module = models_module or True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = models_module
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for name, codes in GRANTS.items():
        group, _ = Group.objects.get_or_create(name=name)
        for app_label, codename in codes:
            group.permissions.add(
                Permission.objects.get(content_type__app_label=app_label, codename=codename)
            )


def revoke_chat_moderation(apps, schema_editor):
    Permission = apps.get_model("auth", "Permission")
    codes = [codename for _, codename in (VIEW, REMOVE)]
    Permission.objects.filter(content_type__app_label="poker", codename__in=codes).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("poker", "0016_seat_options"),
        ("staff", "0003_waiting_tools"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ChatMessage",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("seat", models.PositiveSmallIntegerField()),
                ("text", models.CharField(max_length=200)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("removed_at", models.DateTimeField(blank=True, null=True)),
                ("removed_reason", models.TextField(blank=True)),
                (
                    "player",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="table_chat_messages",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "removed_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "table",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="chat_messages",
                        to="poker.table",
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at", "-id"],
                "permissions": [("remove_chatmessage", "Can remove a table chat message")],
                "default_permissions": ("view",),
                "indexes": [models.Index(fields=["table", "created_at"], name="chat_table_time")],
            },
        ),
        migrations.RunPython(grant_chat_moderation, revoke_chat_moderation),
    ]
