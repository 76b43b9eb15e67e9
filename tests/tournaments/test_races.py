"""Players racing for a Sit & Go's last seat, and one player's request arriving twice at once:
the tournament's row lock orders them, so the seats never overfill and money moves once."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connections

from cashier.models import Account, Entry
from cashier.selectors import wallet_balance
from cashier.verify import ledger_verify
from tests.factories import make_funded_player, make_sit_and_go
from tournaments.models import Registration, Tournament
from tournaments.services import TournamentError, tournament_register

pytestmark = pytest.mark.django_db(transaction=True)


def run_together(calls):
    """The calls in threads let go at the same moment, each on its own connection; what each
    returned or the TournamentError it raised."""
    barrier = threading.Barrier(len(calls))

    def run(call):
        try:
            barrier.wait()
            return call()
        except TournamentError as error:
            return error
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(run, calls))


def test_four_players_racing_for_two_seats_and_one_key_sent_twice():
    sng = make_sit_and_go(seats=2)
    players = [make_funded_player(f"p{i}", cents=5_000) for i in range(4)]
    twice = players[0]
    calls = [
        (lambda p=p: tournament_register(player=p, tournament=sng.pk, idempotency_key="go"))
        for p in players
    ]
    calls.append(lambda: tournament_register(player=twice, tournament=sng.pk, idempotency_key="go"))
    results = run_together(calls)
    refused = [r for r in results if isinstance(r, TournamentError)]
    assert {r.code for r in refused} <= {"not_registering", "tournament_full"}
    sng.refresh_from_db()
    assert sng.status == "running"
    assert Registration.objects.filter(tournament=sng, status="active").count() == 2
    assert Tournament.objects.filter(template=sng.template, status="registering").count() == 1
    # p0's two requests are one registration at most, one entry, one buy-in.
    assert Entry.objects.filter(player=twice, reason="tournament_buy_in").count() <= 1
    paid = sum(5_000 - wallet_balance(player=p) for p in players)
    assert paid == 2 * 1_100
    pool = Account.objects.get(kind="tournament_pool", tournament_id=sng.pk)
    assert pool.balance == 2_000
    assert ledger_verify().ok
