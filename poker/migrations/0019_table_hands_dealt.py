"""The number of a table's last hand dealt kept on its row, so a deal numbers its
hand from the locked row instead of a MAX over the table's hands."""

from django.db import migrations, models
from django.db.models import Max, OuterRef, Subquery
from django.db.models.functions import Coalesce


def hands_dealt_count(apps, schema_editor):
    Table = apps.get_model("poker", "Table")
    Hand = apps.get_model("poker", "Hand")
    last = (
        Hand.objects.filter(table=OuterRef("pk"))
        .order_by()
        .values("table")
        .annotate(top=Max("number"))
        .values("top")
    )
    Table.objects.update(hands_dealt=Coalesce(Subquery(last), 0))


class Migration(migrations.Migration):
    dependencies = [
        ("poker", "0018_table_lease"),
    ]

    operations = [
        migrations.AddField(
            model_name="table",
            name="hands_dealt",
            field=models.PositiveIntegerField(default=0, editable=False),
        ),
        migrations.RunPython(hands_dealt_count, migrations.RunPython.noop),
    ]
