"""The room's app role (`manage.py db_grant_app_role`) writes the audit log and its chain moves
(the chain trigger runs as the owner), but it cannot change, delete or bypass anything."""

import pytest
from django.db import ProgrammingError, connection, transaction

from audit.models import AuditChainHead, AuditRecord
from audit.services import audit_record
from audit.verify import audit_verify
from cashier.services import wallet_withdraw
from tests.cashier.app_role import connected_as
from tests.factories import make_funded_player


def test_the_app_role_writes_chained_records(app_role, transactional_db):
    alice = make_funded_player("alice", cents=1_000)
    with connected_as(app_role):
        wallet_withdraw(player=alice, amount=300, idempotency_key="out")
        audit_record(action="staff.note", payload={"text": "as the app"})
        report = audit_verify()
    assert report.ok and report.records == AuditRecord.objects.count() >= 3
    assert AuditChainHead.objects.get().seq == AuditRecord.objects.count()


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE audit_auditrecord SET reason = 'rewritten'",
        "DELETE FROM audit_auditrecord",
        "TRUNCATE audit_auditrecord",
        "UPDATE audit_auditchainhead SET seq = 0",
        "INSERT INTO audit_auditchainhead (id, seq, hash) VALUES (2, 0, 'x')",
        "DELETE FROM audit_chainpending",
        "INSERT INTO audit_chainpending (txid) VALUES (1)",
        "ALTER TABLE audit_auditrecord DISABLE TRIGGER ALL",
        "DROP TRIGGER audit_record_chain ON audit_auditrecord",
        "SET session_replication_role = replica",
    ],
)
def test_the_app_role_cannot_touch_the_log(app_role, transactional_db, sql):
    audit_record(action="staff.note", reason="kept")
    with (
        connected_as(app_role),
        pytest.raises(ProgrammingError, match=r"permission denied|must be owner"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql)
    assert AuditRecord.objects.get().reason == "kept"
    assert audit_verify().ok


def test_a_power_change_by_raw_sql_as_the_app_role_is_recorded_and_chained(
    app_role,
    transactional_db,
):
    from django.contrib.auth import get_user_model

    alice = make_funded_player("alice", cents=0)
    with connected_as(app_role):
        with connection.cursor() as cursor:
            cursor.execute("UPDATE auth_user SET is_superuser = true WHERE id = %s", [alice.pk])
        get_user_model().objects.filter(pk=alice.pk).update(is_staff=True)
        report = audit_verify()
    raw, orm = AuditRecord.objects.filter(action="security.power_change").order_by("id")
    assert raw.payload["after"]["is_superuser"] and orm.payload["after"]["is_staff"]
    assert raw.payload["db_role"] == orm.payload["db_role"] == app_role
    assert raw.actor_kind == AuditRecord.ActorKind.DATABASE
    assert report.ok and report.pending == 0 and raw.seq is not None
