"""Staff's Sit & Go pages: templates checked and audited, cancelling through the tool pages
with a second staff member's approval."""

import json

import pytest
from django.test import Client

from audit.models import AuditRecord
from tests.factories import make_funded_player, make_sit_and_go, make_staff
from tournaments.models import Cancellation, Tournament, TournamentTemplate
from tournaments.services import tournament_register

pytestmark = pytest.mark.django_db


def client_for(user) -> Client:
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


def template_form(**changes) -> dict:
    form = {
        "name": "PLO 9-max $5",
        "game": "omaha",
        "structure": "pot-limit",
        "seats": "9",
        "buy_in": "500",
        "fee": "50",
        "starting_chips": "1500",
        "blind_levels": json.dumps([{"small_blind": 10, "big_blind": 20, "minutes": 5}]),
        "breaks": "[]",
        "payouts": json.dumps(
            [
                {"min_entrants": 2, "max_entrants": 3, "percents": [100]},
                {"min_entrants": 4, "max_entrants": 6, "percents": [65, 35]},
                {"min_entrants": 7, "max_entrants": 9, "percents": [50, 30, 20]},
            ]
        ),
        "action_seconds": "30",
        "time_bank_seconds": "60",
        "is_active": "on",
    }
    form.update(changes)
    return form


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("payouts", [{"min_entrants": 2, "max_entrants": 9, "percents": [60, 30]}], "not 100%"),
        ("payouts", [{"min_entrants": 2, "max_entrants": 6, "percents": [100]}], "7, 8, 9"),
        ("blind_levels", [{"small_blind": 20, "big_blind": 20, "minutes": 5}], "above the small"),
        ("blind_levels", [], "at least one level"),
    ],
)
def test_a_template_that_does_not_add_up_is_refused(field, value, says):
    manager = make_staff("manager", "table managers")
    page = client_for(manager).post(
        "/admin/tournaments/tournamenttemplate/add/", template_form(**{field: json.dumps(value)})
    )
    assert page.status_code == 200 and says in page.content.decode()
    assert not TournamentTemplate.objects.exists()


def test_a_template_saved_is_audited_and_opens_its_sit_and_go():
    manager = make_staff("manager", "table managers")
    page = client_for(manager).post("/admin/tournaments/tournamenttemplate/add/", template_form())
    assert page.status_code == 302, page.content.decode()[:2000]
    template = TournamentTemplate.objects.get()
    record = AuditRecord.objects.get(action="staff.admin_add", actor=manager)
    assert record.payload["after"]["fee"] == 50
    assert Tournament.objects.filter(template=template, status="registering").count() == 1


def test_cancelling_a_paid_sit_and_go_waits_for_a_cashier_manager():
    manager = make_staff("manager", "table managers")
    cashier = make_staff("cashier", "cashier managers")
    sng = make_sit_and_go()
    tournament_register(player=make_funded_player("alice"), tournament=sng, idempotency_key="k")
    page = client_for(manager).get(f"/admin/tournaments/tournament/{sng.pk}/change/")
    assert b"tool-cancel-tournament" in page.content
    page = client_for(manager).post(
        f"/admin/tournaments/tournament/{sng.pk}/cancel/", {"reason": "dealer fault"}
    )
    assert page.status_code == 302
    cancellation = Cancellation.objects.get()
    # The table manager may not approve (no right, and it is their own request).
    mine = client_for(manager).get(f"/admin/tournaments/cancellation/{cancellation.pk}/approve/")
    assert mine.status_code == 403
    page = client_for(cashier).post(
        f"/admin/tournaments/cancellation/{cancellation.pk}/approve/", {"reason": "checked"}
    )
    assert page.status_code == 302
    assert Tournament.objects.get(pk=sng.pk).status == "cancelled"
