"""verify_ledger's rules for tournaments: a prize pool holds its registrations' buy-ins while
the Sit & Go registers or runs, nothing once it is over, and its money moves only in its own
buy-ins and refunds."""

import pytest

from cashier.models import Account, Entry
from cashier.services import _account, _lock, _post
from cashier.verify import ledger_verify
from tests.factories import make_funded_player, make_sit_and_go
from tournaments.models import Tournament
from tournaments.services import tournament_register

pytestmark = pytest.mark.django_db


def problems() -> list[str]:
    return ledger_verify().problems


@pytest.fixture
def registered():
    sng = make_sit_and_go()
    alice = make_funded_player("alice")
    tournament_register(player=alice, tournament=sng, idempotency_key="reg")
    assert problems() == []
    return sng, alice


def test_a_pool_unlike_its_registrations_is_named(registered):
    sng, alice = registered
    wallet = _account(Account.Kind.WALLET, owner=alice)
    pool = Account.objects.get(kind="tournament_pool", tournament_id=sng.pk)
    locked = _lock([wallet, pool])
    # A buy-in of this tournament with no registration behind it: balanced, but not a buy-in.
    _post(
        reason=Entry.Reason.TOURNAMENT_BUY_IN,
        legs=[(locked[wallet.pk], -500), (locked[pool.pk], 500)],
        player=alice,
        tournament_id=sng.pk,
    )
    [found] = problems()
    assert "[tournament_pools_match_tournaments]" in found
    assert f"tournament #{sng.pk} (registering): its prize pool holds 1500" in found


def test_a_pool_left_over_once_finished_is_named(registered):
    sng, _alice = registered
    Tournament.objects.filter(pk=sng.pk).update(status="cancelled", ended_at=sng.created_at)
    [found] = problems()
    assert "should hold 0 (nothing once cancelled)" in found


def test_pool_money_in_another_kind_of_entry_is_named(registered):
    sng, alice = registered
    wallet = _account(Account.Kind.WALLET, owner=alice)
    pool = Account.objects.get(kind="tournament_pool", tournament_id=sng.pk)
    locked = _lock([wallet, pool])
    _post(
        reason=Entry.Reason.CASH_OUT,
        legs=[(locked[pool.pk], -1_000), (locked[wallet.pk], 1_000)],
        player=alice,
    )
    found = "\n".join(problems())
    assert "[tournament_money_only_in_tournament_entries]" in found
    assert "[tournament_pools_match_tournaments]" in found
