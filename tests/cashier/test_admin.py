"""The ledger's accounts in the admin: the house's sharded accounts are named by
shard, one row each, with the house's one figure per kind above the list; staff still only
look."""

import pytest
from django.test import Client

from cashier.models import HOUSE_SHARDS, Account, house_shard
from cashier.services import banked_round_settle, banked_wager_place
from config.admin import money
from tests.factories import make_admin_client, make_funded_player

pytestmark = pytest.mark.django_db

Kind = Account.Kind
ACCOUNTS = "/admin/cashier/account/"


@pytest.fixture(params=["superuser", "viewer"])
def staff(request) -> Client:
    """A superuser, or staff allowed only to view the cashier's models: the same pages."""
    return make_admin_client(request.param, "cashier")


@pytest.fixture
def two_shards():
    """Alice's round won (paid from her shard of the bankroll) and Bob's still in play, on
    another shard; (alice, bob)."""
    alice = make_funded_player("alice", cents=10_000)
    bob = make_funded_player("bob", cents=10_000)
    assert house_shard(alice.pk) != house_shard(bob.pk)
    banked_wager_place(player=alice, round_id=1, amount=1_000)
    banked_round_settle(player=alice, round_id=1, staked=1_000, net=2_500)
    banked_wager_place(player=bob, round_id=2, amount=600)
    banked_wager_place(player=alice, round_id=3, amount=400)
    return alice, bob


def test_each_house_shard_is_named_and_the_house_figure_per_kind_is_their_sum(staff, two_shards):
    alice, bob = two_shards
    page = staff.get(ACCOUNTS)
    assert page.status_code == 200
    html = page.content.decode()
    assert "house shard" in html.lower()
    for player in (alice, bob):
        assert f"{house_shard(player.pk)} of {HOUSE_SHARDS}" in html
    figures = {figure["kind"]: figure for figure in page.context["house_figures"]}
    assert figures[Kind.HOUSE_BANKROLL]["balance"] == money(-2_500)
    assert figures[Kind.HOUSE_BANKROLL]["shards"] == 1
    assert figures[Kind.BANKED_BETS_IN_PLAY]["balance"] == money(1_000)
    assert figures[Kind.BANKED_BETS_IN_PLAY]["shards"] == 2
    assert 'id="house-figures"' in html and money(1_000) in html
    # Filtered to one kind, the list shows its shards and the figure stays the house's.
    filtered = staff.get(ACCOUNTS, {"kind__exact": Kind.BANKED_BETS_IN_PLAY})
    assert filtered.status_code == 200
    assert sorted(str(a) for a in filtered.context["cl"].result_list) == sorted(
        f"Banked game bets in play / shard {house_shard(player.pk)} of {HOUSE_SHARDS}"
        for player in (alice, bob)
    )
    assert filtered.context["house_figures"] == page.context["house_figures"]


def test_house_shards_stay_read_only(staff, two_shards):
    shard = Account.objects.filter(kind=Kind.HOUSE_BANKROLL).get()
    before = sorted(Account.objects.values_list("pk", "balance", "shard"))
    page = staff.get(f"{ACCOUNTS}{shard.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="_save"' not in html
    assert f"{shard.shard} of {HOUSE_SHARDS}" in html
    assert staff.post(f"{ACCOUNTS}{shard.pk}/change/", {"shard": 3}).status_code == 403
    assert staff.get(f"{ACCOUNTS}add/").status_code == 403
    assert staff.post(f"{ACCOUNTS}{shard.pk}/delete/", {"post": "yes"}).status_code == 403
    assert sorted(Account.objects.values_list("pk", "balance", "shard")) == before
