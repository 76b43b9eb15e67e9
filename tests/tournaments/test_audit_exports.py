"""The auditors' exports cover Sit & Go money: the journal names each buy-in, refund and prize
entry's tournament and its pool account, in JSON and CSV; the balances show the pools."""

import csv
import io

import pytest

from tests.factories import make_funded_player
from tests.factories import make_sit_and_go as make_sng
from tests.tournaments.sng_play import play_out
from tournaments.services import tournament_register, tournament_unregister

pytestmark = pytest.mark.django_db


def test_the_journal_and_balances_cover_buy_ins_refunds_and_prizes(auditor):
    sng = make_sng(seats=2, starting_chips=100)
    players = [make_funded_player(name, cents=5_000) for name in ("ann", "bob", "cyd")]
    tournament_register(player=players[2], tournament=sng, idempotency_key="c")
    tournament_unregister(player=players[2], tournament=sng)
    for player in players[:2]:
        tournament_register(player=player, tournament=sng, idempotency_key=f"k-{player.pk}")
    sng.refresh_from_db()
    play_out(sng, players[:2])
    entries = auditor.get("/api/cashier/audit/journal/").json()
    mine = [e for e in entries if e["tournament_id"] == sng.pk]
    reasons = sorted(e["reason"] for e in mine)
    assert reasons == [
        "tournament_buy_in",
        "tournament_buy_in",
        "tournament_buy_in",
        "tournament_payout",
        "tournament_refund",
    ]
    for entry in mine:
        assert sum(p["amount"] for p in entry["postings"]) == 0
        pool = [p for p in entry["postings"] if p["account_kind"] == "tournament_pool"]
        assert [p["account_tournament"] for p in pool] == [sng.pk]
    buy_in = next(e for e in mine if e["reason"] == "tournament_buy_in")
    kinds = sorted((p["account_kind"], p["amount"]) for p in buy_in["postings"])
    assert kinds == [("tournament_fees", 100), ("tournament_pool", 1_000), ("wallet", -1_100)]
    payout = next(e for e in mine if e["reason"] == "tournament_payout")
    assert sorted(p["amount"] for p in payout["postings"]) == [-2_000, 2_000]
    # CSV: one row a posting, the tournament on each.
    response = auditor.get("/api/cashier/audit/journal/?format=csv")
    rows = list(csv.DictReader(io.StringIO(response.getvalue().decode())))
    pool_rows = [r for r in rows if r["account_kind"] == "tournament_pool"]
    assert len(pool_rows) == 5
    assert {r["tournament_id"] for r in pool_rows} == {r["account_tournament"] for r in pool_rows}
    assert {r["tournament_id"] for r in pool_rows} == {str(sng.pk)}
    # The balances: the pool emptied by the prizes, the fees kept by the house.
    balances = auditor.get("/api/cashier/audit/balances/").json()
    pool = [b for b in balances if b["account_kind"] == "tournament_pool"]
    assert [(b["account_tournament"], b["balance"]) for b in pool] == [(sng.pk, 0)]
    fees = sum(b["balance"] for b in balances if b["account_kind"] == "tournament_fees")
    assert fees == 200
