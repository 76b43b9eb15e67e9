"""Each player's net of a finished hand on their HandPlayer row (hand histories),
filled for the hands already played from their stored result."""

from django.db import migrations, models


def nets_fill(apps, schema_editor):
    Hand = apps.get_model("poker", "Hand")
    HandPlayer = apps.get_model("poker", "HandPlayer")
    finished = Hand.objects.filter(status="finished").exclude(result=None).only("id", "result")
    for hand in finished.iterator(chunk_size=500):
        net_by_seat = {entry["seat"]: entry["net"] for entry in hand.result.get("seats", [])}
        rows = list(HandPlayer.objects.filter(hand_id=hand.pk))
        for row in rows:
            row.net = net_by_seat.get(row.seat, 0)
        HandPlayer.objects.bulk_update(rows, ["net"])


class Migration(migrations.Migration):
    dependencies = [("poker", "0008_hand_players_only")]

    operations = [
        migrations.AddField(
            model_name="handplayer",
            name="net",
            field=models.BigIntegerField(blank=True, null=True),
        ),
        migrations.RunPython(nets_fill, migrations.RunPython.noop),
    ]
