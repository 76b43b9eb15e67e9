"""Password reset by e-mail, the address check before the first deposit, and the 30-day rule
for display names; mail goes to Django's test outbox (pytest-django's `mailoutbox`)."""

import re
import time
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import signing
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import Profile
from accounts.services import (
    DisplayNameTooSoon,
    email_is_verified,
    email_verification_token,
    profile_set_display_name,
)
from cashier.services import CashierError, wallet_deposit
from tests.factories import DEFAULT_PASSWORD, make_player

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "quiet-lantern-harbour-71"


def link_in(message) -> str:
    return re.search(r"https?://\S+", message.body).group(0)


def test_password_reset_end_to_end(client, mailoutbox):
    player = make_player("alice")
    page = client.get(reverse("lobby:login"))
    assert reverse("lobby:password_reset") in page.content.decode()

    sent = client.post(reverse("lobby:password_reset"), {"email": "alice@example.test"})
    assert sent.status_code == 302 and sent.url == reverse("lobby:password_reset_done")
    assert len(mailoutbox) == 1 and mailoutbox[0].to == ["alice@example.test"]
    link = link_in(mailoutbox[0])

    form_page = client.get(link, follow=True)  # Django swaps the token for a session marker
    assert form_page.context["validlink"]
    done = client.post(
        form_page.redirect_chain[-1][0],
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert done.status_code == 302 and done.url == reverse("lobby:password_reset_complete")
    player.refresh_from_db()
    assert player.check_password(NEW_PASSWORD)
    logged_in = client.post(reverse("lobby:login"), {"username": "alice", "password": NEW_PASSWORD})
    assert logged_in.status_code == 302

    # The link works once.
    client.logout()
    again = client.get(link, follow=True)
    assert not again.context["validlink"]


def test_password_reset_for_an_unknown_address_sends_nothing_and_says_the_same(client, mailoutbox):
    make_player("alice")
    sent = client.post(reverse("lobby:password_reset"), {"email": "nobody@example.test"})
    assert sent.status_code == 302 and sent.url == reverse("lobby:password_reset_done")
    assert mailoutbox == []
    assert get_user_model().objects.get(username="alice").check_password(DEFAULT_PASSWORD)


def test_signup_mails_a_link_and_deposits_wait_for_it(client, mailoutbox):
    client.post(
        reverse("lobby:signup"),
        {
            "username": "carol",
            "email": "carol@example.test",
            "display_name": "Carol K",
            "password1": NEW_PASSWORD,
            "password2": NEW_PASSWORD,
        },
    )
    carol = get_user_model().objects.get(username="carol")
    assert not email_is_verified(user=carol)
    assert "not confirmed" in client.get(reverse("lobby:profile")).content.decode()

    with pytest.raises(CashierError) as refused:
        wallet_deposit(player=carol, amount=5_000, idempotency_key="first")
    assert refused.value.code == "email_unverified"
    api = APIClient()
    api.force_authenticate(carol)
    answer = api.post(
        reverse("cashier-api:deposit"),
        {"amount": 5_000, "idempotency_key": "first"},
        format="json",
    )
    assert answer.status_code == 400 and answer.json()["code"] == "email_unverified"
    assert api.get(reverse("api-me")).json()["email_verified"] is False

    assert len(mailoutbox) == 1 and mailoutbox[0].to == ["carol@example.test"]
    confirmed = client.get(link_in(mailoutbox[0]))
    assert confirmed.status_code == 302
    assert email_is_verified(user=carol)
    wallet_deposit(player=carol, amount=5_000, idempotency_key="first")
    assert "(confirmed)" in client.get(reverse("lobby:profile")).content.decode()


def test_profile_sends_a_new_link(client, mailoutbox):
    player = make_player("dora", email_verified=False)
    client.force_login(player)
    client.post(reverse("lobby:email_verify_send"))
    assert len(mailoutbox) == 1
    client.get(link_in(mailoutbox[0]))
    assert email_is_verified(user=player)


def test_a_forged_expired_or_stale_link_confirms_nothing(client):
    player = make_player("dora", email_verified=False)
    token = email_verification_token(user=player)
    assert client.get(reverse("lobby:email_verify", args=[token + "x"])).status_code == 302
    assert not email_is_verified(user=player)

    # A link for an old address proves nothing about the new one.
    player.email = "dora@new.example.test"
    player.save()
    client.get(reverse("lobby:email_verify", args=[token]))
    assert not email_is_verified(user=player)

    # Expired: signed four days ago.
    player.email = "dora@example.test"
    player.save()

    class FourDaysAgo(signing.TimestampSigner):
        def timestamp(self) -> str:
            return signing.b62_encode(int(time.time()) - 4 * 24 * 3600)

    payload = {"u": player.pk, "e": player.email}
    stale = FourDaysAgo(salt="lobby.email-verification").sign_object(payload)
    client.get(reverse("lobby:email_verify", args=[stale]))
    assert not email_is_verified(user=player)
    client.get(reverse("lobby:email_verify", args=[email_verification_token(user=player)]))
    assert email_is_verified(user=player)


def test_a_confirmed_address_goes_stale_when_it_changes():
    player = make_player("erin")
    assert email_is_verified(user=player)
    player.email = "erin@elsewhere.test"
    player.save()
    assert not email_is_verified(user=player)


def test_display_name_changes_at_most_once_in_30_days(client):
    player = make_player("alice")
    start = timezone.now()
    profile_set_display_name(user=player, display_name="Alice", now=start)
    profile_set_display_name(user=player, display_name="Alice Two", now=start)  # first change
    with pytest.raises(DisplayNameTooSoon):
        profile_set_display_name(
            user=player, display_name="Alice Three", now=start + timedelta(days=29)
        )
    assert Profile.objects.get(user=player).display_name == "Alice Two"
    profile_set_display_name(
        user=player, display_name="Alice Three", now=start + timedelta(days=30, seconds=1)
    )
    assert Profile.objects.get(user=player).display_name == "Alice Three"

    # Through the page and the API, with the same words.
    client.force_login(player)
    page = client.post(reverse("lobby:profile"), {"display_name": "Alice Four"})
    assert page.status_code == 200 and "once every 30 days" in page.content.decode()
    api = APIClient()
    api.force_authenticate(player)
    answer = api.patch(reverse("api-me"), {"display_name": "Alice Four"}, format="json")
    assert answer.status_code == 400 and "can change it again" in answer.json()["display_name"][0]
    assert Profile.objects.get(user=player).display_name == "Alice Three"
