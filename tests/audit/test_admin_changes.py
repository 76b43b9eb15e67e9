"""Staff edits through the admin's own forms (rake schedules and paytables among them) leave one
audit record each, with before and after; a refused form leaves none."""

import json

import pytest
from django.contrib.auth import get_user_model

from audit.models import AuditRecord
from poker.engine.rake import default_rake_schedule
from poker.models import RakeSchedule

pytestmark = pytest.mark.django_db


def _records(action: str):
    return list(AuditRecord.objects.filter(action=action).order_by("id"))


def test_a_rake_schedule_added_changed_and_deleted_in_the_admin_is_audited(admin_client):
    schedule = default_rake_schedule("pot-limit").to_data()
    response = admin_client.post(
        "/admin/poker/rakeschedule/add/",
        {"name": "Weekend", "schedule": json.dumps(schedule)},
    )
    assert response.status_code == 302, response.content[:2000]
    row = RakeSchedule.objects.get(name="Weekend")
    (added,) = _records("staff.admin_add")
    assert added.payload["before"] is None
    assert added.payload["after"]["name"] == "Weekend"
    assert added.actor.username == "admin"

    response = admin_client.post(
        f"/admin/poker/rakeschedule/{row.pk}/change/",
        {"name": "Weekend rake", "schedule": json.dumps(schedule)},
    )
    assert response.status_code == 302
    (changed,) = _records("staff.admin_change")
    assert changed.payload["before"]["name"] == "Weekend"
    assert changed.payload["after"]["name"] == "Weekend rake"
    assert changed.payload["changed"] == ["name"]
    assert changed.subject_id == str(row.pk)

    response = admin_client.post(f"/admin/poker/rakeschedule/{row.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    (deleted,) = _records("staff.admin_delete")
    assert deleted.payload["before"]["name"] == "Weekend rake"
    assert deleted.payload["after"] is None


def test_a_refused_admin_form_leaves_no_record(admin_client):
    response = admin_client.post(
        "/admin/poker/rakeschedule/add/", {"name": "Broken", "schedule": '{"nonsense": 1}'}
    )
    assert response.status_code == 200  # the form again, with its error
    assert not RakeSchedule.objects.filter(name="Broken").exists()
    assert not AuditRecord.objects.filter(action__startswith="staff.admin_").exists()


def test_a_user_edited_by_staff_is_audited_without_the_password_hash(admin_client):
    user = get_user_model().objects.create_user("zoe", "zoe@example.com", "pw-long-enough-1")
    response = admin_client.get(f"/admin/auth/user/{user.pk}/change/")
    assert response.status_code == 200
    form = response.context["adminform"].form
    data = {name: value for name, value in form.initial.items() if value is not None}
    data.update(
        {
            "username": "zoe",
            "email": "zoe@elsewhere.example",
            "date_joined_0": user.date_joined.strftime("%Y-%m-%d"),
            "date_joined_1": user.date_joined.strftime("%H:%M:%S"),
            "is_active": "on",
        }
    )
    data.pop("date_joined", None)
    data.pop("last_login", None)
    data.pop("groups", None)
    data.pop("user_permissions", None)
    data.pop("password", None)
    response = admin_client.post(f"/admin/auth/user/{user.pk}/change/", data)
    assert response.status_code == 302, response.content[:3000]
    (changed,) = _records("staff.admin_change")
    assert changed.payload["before"]["email"] == "zoe@example.com"
    assert changed.payload["after"]["email"] == "zoe@elsewhere.example"
    assert changed.payload["after"]["password"] == "(hidden)"
    assert user.password not in json.dumps(changed.payload)
