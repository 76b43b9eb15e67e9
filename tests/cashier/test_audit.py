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
    return list(csv.DictReader(io.StringIO(response.getvalue().decode())))


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


# -- at scale: pages by cursor, CSV streamed, a manifest per export


def follow_pages(client, url, params) -> tuple[list[dict], int]:
    """Every row of a paged export, following the Link header; and how many pages it took."""
    import re

    rows, pages, response = [], 0, client.get(url, params)
    while True:
        assert response.status_code == 200, response.content
        rows.extend(response.json())
        pages += 1
        link = response.headers.get("Link")
        if not link:
            return rows, pages
        next_url = re.fullmatch(r'<([^>]+)>; rel="next"', link).group(1)
        assert "after=" in next_url and next_url.startswith("http://testserver/")
        response = client.get(next_url)


def test_the_journal_pages_by_a_cursor_and_streams_csv(auditor, ledger):
    everything = auditor.get("/api/cashier/audit/journal/").json()
    assert len(everything) == Entry.objects.count() == 10
    assert "Link" not in auditor.get("/api/cashier/audit/journal/").headers
    paged, pages = follow_pages(auditor, "/api/cashier/audit/journal/", {"limit": 2})
    assert paged == everything and pages == 5
    assert auditor.get("/api/cashier/audit/journal/", {"limit": 10}).headers.get("Link") is None
    day1, _ = follow_pages(auditor, "/api/cashier/audit/journal/", {"limit": 3, "to": "2026-05-01"})
    assert day1 == [r for r in everything if r["created_at"].startswith("2026-05-01")]

    response = auditor.get("/api/cashier/audit/journal/", {"format": "csv"})
    assert response.streaming  # written a chunk at a time, never whole in memory
    rows = parse_csv(response)
    assert len(rows) == sum(max(len(e["postings"]), 1) for e in everything)
    after = auditor.get(
        "/api/cashier/audit/journal/", {"format": "csv", "after": everything[5]["entry_id"]}
    )
    assert {int(r["entry_id"]) for r in parse_csv(after)} == {e["entry_id"] for e in everything[6:]}

    for bad in ({"limit": "0"}, {"limit": "10001"}, {"limit": "x"}, {"after": "-1"}):
        response = auditor.get("/api/cashier/audit/journal/", bad)
        assert response.status_code == 400 and response.json()["code"] == "bad_parameter"


def test_the_journal_manifest_counts_what_the_export_holds(auditor, ledger, settings):
    from audit.anchor import anchor_signature_ok
    from audit.models import AuditChainHead

    settings.AUDIT_ANCHOR_KEY = "m" * 40
    manifest = auditor.get("/api/cashier/audit/journal/manifest/", {"to": "2026-05-01"}).json()
    rows = auditor.get("/api/cashier/audit/journal/", {"to": "2026-05-01"}).json()
    csv_rows = parse_csv(
        auditor.get("/api/cashier/audit/journal/", {"format": "csv", "to": "2026-05-01"})
    )
    counts = manifest["counts"]
    assert manifest["export"] == "journal" and manifest["filters"] == {"to": "2026-05-01"}
    assert counts["entries"] == len(rows) and counts["csv_rows"] == len(csv_rows)
    assert counts["first_entry_id"] == rows[0]["entry_id"]
    assert counts["last_entry_id"] == rows[-1]["entry_id"]
    legs = [p for r in rows for p in r["postings"]]
    assert counts["postings"] == len(legs)
    for kind, totals in counts["totals_per_account_kind"].items():
        mine = [p["amount"] for p in legs if p["account_kind"] == kind]
        assert totals["net"] == sum(mine) and totals["postings"] == len(mine)
        assert totals["credits"] == sum(a for a in mine if a > 0)
        assert totals["debits"] == -sum(a for a in mine if a < 0)
    assert counts["totals_per_account_kind"]["table_rake"]["net"] == 130
    assert sum(t["net"] for t in counts["totals_per_account_kind"].values()) == 0
    anchor = manifest["anchor"]
    head = AuditChainHead.objects.filter(pk=1).first()
    assert anchor["seq"] == (head.seq if head else 0) and anchor_signature_ok(anchor)


def test_adjustment_requests_export_with_their_manifest(auditor):
    from cashier.adjustments import adjustment_approve, adjustment_reject, adjustment_request
    from tests.factories import make_player

    alice = make_funded_player("alice", cents=1_000)
    asker = make_player("asker", is_staff=True)
    approver = make_player("approver", is_staff=True)
    first = adjustment_request(player=alice, amount=300, reason="refund", requested_by=asker)
    adjustment_approve(adjustment=first, approved_by=approver, reason="ok")
    second = adjustment_request(
        player=alice, amount=-200, reason='=HYPERLINK("x")', requested_by=asker
    )
    adjustment_reject(adjustment=second, rejected_by=approver, reason="no")
    adjustment_request(player=alice, amount=50, reason="waiting", requested_by=asker)

    rows = auditor.get("/api/cashier/audit/adjustments/").json()
    assert [(r["amount"], r["status"]) for r in rows] == [
        (300, "posted"),
        (-200, "rejected"),
        (50, "pending"),
    ]
    assert rows[0]["requested_by"] == "asker" and rows[0]["decided_by"] == "approver"
    assert rows[0]["entry_id"] == Entry.objects.get(reason="adjustment").pk
    paged, pages = follow_pages(auditor, "/api/cashier/audit/adjustments/", {"limit": 1})
    assert paged == rows and pages == 3
    csv_rows = parse_csv(auditor.get("/api/cashier/audit/adjustments/", {"format": "csv"}))
    assert csv_rows[1]["reason"] == '\'=HYPERLINK("x")' and csv_rows[1]["amount"] == "-200"
    assert [
        r["status"]
        for r in auditor.get("/api/cashier/audit/adjustments/", {"status": "pending"}).json()
    ] == ["pending"]
    assert auditor.get("/api/cashier/audit/adjustments/", {"status": "odd"}).status_code == 400

    manifest = auditor.get("/api/cashier/audit/adjustments/manifest/").json()
    assert manifest["counts"] == {
        "rows": 3,
        "per_status": {
            "pending": {"count": 1, "amount": 50},
            "posted": {"count": 1, "amount": 300},
            "rejected": {"count": 1, "amount": -200},
        },
    }


def test_the_schema_says_what_the_exports_return():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    for path in (
        "/api/cashier/audit/journal/",
        "/api/cashier/audit/log/",
        "/api/cashier/audit/adjustments/",
        "/api/cashier/audit/daily/",
        "/api/cashier/audit/rake/",
        "/api/cashier/audit/balances/",
    ):
        ok = schema["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]
        assert ok["schema"]["type"] == "array", path  # a bare array, as they answer
    journal = schema["paths"]["/api/cashier/audit/journal/"]["get"]
    assert {"limit", "after"} <= {p["name"] for p in journal["parameters"]}
    assert "Link" in journal["responses"]["200"]["description"]
    assert "anchor" in schema["components"]["schemas"]["Manifest"]["properties"]


@pytest.mark.django_db(transaction=True)
async def test_under_asgi_the_csv_streams_through_an_async_iterator():
    """Daphne serves through Django's ASGI handler, which would read a sync iterator whole
    into memory before sending the first byte."""
    from asgiref.sync import sync_to_async
    from django.contrib.auth.models import Group
    from django.test import AsyncClient

    from cashier.models import Posting
    from tests.factories import make_player

    def setup():
        for name in ("alice", "bob", "carol"):
            make_funded_player(name, cents=1_000)
        user = make_player("audrey")
        user.groups.add(Group.objects.get_or_create(name="auditors")[0])
        return user, Posting.objects.count()

    user, postings = await sync_to_async(setup)()
    client = AsyncClient()
    await client.aforce_login(user)
    response = await client.get("/api/cashier/audit/journal/", {"format": "csv"})
    assert response.status_code == 200 and response.is_async
    body = b"".join([part async for part in response]).decode()
    assert body.count("\n") == 1 + postings == 7
