"""Password-reset mails are limited per e-mail address and per client address, so the page
cannot be used to flood one inbox or to send mail in bulk from one address."""

import pytest
from django.urls import reverse

from tests.factories import make_player

pytestmark = pytest.mark.django_db

HERE = {"REMOTE_ADDR": "198.51.100.1"}


def ask(client, email: str, address: dict = HERE):
    return client.post(reverse("lobby:password_reset"), {"email": email}, **address)


def test_one_address_gets_a_few_reset_mails_and_then_a_refusal(client, mailoutbox, settings):
    make_player("alice", email="alice@example.test")
    limit = settings.PASSWORD_RESET_LIMIT_PER_EMAIL
    for n in range(limit):
        # From different client addresses: the limit is the inbox's.
        answer = ask(client, "alice@example.test", {"REMOTE_ADDR": f"203.0.113.{n + 1}"})
        assert answer.status_code == 302
    refused = ask(client, "ALICE@example.test", {"REMOTE_ADDR": "192.0.2.1"})
    assert refused.status_code == 429
    assert "Too many password reset requests for this e-mail address" in refused.content.decode()
    assert refused["Retry-After"]
    assert len(mailoutbox) == limit


def test_an_unknown_address_is_counted_the_same_so_the_limit_tells_nothing(
    client, mailoutbox, settings
):
    for _ in range(settings.PASSWORD_RESET_LIMIT_PER_EMAIL):
        assert ask(client, "nobody@example.test").status_code == 302
    assert ask(client, "nobody@example.test").status_code == 429
    assert mailoutbox == []


def test_one_client_address_gets_a_few_resets_and_then_a_refusal(client, mailoutbox, settings):
    limit = settings.PASSWORD_RESET_LIMIT_PER_CLIENT
    for n in range(limit):
        make_player(f"p{n}", email=f"p{n}@example.test")
        assert ask(client, f"p{n}@example.test").status_code == 302
    make_player("last", email="last@example.test")
    refused = ask(client, "last@example.test")
    assert refused.status_code == 429
    assert "Too many password reset requests from your address" in refused.content.decode()
    assert len(mailoutbox) == limit
    # Another client address is not held back.
    assert ask(client, "last@example.test", {"REMOTE_ADDR": "192.0.2.9"}).status_code == 302
    assert len(mailoutbox) == limit + 1
