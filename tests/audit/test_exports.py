"""Auditors' exports beside the ledger's: the audit log (JSON, CSV, filters, enough to recompute
every hash) and the daily report; auditors only; bad parameters are a 400."""

import csv
import io
import json
from datetime import UTC, datetime

import pytest
from rest_framework.test import APIClient

from audit.models import AuditRecord
from audit.services import audit_record, chain_hash, content_hash_of
from cashier.models import Account, Entry
from cashier.services import (
    banked_round_settle,
    banked_round_void,
    banked_wager_place,
    hand_settle,
    table_buy_in,
    wallet_deposit,
    wallet_withdraw,
)
from tests.factories import make_funded_player, make_player, make_table, table_stakes

DAY1 = datetime(2026, 5, 1, 15, 0, tzinfo=UTC)
DAY2 = datetime(2026, 5, 2, 9, 0, tzinfo=UTC)
LOG = "/api/cashier/audit/log/"
DAILY = "/api/cashier/audit/daily/"


def parse_csv(response):
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    return list(csv.DictReader(io.StringIO(response.getvalue().decode())))


@pytest.mark.django_db(transaction=True)
def test_the_audit_log_export_is_in_chain_order_and_recomputes(auditor):
    alice = make_player("alice")
    audit_record(action="security.login", actor=alice, subject=alice, now=DAY1)
    audit_record(action="staff.note", actor=alice, payload={"text": "é ok", "n": 1.5}, now=DAY1)
    audit_record(action="security.logout", actor=alice, now=DAY2)
    rows = auditor.get(LOG).json()
    assert [r["seq"] for r in rows] == list(range(1, len(rows) + 1))
    previous = "0" * 64
    for row in rows:  # what an auditor does offline with the export
        fields = {**row, "created_at": datetime.fromisoformat(row["created_at"])}
        assert content_hash_of(fields) == row["content_hash"]
        assert row["prev_hash"] == previous
        assert chain_hash(row["prev_hash"], row["content_hash"]) == row["hash"]
        previous = row["hash"]

    day1 = auditor.get(LOG, {"from": "2026-05-01", "to": "2026-05-01"}).json()
    assert [r["action"] for r in day1] == ["security.login", "staff.note"]
    security = auditor.get(LOG, {"action": "security"}).json()
    assert {r["action"] for r in security} >= {"security.login", "security.logout"}
    assert all(r["action"].startswith("security.") for r in security)
    assert [r["action"] for r in auditor.get(LOG, {"action": "staff.note"}).json()] == [
        "staff.note"
    ]
    by_alice = auditor.get(LOG, {"actor": "alice", "to": "2026-05-02"}).json()
    assert len(by_alice) == 3
    subject = auditor.get(LOG, {"subject_type": "auth.user", "subject_id": str(alice.pk)}).json()
    assert [r["action"] for r in subject] == ["security.login"]

    rows_csv = parse_csv(auditor.get(LOG, {"format": "csv", "action": "staff"}))
    [note] = rows_csv
    assert json.loads(note["payload"]) == {"text": "é ok", "n": 1.5}
    assert note["hash"] == AuditRecord.objects.get(action="staff.note").hash


@pytest.mark.django_db
@pytest.mark.parametrize("url", [LOG, DAILY])
def test_only_auditors_may_export(client, url):
    assert client.get(url).status_code == 403
    player = APIClient()
    player.force_authenticate(make_player("pat"))
    assert player.get(url).status_code == 403


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url,params",
    [
        (LOG, {"from": "yesterday"}),
        (LOG, {"action": "DROP TABLE"}),
        (LOG, {"actor": "a b"}),
        (DAILY, {"from": "2026-05-03", "to": "2026-05-01"}),
        (DAILY, {"from": "2025-01-01", "to": "2026-05-01"}),
        (DAILY, {"to": "2026-13-01"}),
    ],
)
def test_bad_parameters_are_refused(auditor, url, params):
    response = auditor.get(url, params)
    assert response.status_code == 400 and response.json()["code"] == "bad_parameter"


@pytest.fixture
def two_days(db):
    """Day 1: deposits, a withdrawal, two raked hands at two tables, a banked round won by the
    player and one voided; day 2: a deposit only."""
    alice = make_funded_player("alice", cents=0)
    bob = make_funded_player("bob", cents=0)
    wallet_deposit(player=alice, amount=50_000, idempotency_key="d1")
    wallet_deposit(player=bob, amount=30_000, idempotency_key="d2")
    wallet_withdraw(player=bob, amount=2_500, idempotency_key="w1")
    first, second = make_table(name="Alpha"), make_table(name="Beta")
    for table in (first, second):
        for player in (alice, bob):
            table_buy_in(
                player=player, **table_stakes(table), amount=10_000, idempotency_key=table.name
            )
    hand_settle(table_id=first.pk, hand_id=1, net_by_player={alice.pk: 400, bob.pk: -500}, rake=100)
    hand_settle(table_id=second.pk, hand_id=2, net_by_player={alice.pk: -330, bob.pk: 300}, rake=30)
    banked_wager_place(player=alice, round_id=7, amount=1_000)
    banked_round_settle(player=alice, round_id=7, staked=1_000, net=2_000)
    banked_wager_place(player=bob, round_id=8, amount=600)
    banked_round_void(player=bob, round_id=8, amount=600)


@pytest.mark.django_db
@pytest.mark.usefixtures("two_days")
def test_the_daily_report_from_the_ledger(auditor):
    today = Entry.objects.first().created_at.astimezone(UTC).date().isoformat()
    [day] = auditor.get(DAILY, {"from": today, "to": today}).json()
    assert day["date"] == today
    assert day["deposits"] == {"count": 2, "amount": 80_000}
    assert day["withdrawals"] == {"count": 1, "amount": 2_500}
    assert [(r["table"], r["raked_hands"], r["rake"]) for r in day["rake"]] == [
        ("Alpha", 1, 100),
        ("Beta", 1, 30),
    ]
    assert day["rake_total"] == 130
    assert day["banked"] == {"rounds_settled": 1, "staked": 1_000, "house_result": -2_000}
    assert day["voids_to_charity"] == {"count": 1, "amount": 600}
    assert day["adjustments"] == {"count": 0, "credited": 0, "debited": 0}
    # Defaults: today only. An empty day is all zeros.
    assert auditor.get(DAILY).json() == [day]
    [empty] = auditor.get(DAILY, {"from": "2020-01-01", "to": "2020-01-01"}).json()
    assert empty["deposits"]["count"] == 0 and empty["rake"] == []

    rows = parse_csv(auditor.get(DAILY, {"format": "csv"}))
    figures = {(r["section"], r["table"]): (int(r["count"]), int(r["amount"])) for r in rows}
    assert figures[("deposits", "")] == (2, 80_000)
    assert figures[("rake", "Alpha")] == (1, 100)
    assert figures[("rake_total", "")] == (2, 130)
    assert figures[("banked_house_result", "")] == (1, -2_000)
    assert figures[("voids_to_charity", "")] == (1, 600)


@pytest.mark.django_db
@pytest.mark.skipif(
    not hasattr(Entry.Reason, "ADJUSTMENT"), reason="balance adjustments are not in the ledger"
)
def test_the_daily_report_counts_adjustments_from_the_ledger(auditor):
    from cashier import services

    alice = make_funded_player("alice", cents=5_000)
    house = services._account(Account.Kind.ADJUSTMENTS)
    wallet = services._account(Account.Kind.WALLET, owner=alice)
    for amount in (700, -200):
        locked = services._lock([house, wallet])
        services._post(
            reason="adjustment",
            legs=[(locked[wallet.pk], amount), (locked[house.pk], -amount)],
            player=alice,
        )
    [day] = auditor.get(DAILY).json()
    assert day["adjustments"] == {"count": 2, "credited": 700, "debited": 200}


@pytest.mark.django_db(transaction=True)
def test_an_export_checks_offline_and_an_edited_row_is_named(auditor, tmp_path, capsys):
    from audit import offline

    alice = make_funded_player("alice", cents=2_000)
    wallet_withdraw(player=alice, amount=500, idempotency_key="w")
    audit_record(action="staff.note", actor=alice, payload={"text": "日本語 ok", "p": 0.1})
    rows = auditor.get(LOG).json()
    export = tmp_path / "audit-log.json"
    export.write_text(json.dumps(rows), encoding="utf-8")
    assert offline.main([str(export)]) == 0
    assert "intact" in capsys.readouterr().out
    # A range from the middle of the chain checks too.
    assert offline.check(rows[1:]) == []

    rows[1]["payload"]["legs"][0][1] = -1
    export.write_text(json.dumps(rows), encoding="utf-8")
    assert offline.main([str(export)]) == 1
    out = capsys.readouterr().out
    assert f"BROKEN record #{rows[1]['id']}" in out and "do not give its content hash" in out

    del rows[1]
    assert "are missing" in offline.check(rows)[0]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    [
        "/api/cashier/audit/journal/",
        "/api/cashier/audit/rake/",
        LOG,
        DAILY,
        "/api/cashier/audit/hands/",
        "/api/cashier/audit/hands/ohh/",
    ],
)
@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_a_reversed_date_range_is_a_400_in_every_export(auditor, url, fmt):
    params = {"from": "2026-05-03", "to": "2026-05-01"}
    if not url.endswith("/ohh/"):  # a zip, in no other format
        params["format"] = fmt
    response = auditor.get(url, params)
    assert response.status_code == 400, response.content
    if fmt == "json":
        assert response.json() == {
            "code": "bad_parameter",
            "message": "'from' must not be after 'to'.",
        }


@pytest.mark.django_db(transaction=True)
def test_csv_cells_that_a_spreadsheet_would_run_are_escaped(auditor):
    """Staff text such as `=HYPERLINK(...)` goes out as text; numbers stay numbers."""
    staff = make_player("staffer", is_staff=True)
    for reason in ('=HYPERLINK("http://evil.test","click")', "+1+1", "-2+3", "@SUM(A1)", "'=x"):
        audit_record(action="staff.note", actor=staff, reason=reason, payload={"n": -5})
    rows = parse_csv(auditor.get(LOG, {"format": "csv", "action": "staff.note"}))
    assert [r["reason"] for r in rows] == [
        '\'=HYPERLINK("http://evil.test","click")',
        "'+1+1",
        "'-2+3",
        "'@SUM(A1)",
        "''=x",
    ]
    assert all(json.loads(r["payload"]) == {"n": -5} for r in rows)

    alice = make_funded_player("alice", cents=2_000)
    wallet_withdraw(player=alice, amount=500, idempotency_key="w")
    journal = parse_csv(auditor.get("/api/cashier/audit/journal/", {"format": "csv"}))
    assert "-500" in [r["amount"] for r in journal]  # a negative amount is a number, not text


@pytest.mark.django_db(transaction=True)
def test_the_audit_log_pages_by_its_chain_and_has_a_manifest(auditor, settings):
    import re

    settings.AUDIT_ANCHOR_KEY = "m" * 40
    # The auditor's own group (a change of power) may be on the log already.
    base = AuditRecord.objects.count()
    for n in range(7):
        audit_record(action="staff.note", payload={"n": n})
    audit_record(action="security.login")
    everything = auditor.get(LOG).json()
    rows, url, pages = [], LOG + "?limit=3", 0
    while url:
        response = auditor.get(url)
        rows.extend(response.json())
        pages += 1
        link = response.headers.get("Link")
        url = re.fullmatch(r'<([^>]+)>; rel="next"', link).group(1) if link else None
    assert rows == everything and pages == 3
    assert [r["seq"] for r in rows] == list(range(1, base + 9))
    assert auditor.get(LOG, {"after": "x1"}).status_code == 400
    response = auditor.get(LOG, {"format": "csv", "after": str(base + 5)})
    assert response.streaming and [r["seq"] for r in parse_csv(response)] == [
        str(base + seq) for seq in (6, 7, 8)
    ]

    manifest = auditor.get(LOG + "manifest/", {"action": "staff"}).json()
    assert manifest["filters"] == {"action": "staff"}
    assert manifest["counts"] == {
        "rows": 7,
        "chained": 7,
        "first_seq": base + 1,
        "last_seq": base + 7,
        "per_action_family": {"staff": 7},
    }
    assert manifest["anchor"]["seq"] == base + 8 and manifest["anchor"]["hash"] == rows[-1]["hash"]
