"""RULES.md 9's paytables (the Bet table, Hole Card Bonus and Final Hand Bonus A-E) with their
exact edges and hit rates, and two tables to play at. The edges are computed here by the
engine's calculator (a few seconds), not copied, so what is stored is what the tables pay."""

from django.db import migrations

TABLES = [
    # name, ante, hole card bonus, final hand bonus limits in cents, cap, paytables
    ("Showdown", (500, 20_000), (100, 10_000), (100, 5_000), 2_500_000, ("bet", "hcb-a", "fhb-a")),
    ("Showdown Micro", (100, 2_500), (100, 1_000), (100, 1_000), 250_000, ("bet", "hcb-b", "fhb-b")),
]  # fmt: skip


def load(apps, schema_editor):
    from poker.engine.showdown_math import report
    from poker.engine.showdown_paytables import PAYTABLES

    Paytable = apps.get_model("showdown", "Paytable")
    ShowdownTable = apps.get_model("showdown", "ShowdownTable")
    figures = {line["name"]: line for line in report(PAYTABLES)["paytables"]}
    stored = {}
    for table in PAYTABLES:
        line = figures[table.name]
        stored[table.name], _ = Paytable.objects.update_or_create(
            name=table.name,
            defaults={
                "kind": table.kind,
                "pays": dict(table.pays),
                "edge": line["edge"],
                "edge_pct": line["edge_pct"],
                "hit_rate_pct": line["hit_rate_pct"],
            },
        )
    for name, ante, hole, final, cap, (bet, hcb, fhb) in TABLES:
        ShowdownTable.objects.get_or_create(
            name=name,
            defaults={
                "ante_min": ante[0],
                "ante_max": ante[1],
                "hole_card_bonus_min": hole[0],
                "hole_card_bonus_max": hole[1],
                "final_hand_bonus_min": final[0],
                "final_hand_bonus_max": final[1],
                "max_aggregate_payout": cap,
                "bet_paytable": stored[bet],
                "hole_card_bonus_paytable": stored[hcb],
                "final_hand_bonus_paytable": stored[fhb],
            },
        )


class Migration(migrations.Migration):
    dependencies = [("showdown", "0001_rounds")]

    operations = [migrations.RunPython(load, migrations.RunPython.noop)]
