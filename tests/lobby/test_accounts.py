"""Sign-up, login with lockout, logout, password change and the profile, through the pages."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from lobby.models import Profile
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


def login(client, username, password):
    return client.post(reverse("lobby:login"), {"username": username, "password": password})


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


def test_repeated_failed_logins_lock_the_account(client, player, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert login(client, "alice", "wrong").status_code == 200
    locked = login(client, "alice", "wrong")
    assert locked.status_code == 429
    assert "Too many failed logins" in locked.content.decode()
    # Even the right password is refused while the lock lasts.
    assert login(client, "alice", DEFAULT_PASSWORD).status_code == 429
    assert client.get(reverse("lobby:profile")).status_code == 302


def test_lockout_lifts_after_the_cool_off(client, player, settings):
    from axes.models import AccessAttempt

    for _ in range(settings.AXES_FAILURE_LIMIT):
        login(client, "alice", "wrong")
    assert login(client, "alice", DEFAULT_PASSWORD).status_code == 429
    # Time passing is what lifts it; age the recorded failures past the cool-off.
    from django.utils import timezone

    AccessAttempt.objects.update(attempt_time=timezone.now() - timezone.timedelta(hours=2))
    assert login(client, "alice", DEFAULT_PASSWORD).status_code == 302


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
