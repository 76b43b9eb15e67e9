"""Profile and EmailVerification move from lobby to accounts, keeping their tables and rows.

The models enter accounts' state only (their tables, `lobby_profile` and
`lobby_emailverification`, stay as they are); lobby 0004 drops them from lobby's state. Their
content types are relabelled, so staff roles' permissions (staff 0002) and admin history follow.
"""

import django.core.validators
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

MODELS = ("profile", "emailverification")


def content_types_relabel(apps, schema_editor, *, source="lobby", target="accounts"):
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.filter(app_label=source, model__in=MODELS).update(app_label=target)


def content_types_relabel_back(apps, schema_editor):
    content_types_relabel(apps, schema_editor, source="accounts", target="lobby")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("lobby", "0003_profile_language"),
        ("contenttypes", "0002_remove_content_type_name"),
        # The staff roles' permissions are made under `lobby` first (staff 0002, 0003), then
        # relabelled here: never two content types for one model.
        ("staff", "0003_waiting_tools"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Profile",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "display_name",
                            models.CharField(
                                max_length=20,
                                unique=True,
                                validators=[
                                    django.core.validators.RegexValidator(
                                        "^[A-Za-z0-9][A-Za-z0-9 _.-]{1,18}[A-Za-z0-9]$",
                                        "3 to 20 letters, digits, spaces, dots, dashes or "
                                        "underscores, starting and ending with a letter or digit.",
                                    )
                                ],
                            ),
                        ),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("display_name_changed_at", models.DateTimeField(blank=True, null=True)),
                        ("language", models.CharField(blank=True, default="", max_length=8)),
                        (
                            "user",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="profile",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={"db_table": "lobby_profile"},
                ),
                migrations.CreateModel(
                    name="EmailVerification",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("email", models.EmailField(max_length=254)),
                        ("verified_at", models.DateTimeField()),
                        (
                            "user",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="email_verification",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={"db_table": "lobby_emailverification"},
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(content_types_relabel, content_types_relabel_back),
    ]
