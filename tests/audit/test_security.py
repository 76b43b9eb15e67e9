"""Security events in the audit log: logins, failures, lockouts, password and e-mail changes,
API tokens; one record each, never a password or a token's key."""

import re

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from audit.models import AuditRecord
from tests.factories import DEFAULT_PASSWORD, make_player

pytestmark = pytest.mark.django_db

HERE = {"REMOTE_ADDR": "198.51.100.7"}
NEW_PASSWORD = "quiet-lantern-harbour-71"


def records(action: str) -> list[AuditRecord]:
    return list(AuditRecord.objects.filter(action=action).order_by("id"))


def login(client, username, password):
    return client.post(reverse("lobby:login"), {"username": username, "password": password}, **HERE)


def test_login_and_logout_are_recorded_with_the_address(client):
    alice = make_player("alice")
    assert login(client, "alice", DEFAULT_PASSWORD).status_code == 302
    [record] = records("security.login")
    assert record.actor == alice and record.actor_kind == "player"
    assert record.subject_id == str(alice.pk)
    assert record.payload == {"ip": HERE["REMOTE_ADDR"], "route": "lobby:login"}
    client.post(reverse("lobby:logout"))
    assert [r.actor for r in records("security.logout")] == [alice]


def test_failed_logins_and_the_lockout_are_recorded_without_the_password(client):
    make_player("alice")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        login(client, "alice", "wrong-secret")
    failed = records("security.login_failed")
    assert len(failed) == settings.AXES_FAILURE_LIMIT
    assert failed[0].actor is None and failed[0].actor_kind == "anonymous"
    assert failed[0].payload["username"] == "alice"
    assert failed[0].payload["ip"] == HERE["REMOTE_ADDR"]
    [lockout] = records("security.lockout")
    assert lockout.payload == {"username": "alice", "ip": HERE["REMOTE_ADDR"]}
    assert not AuditRecord.objects.filter(payload__icontains="wrong-secret").exists()
    every = " ".join(str(r.payload) for r in AuditRecord.objects.all())
    assert "wrong-secret" not in every


def test_password_change_is_recorded_once(client):
    alice = make_player("alice")
    client.force_login(alice, backend="django.contrib.auth.backends.ModelBackend")
    response = client.post(
        reverse("lobby:password_change"),
        {
            "old_password": DEFAULT_PASSWORD,
            "new_password1": NEW_PASSWORD,
            "new_password2": NEW_PASSWORD,
        },
    )
    assert response.status_code == 302
    [record] = records("security.password_change")
    assert record.actor == alice and record.subject_id == str(alice.pk)
    assert record.payload["route"] == "lobby:password_change"
    assert NEW_PASSWORD not in str(record.payload)
    assert not records("security.password_reset")


def test_a_refused_password_change_records_nothing(client):
    alice = make_player("alice")
    client.force_login(alice, backend="django.contrib.auth.backends.ModelBackend")
    client.post(
        reverse("lobby:password_change"),
        {"old_password": "not-it", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert not records("security.password_change")


def test_password_reset_is_recorded_as_a_reset(client, mailoutbox):
    alice = make_player("alice")
    client.post(reverse("lobby:password_reset"), {"email": "alice@example.test"})
    link = re.search(r"https?://\S+", mailoutbox[0].body).group(0)
    form_page = client.get(link, follow=True)
    client.post(
        form_page.redirect_chain[-1][0],
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    [record] = records("security.password_reset")
    assert record.actor == alice and record.actor_kind == "player"
    assert not records("security.password_change")


def test_email_change_in_the_admin_names_the_staff_and_both_addresses():
    alice = make_player("alice")
    staff = make_player("root", is_staff=True, is_superuser=True)
    admin = Client()
    admin.force_login(staff, backend="django.contrib.auth.backends.ModelBackend")
    page = admin.get(reverse("admin:auth_user_change", args=[alice.pk]))
    form = {
        "username": "alice",
        "email": "alice@new.example.test",
        "first_name": "",
        "last_name": "",
        "is_active": "on",
        "date_joined_0": page.context["adminform"].form["date_joined"].value().strftime("%Y-%m-%d"),
        "date_joined_1": "00:00:00",
        "initial-date_joined_0": "",
        "initial-date_joined_1": "",
    }
    response = admin.post(reverse("admin:auth_user_change", args=[alice.pk]), form)
    assert response.status_code == 302, response.content.decode()[:2000]
    [record] = records("security.email_change")
    assert record.actor == staff and record.actor_kind == "staff"
    assert record.subject_id == str(alice.pk)
    assert record.payload["old"] == "alice@example.test"
    assert record.payload["new"] == "alice@new.example.test"
    assert not records("security.password_change")


def test_last_login_saves_record_no_change():
    alice = make_player("alice")
    alice.first_name = "Alice"
    alice.save()
    alice.save(update_fields=["last_login"])
    assert not records("security.password_change") and not records("security.email_change")


def test_api_token_creation_is_recorded_once_without_its_key():
    alice = make_player("alice")
    api = APIClient(**HERE)
    body = {"username": "alice", "password": DEFAULT_PASSWORD}
    key = api.post(reverse("api-token"), body, format="json").json()["token"]
    api.post(reverse("api-token"), body, format="json")  # the same token again
    [record] = records("security.token_created")
    assert record.actor == alice and record.payload["ip"] == HERE["REMOTE_ADDR"]
    assert key not in str(record.payload) + record.subject_label


@pytest.mark.django_db(transaction=True)
async def test_under_the_async_handler_the_acting_user_is_known(async_client):
    """Daphne runs the async middleware chain: the request's user still reaches the record."""
    from asgiref.sync import sync_to_async

    alice = await sync_to_async(make_player)("alice")
    await async_client.aforce_login(alice, backend="django.contrib.auth.backends.ModelBackend")
    response = await async_client.post(
        reverse("lobby:password_change"),
        {
            "old_password": DEFAULT_PASSWORD,
            "new_password1": NEW_PASSWORD,
            "new_password2": NEW_PASSWORD,
        },
    )
    assert response.status_code == 302
    [record] = await sync_to_async(records)("security.password_change")
    assert record.actor_id == alice.pk and record.payload["route"] == "lobby:password_change"
