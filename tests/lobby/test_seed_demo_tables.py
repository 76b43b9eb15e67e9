"""seed_demo's live-tables block: a table of every game and structure, raked by the house
schedules stored as rows, and a Sit & Go template of every game; a rerun adds nothing."""

import pytest
from django.core.management import call_command

from poker.engine.rake import default_rake_schedule
from poker.models import RakeSchedule, Table

pytestmark = pytest.mark.django_db


def test_demo_tables_cover_every_game_and_structure():
    call_command("seed_demo", verbosity=0)
    call_command("seed_demo", verbosity=0)
    tables = list(Table.objects.all())
    kinds = {(t.game, t.structure) for t in tables}
    assert kinds == {
        ("omaha", "limit"),
        ("omaha", "pot-limit"),
        ("omaha8", "limit"),
        ("omaha8", "pot-limit"),
    }
    assert any(t.max_seats == 10 and t.structure == "limit" for t in tables)
    assert all(t.max_seats <= 6 for t in tables if t.structure == "pot-limit")
    assert RakeSchedule.objects.count() == 2
    for table in tables:
        expected = default_rake_schedule(table.structure).to_data()
        assert table.engine_rake() == expected
    assert len(tables) == 6
    # Beside them (the same run, no extra seeding): a Sit & Go template of every game, each
    # with one open Sit & Go, the reruns opening none more.
    from tournaments.models import Tournament, TournamentTemplate

    templates = list(TournamentTemplate.objects.all())
    assert {(t.game, t.structure) for t in templates} == kinds
    assert {t.seats for t in templates} == {2, 6, 9}
    for template in templates:
        template.full_clean()
        assert template.tournaments.filter(status=Tournament.Status.REGISTERING).count() == 1


def test_demo_has_a_seven_seat_live_showdown_table_beside_the_online_ones():
    from showdown.models import ShowdownTable

    call_command("seed_demo", verbosity=0)
    call_command("seed_demo", verbosity=0)
    live = ShowdownTable.objects.get(name="Showdown Live")
    online = ShowdownTable.objects.filter(seats=1).order_by("ante_min", "name").first()
    assert live.seats == 7 and live.is_open
    assert (live.ante_min, live.ante_max) == (online.ante_min, online.ante_max)
    assert live.bet_paytable_id == online.bet_paytable_id
    assert ShowdownTable.objects.filter(seats=1).count() >= 1
    live.full_clean()
