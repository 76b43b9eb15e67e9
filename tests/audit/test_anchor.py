"""Anchors of the audit chain kept outside the database: the daily verification signs the head
into its record, the daily report and a file; `verify_audit --anchor` finds the two attacks the
chain walk alone cannot (a rewrite with recomputed links and head, the newest records deleted
and the head moved back); two exports compare offline."""

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction

from audit import offline
from audit.anchor import anchor_load, anchor_signature_ok, anchors_compare
from audit.models import AuditChainHead, AuditRecord
from audit.services import audit_record, chain_hash, content_hash
from audit.tasks import verify_daily
from audit.verify import audit_verify

KEY = "k" * 64


@pytest.fixture
def anchored(settings, tmp_path):
    settings.AUDIT_ANCHOR_KEY = KEY
    settings.AUDIT_ANCHOR_FILE = str(tmp_path / "anchors.jsonl")
    return tmp_path / "anchors.jsonl"


def verify_with(*paths) -> tuple[bool, str]:
    out, err = io.StringIO(), io.StringIO()
    args = [arg for path in paths for arg in ("--anchor", str(path))]
    try:
        call_command("verify_audit", *args, stdout=out, stderr=err)
    except CommandError as error:
        return False, out.getvalue() + err.getvalue() + str(error)
    return True, out.getvalue()


def as_forger(sql: str, params=()) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")  # no triggers
        cursor.execute(sql, params)


def some_records(n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        audit_record(action="staff.note", payload={"text": f"note {i}", "amount": 100 * i})


def rewrite_from(seq: int) -> None:
    """The probe's first attack: edit the record at `seq`, then recompute every later content
    hash and link, and the head, so the chain walks clean."""
    previous = AuditRecord.objects.get(seq=seq - 1).hash
    for record in AuditRecord.objects.filter(seq__gte=seq).order_by("seq"):
        if record.seq == seq:
            record.payload = {**record.payload, "amount": 999_999}
        record.content_hash = content_hash(record)
        record.prev_hash, record.hash = previous, chain_hash(previous, record.content_hash)
        as_forger(
            "UPDATE audit_auditrecord SET payload = %s, content_hash = %s, prev_hash = %s, "
            "hash = %s WHERE id = %s",
            [
                json.dumps(record.payload),
                record.content_hash,
                record.prev_hash,
                record.hash,
                record.pk,
            ],
        )
        previous = record.hash
    as_forger("UPDATE audit_auditchainhead SET hash = %s WHERE id = 1", [previous])


@pytest.mark.django_db(transaction=True)
def test_the_daily_verification_signs_the_head_into_its_record_the_report_and_a_file(
    anchored, auditor
):
    base = AuditRecord.objects.count()  # the auditor's group, a change of power, may be logged
    some_records(3)
    head = AuditChainHead.objects.get()
    assert verify_daily() == {"ledger": True, "audit": True}
    record = AuditRecord.objects.get(action="verify.audit")
    anchor = record.payload["anchor"]
    assert (anchor["seq"], anchor["hash"]) == (head.seq, head.hash) == (base + 3, head.hash)
    assert anchor_signature_ok(anchor)
    assert json.loads(anchored.read_text()) == anchor  # the file outside the database
    [day] = auditor.get("/api/cashier/audit/daily/").json()
    assert day["audit_anchor"] == anchor
    csv_text = auditor.get("/api/cashier/audit/daily/", {"format": "csv"}).content.decode()
    assert f"audit_anchor,,{anchor['seq']},,{anchor['hash']}" in csv_text
    ok, out = verify_with(anchored)
    assert ok and "1 anchor(s)" in out


@pytest.mark.django_db(transaction=True)
def test_an_anchor_with_another_key_or_an_edited_hash_is_refused(anchored, settings):
    some_records(2)
    verify_daily()
    anchor = json.loads(anchored.read_text())
    assert anchors_compare([anchor]) == []
    assert "signature does not verify" in anchors_compare([{**anchor, "hash": "f" * 64}])[0]
    settings.AUDIT_ANCHOR_KEY = "another" * 10
    assert "signature does not verify" in anchors_compare([anchor])[0]
    assert "unsigned" in anchors_compare([{**anchor, "signature": None}])[0]


@pytest.mark.django_db(transaction=True)
def test_a_rewrite_with_recomputed_links_and_head_fails_against_an_earlier_anchor(
    anchored, auditor, tmp_path
):
    base = AuditRecord.objects.count()  # the auditor's group, a change of power, may be logged
    some_records(8)
    verify_daily()  # anchors seq base + 8
    export = tmp_path / "audit-log.json"
    export.write_text(json.dumps(auditor.get("/api/cashier/audit/log/").json()))
    report = tmp_path / "daily.csv"
    report.write_text(auditor.get("/api/cashier/audit/daily/", {"format": "csv"}).content.decode())
    some_records(2, start=8)
    assert verify_with(anchored, export, report)[0]

    rewrite_from(base + 4)
    assert audit_verify().ok  # the walk alone cannot tell
    ok, text = verify_with(anchored)
    assert not ok and f"the live record at seq {base + 8} has another hash" in text
    ok, text = verify_with(export)
    contradicted = f"the first exported record the live chain contradicts is seq {base + 4}"
    assert not ok and contradicted in text
    ok, text = verify_with(report)  # the daily report's CSV anchor is enough too
    assert not ok and f"rewritten at or before seq {base + 8}" in text


@pytest.mark.django_db(transaction=True)
def test_the_newest_records_deleted_and_the_head_moved_back_fail_against_an_anchor(anchored):
    some_records(5)
    verify_daily()  # anchors seq 5; the two verify records are seq 6 and 7
    kept = AuditRecord.objects.get(seq=4)
    as_forger("DELETE FROM audit_auditrecord WHERE seq > 4")
    as_forger("UPDATE audit_auditchainhead SET seq = 4, hash = %s WHERE id = 1", [kept.hash])
    assert audit_verify().ok  # the walk alone cannot tell
    ok, text = verify_with(anchored)
    assert not ok and "no record at seq 5 (its head is at seq 4)" in text
    assert "deleted and the head moved back" in text


@pytest.mark.django_db(transaction=True)
def test_an_export_compares_offline_with_the_last_one(auditor, tmp_path, capsys):
    base = AuditRecord.objects.count()  # the auditor's group, a change of power, may be logged
    some_records(4)
    last = auditor.get("/api/cashier/audit/log/").json()
    some_records(2, start=4)
    new = auditor.get("/api/cashier/audit/log/").json()
    assert offline.compare(last, new) == []
    (tmp_path / "last.json").write_text(json.dumps(last))
    (tmp_path / "new.json").write_text(json.dumps(new))
    assert offline.main(["--compare", str(tmp_path / "last.json"), str(tmp_path / "new.json")]) == 0
    assert "agree" in capsys.readouterr().out

    # A rewrite that recomputed every link still changes the hashes the last export kept.
    rewritten = [dict(row) for row in new]
    rewritten[base + 2]["hash"] = "e" * 64
    assert f"seq {base + 3}: its hash changed" in offline.compare(last, rewritten)[0]
    assert "records were removed" in offline.compare(new, last)[0]
    assert anchor_load(tmp_path / "new.json")[1][-1]["seq"] == base + 6


def test_the_deploy_check_warns_without_an_anchor_key(settings):
    from audit.checks import audit_anchor_key_set

    settings.AUDIT_ANCHOR_KEY = ""
    assert [w.id for w in audit_anchor_key_set()] == ["audit.W001"]
    settings.AUDIT_ANCHOR_KEY = KEY
    assert audit_anchor_key_set() == []
