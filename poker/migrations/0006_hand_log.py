"""The hand as an append-only log: `HandEvent` rows (one per engine event) and `HandPlayer` rows
(who was dealt in, in which seat, and their last client seq) instead of the JSON dicts keyed by
strings on `Hand`.

Existing hands get their rows from what they stored (`state["events"]`, `players`,
`last_seq`). PostgreSQL then refuses UPDATE and DELETE of hand events, as it does for the
ledger's entries (cashier 0002): the log of a hand is only ever appended to. (TRUNCATE, which
only the test runner's flush uses, is not a row change and is not refused.)
"""

import django.core.validators
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


INSTALL = r"""
CREATE OR REPLACE FUNCTION poker_hand_event_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% on % refused: a hand''s events are append-only', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

CREATE TRIGGER poker_hand_event_immutable
    BEFORE UPDATE OR DELETE ON poker_handevent
    FOR EACH ROW EXECUTE FUNCTION poker_hand_event_refuse_change();
"""

REMOVE = r"""
DROP TRIGGER IF EXISTS poker_hand_event_immutable ON poker_handevent;
DROP FUNCTION IF EXISTS poker_hand_event_refuse_change();
"""


def copy_hands(apps, schema_editor):
    """Rows for the hands stored before the log: their events, players and last seqs."""
    Hand = apps.get_model("poker", "Hand")
    HandEvent = apps.get_model("poker", "HandEvent")
    HandPlayer = apps.get_model("poker", "HandPlayer")
    hands = Hand.objects.only("id", "state", "players", "last_seq").order_by("id")
    for hand in hands.iterator(chunk_size=200):
        events = (hand.state or {}).get("events") or []
        HandEvent.objects.bulk_create(
            HandEvent(hand_id=hand.pk, seq=seq, kind=event.get("type", ""), payload=event)
            for seq, event in enumerate(events)
        )
        last_seq = hand.last_seq or {}
        HandPlayer.objects.bulk_create(
            HandPlayer(
                hand_id=hand.pk,
                seat=int(seat),
                player_id=int(user_id),
                last_seq=int(last_seq.get(str(user_id), 0)),
            )
            for seat, user_id in (hand.players or {}).items()
        )


def install(apps, schema_editor):
    schema_editor.execute(INSTALL, params=None)


def remove(apps, schema_editor):
    schema_editor.execute(REMOVE, params=None)


class Migration(migrations.Migration):

    dependencies = [
        ('poker', '0005_rng_check'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='HandEvent',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('seq', models.PositiveIntegerField()),
                ('kind', models.CharField(max_length=30)),
                ('payload', models.JSONField()),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('hand', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='events', to='poker.hand')),
            ],
            options={
                'ordering': ['hand', 'seq'],
                'constraints': [models.UniqueConstraint(fields=('hand', 'seq'), name='hand_event_seq_unique')],
            },
        ),
        migrations.CreateModel(
            name='HandPlayer',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('seat', models.PositiveSmallIntegerField(validators=[django.core.validators.MinValueValidator(1), django.core.validators.MaxValueValidator(10)])),
                ('last_seq', models.PositiveBigIntegerField(default=0)),
                ('hand', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='hand_players', to='poker.hand')),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='poker_hands', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['hand', 'seat'],
                'indexes': [models.Index(fields=['player', 'hand'], name='hand_player_by_player')],
                'constraints': [models.UniqueConstraint(fields=('hand', 'seat'), name='hand_player_seat_unique'), models.UniqueConstraint(fields=('hand', 'player'), name='hand_player_once')],
            },
        ),
        migrations.RunPython(copy_hands, migrations.RunPython.noop),
        migrations.RunPython(install, remove),
    ]
