"""Sign-up, login with lockout, logout, password change and the profile, through the pages."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import Profile
from tests.factories import DEFAULT_PASSWORD, make_player

pytestmark = pytest.mark.django_db

STRONG = "plum-orchard-velvet-93"


def signup(client, **overrides):
    form = {
        "username": "carol",
        "email": "carol@example.test",
        "display_name": "Carol K",
        "password1": STRONG,
        "password2": STRONG,
    }
    form.update(overrides)
    return client.post(reverse("lobby:signup"), form)


def login(client, username, password, **extra):
    return client.post(
        reverse("lobby:login"), {"username": username, "password": password}, **extra
    )


# Two client addresses, as the ASGI middleware (config/proxies.py) hands them to Django.
HERE = {"REMOTE_ADDR": "198.51.100.1"}
ELSEWHERE = {"REMOTE_ADDR": "203.0.113.2"}


def lock_out(username, address):
    """As many wrong passwords for `username` from `address` as the limit; returns the last
    answer (the lock page)."""
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        response = login(client, username, "wrong", **address)
    return response


def test_signup_creates_the_player_with_profile_and_logs_in(client):
    response = signup(client)
    assert response.status_code == 302
    user = get_user_model().objects.get(username="carol")
    assert user.email == "carol@example.test"
    assert user.check_password(STRONG)
    assert user.profile.display_name == "Carol K"
    assert client.get(reverse("lobby:home")).wsgi_request.user == user


def test_signup_refuses_a_duplicate_username(client):
    make_player("carol")
    response = signup(client, email="other@example.test", display_name="Other")
    assert response.status_code == 200
    assert "username already exists" in response.content.decode()
    assert get_user_model().objects.filter(username="carol").count() == 1


def test_signup_refuses_a_duplicate_display_name(client):
    signup(client)
    client.logout()
    response = signup(client, username="dave", email="dave@example.test", display_name="carol k")
    assert "This display name is taken." in response.content.decode()
    assert not get_user_model().objects.filter(username="dave").exists()


@pytest.mark.parametrize(
    ("password", "complaint"),
    [
        ("short1", "too short"),
        ("password123", "too common"),
        ("83749218374", "entirely numeric"),
        ("carol1234", "too similar"),
    ],
)
def test_signup_refuses_weak_passwords(client, password, complaint):
    response = signup(client, password1=password, password2=password)
    assert response.status_code == 200
    assert complaint in response.content.decode()
    assert not get_user_model().objects.filter(username="carol").exists()


def test_signup_refuses_mismatched_passwords_and_bad_display_names(client):
    response = signup(client, password2=STRONG + "x", display_name="<script>")
    body = response.content.decode()
    assert "The two password fields didn" in body
    assert "3 to 20 letters" in body
    assert not get_user_model().objects.exists()


def test_login_and_logout(client, player):
    response = login(client, "alice", DEFAULT_PASSWORD)
    assert response.status_code == 302
    assert client.get(reverse("lobby:profile")).status_code == 200
    response = client.post(reverse("lobby:logout"))
    assert response.status_code == 302
    assert client.get(reverse("lobby:profile")).status_code == 302


def test_login_with_a_wrong_password_is_refused(client, player):
    response = login(client, "alice", "not-the-password")
    assert response.status_code == 200
    assert "Please enter a correct username and password" in response.content.decode()


def test_repeated_failed_logins_lock_the_account(client, player):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert login(client, "alice", "wrong").status_code == 200
    locked = login(client, "alice", "wrong")
    assert locked.status_code == 429
    assert "Too many failed logins" in locked.content.decode()
    # Even the right password is refused while the lock lasts.
    assert login(client, "alice", DEFAULT_PASSWORD).status_code == 429
    assert client.get(reverse("lobby:profile")).status_code == 302


def test_lockout_lifts_after_the_cool_off(client, player):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        login(client, "alice", "wrong")
    assert login(client, "alice", DEFAULT_PASSWORD).status_code == 429
    # Time passing is what lifts it; age the recorded failures past the cool-off.
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(hours=2))
    assert login(client, "alice", DEFAULT_PASSWORD).status_code == 302


def test_failures_for_one_player_lock_no_other_player_at_that_address(player, other_player):
    """Behind the load balancer many players share an address: one player's wrong passwords
    must not lock the others, the staff or the token endpoint."""
    make_player("boss", is_staff=True, is_superuser=True)
    assert lock_out("alice", HERE).status_code == 429

    assert login(Client(), "bob", DEFAULT_PASSWORD, **HERE).status_code == 302
    staff = Client()
    response = staff.post(
        reverse("admin:login"),
        {"username": "boss", "password": DEFAULT_PASSWORD, "next": reverse("admin:index")},
        **HERE,
    )
    assert response.status_code == 302
    assert staff.get(reverse("admin:index")).status_code == 200
    token = APIClient().post(
        reverse("api-token"),
        {"username": "bob", "password": DEFAULT_PASSWORD},
        format="json",
        **HERE,
    )
    assert token.status_code == 200
    assert token.json()["token"]
    # And alice herself stays locked there.
    assert login(Client(), "alice", DEFAULT_PASSWORD, **HERE).status_code == 429


def test_failures_from_one_address_do_not_lock_the_player_elsewhere(player):
    """Anyone can type a player's name: failures from their address lock only their address."""
    assert lock_out("alice", HERE).status_code == 429
    client = Client()
    assert login(client, "alice", DEFAULT_PASSWORD, **ELSEWHERE).status_code == 302
    assert client.get(reverse("lobby:profile")).status_code == 200


def test_lock_page_names_the_player_the_address_and_when_it_lifts(player):
    lock_out("alice", HERE)
    # The unlock time comes from the recorded failures, not from the configured cool-off.
    last_failure = timezone.now() - timedelta(minutes=5)
    AccessAttempt.objects.filter(username="alice").update(attempt_time=last_failure)
    lifts_at = last_failure + timedelta(hours=settings.AXES_COOLOFF_TIME)

    response = login(Client(), "alice", DEFAULT_PASSWORD, **HERE)

    assert response.status_code == 429
    page = response.content.decode()
    assert "<strong>alice</strong>" in page
    assert "(198.51.100.1)" in page
    assert lifts_at.strftime("%Y-%m-%d %H:%M:%S UTC") in page
    assert "(in 10 minutes)" in page
    assert abs(int(response["Retry-After"]) - 600) <= 2


def test_a_refused_login_during_the_lock_does_not_extend_it(player):
    lock_out("alice", HERE)
    last_failure = AccessAttempt.objects.get(username="alice").attempt_time
    first = login(Client(), "alice", "wrong-again", **HERE)
    second = login(Client(), "alice", DEFAULT_PASSWORD, **HERE)
    assert first.status_code == second.status_code == 429
    assert AccessAttempt.objects.get(username="alice").attempt_time == last_failure
    until = (last_failure + timedelta(hours=settings.AXES_COOLOFF_TIME)).strftime("%H:%M:%S")
    assert until in first.content.decode()
    assert until in second.content.decode()


def test_a_forged_forwarded_for_header_does_not_change_the_counted_address(player):
    """Django counts REMOTE_ADDR only; the header is for the ASGI middleware to judge."""
    client = Client()
    for number in range(settings.AXES_FAILURE_LIMIT):
        response = login(client, "alice", "wrong", HTTP_X_FORWARDED_FOR=f"192.0.2.{number}", **HERE)
    assert response.status_code == 429
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"198.51.100.1"}
    fresh_header = login(
        client, "alice", DEFAULT_PASSWORD, HTTP_X_FORWARDED_FOR="192.0.2.99", **HERE
    )
    assert fresh_header.status_code == 429


def test_password_change(player_client, player):
    response = player_client.post(
        reverse("lobby:password_change"),
        {"old_password": DEFAULT_PASSWORD, "new_password1": STRONG, "new_password2": STRONG},
    )
    assert response.status_code == 302
    player.refresh_from_db()
    assert player.check_password(STRONG)


def test_password_change_applies_the_validators(player_client, player):
    response = player_client.post(
        reverse("lobby:password_change"),
        {"old_password": DEFAULT_PASSWORD, "new_password1": "123", "new_password2": "123"},
    )
    assert response.status_code == 200
    player.refresh_from_db()
    assert player.check_password(DEFAULT_PASSWORD)


def test_profile_shows_and_changes_the_display_name(player_client, player):
    page = player_client.get(reverse("lobby:profile"))
    assert page.status_code == 200
    assert "alice@example.test" in page.content.decode()
    response = player_client.post(reverse("lobby:profile"), {"display_name": "Alice the Bold"})
    assert response.status_code == 302
    assert Profile.objects.get(user=player).display_name == "Alice the Bold"


def test_profile_refuses_a_name_another_player_has(player_client, other_player):
    Profile.objects.create(user=other_player, display_name="Bobby")
    response = player_client.post(reverse("lobby:profile"), {"display_name": "bobby"})
    assert response.status_code == 200
    assert "This display name is taken." in response.content.decode()


def test_profile_needs_login(client):
    response = client.get(reverse("lobby:profile"))
    assert response.status_code == 302
    assert reverse("lobby:login") in response["Location"]


# -- a new password ends every other way in


def _signed_in_twice_with_a_token(player):
    from rest_framework.authtoken.models import Token

    here, elsewhere = Client(), Client()
    for browser in (here, elsewhere):
        browser.force_login(player, backend="django.contrib.auth.backends.ModelBackend")
    Token.objects.create(user=player)
    return here, elsewhere


def _signed_in(browser) -> bool:
    return browser.get(reverse("lobby:password_change")).status_code == 200


def test_changing_the_password_revokes_tokens_and_the_other_sessions(player):
    from rest_framework.authtoken.models import Token

    here, elsewhere = _signed_in_twice_with_a_token(player)
    new = "quiet-lantern-harbour-71"
    answer = here.post(
        reverse("lobby:password_change"),
        {"old_password": DEFAULT_PASSWORD, "new_password1": new, "new_password2": new},
    )
    assert answer.status_code == 302
    assert not Token.objects.filter(user=player).exists()
    assert _signed_in(here) and not _signed_in(elsewhere)
    uid = str(player.pk)
    assert [s.get_decoded().get("_auth_user_id") for s in Session.objects.all()].count(uid) == 1


def test_a_password_set_elsewhere_revokes_every_token_and_session(player):
    """The reset link, staff in the admin and a shell all save a new password this way."""
    from rest_framework.authtoken.models import Token

    here, elsewhere = _signed_in_twice_with_a_token(player)
    player.set_password("another-long-passphrase-42")
    player.save()
    assert not Token.objects.filter(user=player).exists()
    assert not _signed_in(here) and not _signed_in(elsewhere)
    uid = str(player.pk)
    assert uid not in [s.get_decoded().get("_auth_user_id") for s in Session.objects.all()]
    # A hasher upgrade at login stores the same password again: nothing is revoked.
    Token.objects.create(user=player)
    player.refresh_from_db()
    player.password = player.password + "x"  # another hash, no set_password: not a change
    player.save(update_fields=["password"])
    assert Token.objects.filter(user=player).exists()
