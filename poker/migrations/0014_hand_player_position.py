"""Each player's position in a hand on their HandPlayer row ("My hands" shows it and filters by
it), filled for the hands already dealt from their event log: the hand's button and
seats (`hand_started`) and who posted which blind (`blind_posted`)."""

from django.db import migrations, models

from poker.engine.positions import position_names


def positions_fill(apps, schema_editor):
    HandEvent = apps.get_model("poker", "HandEvent")
    HandPlayer = apps.get_model("poker", "HandPlayer")
    starts = HandEvent.objects.filter(kind="hand_started").order_by("hand_id")
    for start in starts.only("hand_id", "payload").iterator(chunk_size=500):
        blinds = {
            event["blind"]: event["seat"]
            for event in HandEvent.objects.filter(hand_id=start.hand_id, kind="blind_posted")
            .order_by("seq")
            .values_list("payload", flat=True)
            if event.get("blind") in ("small", "big")
        }
        seats = [seat for seat, _stack in start.payload["seats"]]
        if "big" not in blinds or blinds["big"] not in seats:
            continue
        names = position_names(
            seats=seats, button=start.payload.get("button"),
            small_blind_seat=blinds.get("small"), big_blind_seat=blinds["big"],
        )  # fmt: skip
        rows = list(HandPlayer.objects.filter(hand_id=start.hand_id))
        for row in rows:
            row.position = names.get(row.seat, "")
        HandPlayer.objects.bulk_update(rows, ["position"])


class Migration(migrations.Migration):
    dependencies = [("poker", "0013_table_bar")]

    operations = [
        migrations.AddField(
            model_name="handplayer",
            name="position",
            field=models.CharField(blank=True, default="", max_length=5),
        ),
        migrations.RunPython(positions_fill, migrations.RunPython.noop),
    ]
