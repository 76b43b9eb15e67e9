"""The banked game's house accounts split into shards.

- `shard` on every account: 0, except for the house's `house_bankroll` and
  `banked_bets_in_play`, which may exist as up to `HOUSE_SHARDS` rows each (one per shard), so
  that rounds of different players lock different rows. The existing rows are shard 0.
- An account's shard is part of its identity: the identity trigger of 0004 now watches it too.
"""

from django.db import migrations, models

IDENTITY_WATCHED = """
DROP TRIGGER IF EXISTS cashier_account_identity_fixed ON cashier_account;
CREATE TRIGGER cashier_account_identity_fixed
    BEFORE UPDATE ON cashier_account
    FOR EACH ROW
    WHEN ((OLD.id, OLD.kind, OLD.owner_id, OLD.table_id, OLD.created_at, OLD.shard)
          IS DISTINCT FROM (NEW.id, NEW.kind, NEW.owner_id, NEW.table_id, NEW.created_at,
                            NEW.shard))
    EXECUTE FUNCTION cashier_account_refuse_new_identity();
"""

IDENTITY_AS_BEFORE = """
DROP TRIGGER IF EXISTS cashier_account_identity_fixed ON cashier_account;
CREATE TRIGGER cashier_account_identity_fixed
    BEFORE UPDATE ON cashier_account
    FOR EACH ROW
    WHEN ((OLD.id, OLD.kind, OLD.owner_id, OLD.table_id, OLD.created_at)
          IS DISTINCT FROM (NEW.id, NEW.kind, NEW.owner_id, NEW.table_id, NEW.created_at))
    EXECUTE FUNCTION cashier_account_refuse_new_identity();
"""


def install(apps, schema_editor):
    schema_editor.execute(IDENTITY_WATCHED, params=None)


def remove(apps, schema_editor):
    schema_editor.execute(IDENTITY_AS_BEFORE, params=None)


SINGLETONS = ["house_bankroll", "banked_bets_in_play", "charity", "outside_world", "adjustments"]


class Migration(migrations.Migration):
    dependencies = [("cashier", "0005_balance_adjustments")]

    operations = [
        migrations.AddField(
            model_name="account",
            name="shard",
            field=models.PositiveSmallIntegerField(default=0),
        ),
        migrations.RemoveConstraint(
            model_name="account", name="cashier_one_house_account_per_kind"
        ),
        migrations.AddConstraint(
            model_name="account",
            constraint=models.UniqueConstraint(
                condition=models.Q(("kind__in", SINGLETONS)),
                fields=("kind", "shard"),
                name="cashier_one_house_account_per_kind_and_shard",
            ),
        ),
        migrations.AddConstraint(
            model_name="account",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("shard", 0),
                    models.Q(
                        ("kind__in", ["house_bankroll", "banked_bets_in_play"]),
                        ("shard__lt", 16),
                    ),
                    _connector="OR",
                ),
                name="cashier_account_shard",
            ),
        ),
        migrations.RunPython(install, remove),
    ]
