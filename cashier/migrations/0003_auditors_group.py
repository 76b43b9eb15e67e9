"""The "auditors" group: members may export the ledger (read-only), nothing else."""

from django.db import migrations

AUDITORS = "auditors"


def create_group(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Group.objects.get_or_create(name=AUDITORS)


def remove_group(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Group.objects.filter(name=AUDITORS).delete()


class Migration(migrations.Migration):
    dependencies = [("cashier", "0002_ledger_triggers"), ("auth", "0012_alter_user_first_name_max_length")]

    operations = [migrations.RunPython(create_group, remove_group)]
