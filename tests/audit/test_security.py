"""Security events in the audit log: logins, failures, lockouts, password and e-mail changes,
API tokens; one record each, never a password or a token's key."""

import re

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from audit.models import AuditRecord
from tests.factories import DEFAULT_PASSWORD, admin_user_change, make_player, make_staff

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
    assert record.payload == {"ip": HERE["REMOTE_ADDR"], "route": "lobby:login", "user_agent": ""}
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


# -- staff powers: every change of them is a record with before and after


def test_making_a_user_staff_or_superuser_is_recorded_with_before_and_after():
    boss = make_player("boss", is_staff=True, is_superuser=True)
    [made] = records("security.power_change")
    assert made.subject_id == str(boss.pk)
    assert made.payload["before"] is None
    assert made.payload["after"] == {"is_active": True, "is_staff": True, "is_superuser": True}
    alice = make_player("alice")
    alice.is_staff = True
    alice.save()
    alice.is_superuser = True
    alice.save(update_fields=["is_superuser"])
    first, second = records("security.power_change")[1:]
    assert first.subject_id == second.subject_id == str(alice.pk)
    assert first.payload["before"] == {"is_active": True, "is_staff": False, "is_superuser": False}
    assert first.payload["after"] == {"is_active": True, "is_staff": True, "is_superuser": False}
    assert second.payload["after"] == {"is_active": True, "is_staff": True, "is_superuser": True}


def test_group_membership_and_permissions_are_recorded_from_either_side():
    from django.contrib.auth.models import Group, Permission

    make_staff("keeper", "support")  # the role groups, if a test flushed them
    support = Group.objects.get(name="support")
    alice = make_player("alice", is_staff=True)
    start = len(records("security.power_change"))
    alice.groups.add(support)
    support.user_set.remove(alice)
    approve = Permission.objects.get(codename="approve_balanceadjustment")
    support.permissions.add(approve)
    alice.user_permissions.add(approve)
    support.permissions.clear()
    added, removed, granted, given, cleared = records("security.power_change")[start:]
    assert (added.payload["change"], added.payload["before"], added.payload["after"]) == (
        "groups",
        [],
        ["support"],
    )
    assert (removed.payload["before"], removed.payload["after"]) == (["support"], [])
    assert added.subject_id == removed.subject_id == str(alice.pk)
    assert granted.payload["change"] == "permissions" and granted.subject_id == str(support.pk)
    assert "cashier.approve_balanceadjustment" in granted.payload["after"]
    assert "cashier.approve_balanceadjustment" not in granted.payload["before"]
    assert given.payload["change"] == "user_permissions"
    assert given.payload["after"] == ["cashier.approve_balanceadjustment"]
    assert cleared.payload["after"] == [] and cleared.subject_id == str(support.pk)


def test_staff_giving_a_role_in_the_admin_is_recorded_with_the_staff_member():
    from django.contrib.auth.models import Group

    boss = make_staff("boss", "support", is_superuser=True)
    alice = make_player("alice")
    managers = Group.objects.get(name="cashier managers")
    answer = admin_user_change(boss, alice, groups=[managers], is_staff=True)
    assert answer.status_code == 302, answer.context["adminform"].form.errors
    flags, groups = [r for r in records("security.power_change") if r.subject_id == str(alice.pk)]
    assert flags.actor == groups.actor == boss
    assert flags.payload["after"] == {"is_active": True, "is_staff": True, "is_superuser": False}
    assert flags.payload["route"] == groups.payload["route"] == "admin:auth_user_change"
    assert (groups.payload["before"], groups.payload["after"]) == ([], ["cashier managers"])


def test_api_tokens_made_and_deleted_in_the_admin_are_recorded_and_their_key_never_logged():
    from django.contrib.admin.models import LogEntry
    from rest_framework.authtoken.models import Token

    boss = make_player("boss", is_staff=True, is_superuser=True)
    alice = make_player("alice")
    client = Client()
    client.force_login(boss, backend="django.contrib.auth.backends.ModelBackend")
    answer = client.post("/admin/authtoken/tokenproxy/add/", {"user": alice.pk})
    assert answer.status_code == 302
    key = Token.objects.get(user=alice).key
    [made] = records("security.token_created")
    assert made.actor == boss and made.subject_id == str(alice.pk)
    assert (made.payload["before"], made.payload["after"]) == (None, {"token": True})
    url = f"/admin/authtoken/tokenproxy/{alice.pk}/delete/"
    assert client.post(url, {"post": "yes"}).status_code == 302
    assert not Token.objects.filter(user=alice).exists()
    [deleted] = records("security.token_deleted")
    assert deleted.actor == boss and deleted.subject_id == str(alice.pk)
    assert (deleted.payload["before"], deleted.payload["after"]) == ({"token": True}, None)
    logged = list(LogEntry.objects.values_list("object_id", "object_repr", "change_message"))
    assert len(logged) == 2
    assert all(key not in " ".join(map(str, row)) for row in logged)
    assert key not in str(made.payload) + str(deleted.payload) + deleted.subject_label
