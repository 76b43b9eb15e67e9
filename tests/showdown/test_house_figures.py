"""The house's banked accounts are shards and a live board's seats settle in one entry, yet
the house's figures read to auditors as one: the daily report counts
one round per player's round settled and shows one house figure, and the journal names the
shard each house posting moved."""

import csv
import io
from datetime import UTC

import pytest

from cashier import audit_reports
from cashier.models import Account, Entry, house_shard
from showdown import services
from showdown.services import round_deal, round_decide
from tests.factories import make_funded_player, make_showdown_table, showdown_deck
from tests.showdown.play import NOTHING, play_a_live_board

pytestmark = pytest.mark.django_db

Kind = Account.Kind
DAILY = "/api/cashier/audit/daily/"


def csv_rows(response) -> list[dict]:
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(response.getvalue().decode())))


@pytest.fixture
def a_live_and_an_online_round(monkeypatch):
    """`play_a_live_board` and an online round of Dan's; (live rounds, online round)."""
    live = play_a_live_board(monkeypatch)
    dan = make_funded_player("dan")
    deck = showdown_deck(*NOTHING)
    monkeypatch.setattr(services, "deck_shuffle", lambda randbelow: list(deck))
    online = round_deal(player=dan, table=make_showdown_table(), ante=700, idempotency_key="o")
    online = round_decide(player=dan, round_id=online.pk, decision="call", idempotency_key="p")
    return live, online


def test_the_daily_report_counts_each_player_s_round_and_one_house_figure(
    auditor, a_live_and_an_online_round
):
    live, online = a_live_and_an_online_round
    (shared,) = {r.result_entry_id for r in live}
    entry = Entry.objects.get(pk=shared)
    assert entry.player_id is None
    assert entry.postings.filter(account__kind=Kind.HOUSE_BANKROLL).count() == 3  # 3 shards
    assert not entry.postings.filter(account__kind=Kind.WALLET, account__owner__username="cat")
    settled = [*live, online]
    today = entry.created_at.astimezone(UTC).date().isoformat()

    [day] = auditor.get(DAILY, {"from": today, "to": today}).json()
    assert day["banked"] == {
        "rounds_settled": 4,  # three seats of one board, one online round
        "staked": sum(r.staked for r in settled),
        "house_result": -sum(r.net for r in settled),
    }
    rows = csv_rows(auditor.get(DAILY, {"format": "csv"}))
    house = [r for r in rows if r["section"] == "banked_house_result"]
    assert [(r["count"], r["amount"]) for r in house] == [("4", str(-sum(r.net for r in settled)))]
    # The house bankroll's shards sum to that one figure.
    bankroll = Account.objects.filter(kind=Kind.HOUSE_BANKROLL).values_list("balance", flat=True)
    assert len(bankroll) == len({house_shard(r.player_id) for r in settled}) > 3
    assert sum(bankroll) == day["banked"]["house_result"]


def test_without_a_counter_a_shared_settlement_counts_once(monkeypatch, a_live_and_an_online_round):
    monkeypatch.setattr(audit_reports, "_shared_rounds", [])
    entry = Entry.objects.filter(reason=Entry.Reason.BANKED_PAYOUT).first()
    [day] = audit_reports.daily_report(days=[entry.created_at.astimezone(UTC).date()])
    assert day["banked"]["rounds_settled"] == 2


def test_the_journal_names_each_house_posting_s_shard_and_balances_say_they_sum(
    auditor, a_live_and_an_online_round
):
    live, online = a_live_and_an_online_round
    journal = auditor.get("/api/cashier/audit/journal/", {"format": "json"}).json()
    (board,) = [e for e in journal if e["entry_id"] == live[0].result_entry_id]
    house = [p for p in board["postings"] if p["account_kind"] == Kind.HOUSE_BANKROLL]
    assert sorted(p["account_shard"] for p in house) == sorted(
        house_shard(r.player_id) for r in live
    )
    for posting in board["postings"]:
        account = Account.objects.get(pk=posting["account_id"])
        if account.kind in (Kind.HOUSE_BANKROLL, Kind.BANKED_BETS_IN_PLAY):
            assert posting["account_shard"] == account.shard
        else:
            assert posting["account_shard"] is None
    rows = csv_rows(auditor.get("/api/cashier/audit/journal/", {"format": "csv"}))
    assert {r["account_shard"] for r in rows if r["account_kind"] == "wallet"} == {""}
    # Summing the house's postings per kind over the shards gives the one figure.
    net = sum(int(r["amount"]) for r in rows if r["account_kind"] == Kind.HOUSE_BANKROLL)
    assert net == -sum(r.net for r in [*live, online])

    balances = auditor.get("/api/cashier/audit/balances/", {"format": "json"}).json()
    (bankroll,) = [r for r in balances if r["account_kind"] == Kind.HOUSE_BANKROLL]
    assert bankroll["account_shard"] == "all" and bankroll["balance"] == net
    first = Account.objects.filter(kind=Kind.HOUSE_BANKROLL).order_by("pk").first()
    assert bankroll["account_id"] == first.pk
    assert {r["account_shard"] for r in balances if r["account_kind"] == "wallet"} == {None}
