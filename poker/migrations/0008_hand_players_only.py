"""`Hand.players` and `Hand.last_seq` (JSON dicts keyed by strings) go: `HandPlayer` rows (0006)
hold who was dealt in, in which seat, and each one's last client seq."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("poker", "0007_deck_once")]

    operations = [
        migrations.RemoveField(model_name="hand", name="last_seq"),
        migrations.RemoveField(model_name="hand", name="players"),
    ]
