"""A player on a time-out sees a banner on every page, and none of the
controls the server would refuse after a click (sit, deal, wager, join a game, deposit)."""

import pytest
from django.urls import reverse

from responsible.services import exclusion_start
from tests.factories import make_funded_player, make_showdown_table, make_table

pytestmark = pytest.mark.django_db


def pages() -> list[str]:
    return [
        reverse("lobby:home"),
        reverse("cashier:home"),
        reverse("lobby:profile"),
        reverse("histories:my_hands"),
        reverse("poker:table", args=[make_table().pk]),
        reverse("showdown:table", args=[make_showdown_table().pk]),
        reverse("showdown:live", args=[make_showdown_table(seats=3).pk]),
    ]


def test_a_player_on_a_time_out_sees_the_banner_and_no_refused_controls(client):
    alice = make_funded_player("alice")
    exclusion_start(player=alice, kind="time_out", length=1)
    client.force_login(alice)
    for url in pages():
        page = client.get(url).content.decode()
        assert 'id="play-blocked"' in page, url
        assert "You are on a time-out until" in page and "play-blocked" in page.split("<body")[1]
        for control in ('id="deposit-form"', 'id="sd-deal-form"', 'id="join-game"'):
            assert control not in page, (url, control)
    assert 'id="deposit-blocked"' in client.get(reverse("cashier:home")).content.decode()


def test_a_player_free_to_play_has_no_banner_and_every_control(client):
    alice = make_funded_player("alice")
    client.force_login(alice)
    seen = "".join(client.get(url).content.decode() for url in pages())
    assert 'id="play-blocked"' not in seen and "play-blocked" not in seen
    for control in ('id="deposit-form"', 'id="sd-deal-form"', 'id="join-game"'):
        assert control in seen
