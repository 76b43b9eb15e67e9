"""Auditors' exports: journal, balances at a date, daily rake; CSV and JSON; 403 for others."""

import csv
import io
from datetime import UTC, datetime

import pytest
from rest_framework.test import APIClient

from cashier.models import Account, Entry
from cashier.services import hand_settle, table_buy_in
from tests.factories import make_funded_player, make_table, table_stakes

pytestmark = pytest.mark.django_db

DAY1 = datetime(2026, 5, 1, 15, 0, tzinfo=UTC)
DAY2 = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def ledger(table):
    """Two days of play: two raked hands and an unraked one on day 1, one on day 2 elsewhere."""
    alice = make_funded_player("alice")
    bob = make_funded_player("bob")
    for p in (alice, bob):
        table_buy_in(player=p, **table_stakes(table), amount=10_000, idempotency_key="a", now=DAY1)
    nets = [({alice.pk: 400, bob.pk: -500}, 100), ({alice.pk: -330, bob.pk: 300}, 30)]
    nets.append(({alice.pk: 50, bob.pk: -50}, 0))
    for hand_id, (net, rake) in enumerate(nets, start=1):
        hand_settle(table_id=table.pk, hand_id=hand_id, net_by_player=net, rake=rake, now=DAY1)
    other = make_table(name="Hi-lo table", game="omaha8")
    for p in (alice, bob):
        table_buy_in(player=p, **table_stakes(other), amount=5_000, idempotency_key="b", now=DAY2)
    hand_settle(
        table_id=other.pk, hand_id=4, net_by_player={alice.pk: 200, bob.pk: -250}, rake=50, now=DAY2
    )
    return alice, bob, table, other


def parse_csv(response):
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def test_journal_json_has_entries_with_postings_in_the_date_range(auditor, ledger):
    rows = auditor.get("/api/cashier/audit/journal/?from=2026-05-01&to=2026-05-01").json()
    assert [r["reason"] for r in rows] == ["buy_in", "buy_in", *["hand_settlement"] * 3]
    first_hand = rows[2]
    assert first_hand["hand_id"] == 1
    assert sorted(p["amount"] for p in first_hand["postings"]) == [-500, 100, 400]
    assert {p["account_kind"] for p in first_hand["postings"]} == {"table_stack", "table_rake"}
    day2 = auditor.get("/api/cashier/audit/journal/?from=2026-05-02&to=2026-05-02").json()
    assert [r["hand_id"] for r in day2 if r["reason"] == "hand_settlement"] == [4]
    everything = auditor.get("/api/cashier/audit/journal/").json()
    assert len(everything) == Entry.objects.count()


def test_journal_csv_has_one_row_per_posting_and_filters_by_account(auditor, ledger):
    _, _, table, _ = ledger
    rake_account = Account.objects.get(kind="table_rake", table=table)
    response = auditor.get(f"/api/cashier/audit/journal/?format=csv&account={rake_account.pk}")
    rows = parse_csv(response)
    assert "attachment" in response["Content-Disposition"]
    # Hands 1 and 2 paid rake at that table: all their postings, three legs each.
    assert sorted({r["hand_id"] for r in rows}) == ["1", "2"]
    assert len(rows) == 6
    assert sum(int(r["amount"]) for r in rows) == 0


def test_balances_at_the_end_of_a_day(auditor, ledger):
    _, _, table, other = ledger
    rows = auditor.get("/api/cashier/audit/balances/?at=2026-05-01").json()
    by_account = {(r["account_kind"], r["account_owner"], r["account_table"]): r for r in rows}
    assert by_account[("table_stack", "alice", table.name)]["balance"] == 10_000 + 400 - 330 + 50
    assert by_account[("table_rake", "", table.name)]["balance"] == 130
    assert by_account[("table_rake", "", other.name)]["balance"] == 0  # its hand was day 2
    rake_id = Account.objects.get(kind="table_rake", table=other).pk
    one = auditor.get(f"/api/cashier/audit/balances/?at=2026-05-02&account={rake_id}").json()
    assert [(r["account_id"], r["balance"]) for r in one] == [(rake_id, 50)]
    now_rows = auditor.get("/api/cashier/audit/balances/").json()
    assert sum(r["balance"] for r in now_rows) == 0
    csv_rows = parse_csv(auditor.get("/api/cashier/audit/balances/?format=csv"))
    assert sum(int(r["balance"]) for r in csv_rows) == 0


def test_daily_rake_report_per_table_and_game(auditor, ledger):
    _, _, table, other = ledger
    rows = auditor.get("/api/cashier/audit/rake/").json()
    assert rows == [
        {
            "date": "2026-05-01",
            "table_id": table.pk,
            "table": table.name,
            "game": "omaha",
            "structure": "pot-limit",
            "raked_hands": 2,
            "rake": 130,
        },
        {
            "date": "2026-05-02",
            "table_id": other.pk,
            "table": "Hi-lo table",
            "game": "omaha8",
            "structure": "pot-limit",
            "raked_hands": 1,
            "rake": 50,
        },
    ]
    assert auditor.get("/api/cashier/audit/rake/?from=2026-05-02").json()[0]["rake"] == 50
    assert (
        auditor.get(f"/api/cashier/audit/rake/?table={table.pk}&to=2026-05-01").json()[0]["rake"]
        == 130
    )
    csv_rows = parse_csv(auditor.get("/api/cashier/audit/rake/?format=csv"))
    assert [r["rake"] for r in csv_rows] == ["130", "50"]


@pytest.mark.parametrize(
    ("export", "query"),
    [
        ("journal", "from=yesterday"),
        ("journal", "to=2026-13-01"),
        ("journal", "account=x"),
        ("balances", "at=soon"),
        # Each of these was a 500: "²".isdigit() is true but int() refuses it, and the day
        # after 9999-12-31 does not exist.
        ("journal", "account=²"),
        ("balances", "account=²"),
        ("rake", "table=²"),
        ("journal", "account=" + "1" * 5000),
        ("journal", "to=9999-12-31"),
        ("rake", "to=9999-12-31"),
        ("balances", "at=9999-12-31"),
    ],
)
@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_bad_filters_are_refused_clearly(auditor, export, query, fmt):
    response = auditor.get(f"/api/cashier/audit/{export}/?{query}&format={fmt}")
    assert response.status_code == 400
    body = response.json() if fmt == "json" else parse_csv(response)[0]
    assert body["code"] == "bad_parameter"
    assert query.split("=")[0] in body["message"]


@pytest.mark.parametrize("export", ["journal", "balances", "rake"])
@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_players_and_anonymous_users_get_403(player, export, fmt):
    anonymous = APIClient()
    assert anonymous.get(f"/api/cashier/audit/{export}/?format={fmt}").status_code == 403
    logged_in = APIClient()
    logged_in.force_authenticate(player)
    assert logged_in.get(f"/api/cashier/audit/{export}/?format={fmt}").status_code == 403


def test_exports_are_read_only(auditor):
    assert auditor.post("/api/cashier/audit/journal/", {}).status_code == 405
