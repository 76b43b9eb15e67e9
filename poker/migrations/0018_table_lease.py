"""The lease of the process that holds a table in memory, with a fencing
number (poker/services/unit.py)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("poker", "0017_table_chat"),
    ]

    operations = [
        migrations.AddField(
            model_name="table",
            name="lease_owner",
            field=models.CharField(blank=True, default="", editable=False, max_length=200),
        ),
        migrations.AddField(
            model_name="table",
            name="lease_epoch",
            field=models.PositiveBigIntegerField(default=0, editable=False),
        ),
        migrations.AddField(
            model_name="table",
            name="lease_expires_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
    ]
