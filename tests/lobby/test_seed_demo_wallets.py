"""seed_demo's cashier block: funded demo wallets, and a rerun moves nothing."""

import pytest
from django.core.management import call_command

from cashier.models import Entry
from cashier.selectors import wallet_balance
from cashier.verify import ledger_verify
from lobby.management.commands.seed_demo import DEMO_PLAYERS, DEMO_WALLET_CENTS

pytestmark = pytest.mark.django_db


def test_demo_wallets_are_funded_once(django_user_model):
    call_command("seed_demo", verbosity=0)
    call_command("seed_demo", verbosity=0)
    for username in DEMO_PLAYERS:
        player = django_user_model.objects.get(username=username)
        assert wallet_balance(player=player) == DEMO_WALLET_CENTS
    assert Entry.objects.filter(reason="deposit").count() == len(DEMO_PLAYERS)
    assert ledger_verify().ok
