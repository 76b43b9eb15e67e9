"""verify_ledger and verify_audit run daily by beat, each result recorded in the audit log and
shown in the admin; the audit log's admin pages are read-only."""

import time

import pytest
from django.db import connection, transaction
from django.test import Client
from django.urls import reverse

from audit.models import AuditRecord
from audit.services import audit_record
from audit.tasks import verify_daily
from tests.factories import make_funded_player, make_player


@pytest.mark.django_db(transaction=True)
def test_both_results_are_recorded_and_a_break_is_reported():
    make_funded_player("alice", cents=1_000)
    assert verify_daily() == {"ledger": True, "audit": True}
    ledger, chain = AuditRecord.objects.filter(action__startswith="verify.").order_by("seq")
    assert (ledger.action, chain.action) == ("verify.ledger", "verify.audit")
    assert ledger.payload["ok"] and ledger.payload["entries"] == 1
    assert "balanced_entries" in ledger.payload["rules"]
    assert chain.payload["ok"] and chain.payload["records"] >= 1 and chain.actor is None

    forged = AuditRecord.objects.get(action="ledger.entry")
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute("UPDATE audit_auditrecord SET reason = 'edited' WHERE id = %s", [forged.pk])
    assert verify_daily() == {"ledger": True, "audit": False}
    latest = AuditRecord.objects.filter(action="verify.audit").order_by("-seq").first()
    assert not latest.payload["ok"] and latest.payload["first_broken"] == forged.pk
    assert "changed since written" in latest.payload["problems"][0]


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_runs_the_daily_verification(celery_worker_process):
    make_funded_player("alice", cents=1_000)
    verify_daily.delay()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if AuditRecord.objects.filter(action="verify.audit", seq__isnull=False).exists():
            break
        time.sleep(0.3)
    assert AuditRecord.objects.get(action="verify.ledger").payload["ok"]
    assert AuditRecord.objects.get(action="verify.audit").payload["ok"]


@pytest.mark.django_db
def test_the_admin_shows_the_log_and_the_verification_runs_read_only():
    alice = make_player("alice")
    audit_record(action="security.login", actor=alice, subject=alice, payload={"ip": "1.2.3.4"})
    audit_record(action="verify.audit", payload={"ok": True, "records": 5, "head_seq": 5})
    staff = make_player("root", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(staff, backend="django.contrib.auth.backends.ModelBackend")
    listing = client.get(reverse("admin:audit_auditrecord_changelist"))
    assert listing.status_code == 200 and "security.login" in listing.content.decode()
    family = client.get(reverse("admin:audit_auditrecord_changelist"), {"family": "verify"})
    assert "security.login" not in family.content.decode()
    found = client.get(reverse("admin:audit_auditrecord_changelist"), {"q": "alice"})
    assert "security.login" in found.content.decode()
    record = AuditRecord.objects.get(action="security.login", actor=alice)
    page = client.get(reverse("admin:audit_auditrecord_change", args=[record.pk]))
    assert page.status_code == 200 and "1.2.3.4" in page.content.decode()
    assert 'name="_save"' not in page.content.decode()
    runs = client.get(reverse("admin:audit_verificationrun_changelist"))
    body = runs.content.decode()
    assert runs.status_code == 200 and "verify_audit" in body and "5 records" in body
    assert "security.login" not in body
    deleted = client.post(reverse("admin:audit_auditrecord_delete", args=[record.pk]))
    assert deleted.status_code == 403 and AuditRecord.objects.filter(pk=record.pk).exists()
