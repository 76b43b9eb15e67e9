"""The audit log itself: one record per call in the caller's transaction, the chain linked at
commit, and PostgreSQL refusing any change to a record or the chain head."""

import io
import itertools

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, connection, transaction

from audit.models import GENESIS_HASH, AuditChainHead, AuditRecord
from audit.services import AuditError, Subject, audit_record, chain_hash, content_hash
from audit.verify import audit_verify
from tests.factories import make_player, make_table


def verify_output() -> tuple[str, str, bool]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("verify_audit", stdout=out, stderr=err)
    except CommandError as exc:
        return out.getvalue(), err.getvalue() + str(exc), False
    return out.getvalue(), err.getvalue(), True


@pytest.mark.django_db(transaction=True)
def test_records_are_chained_in_commit_order_and_verify():
    alice = make_player("alice")
    table = make_table(name="Chain")
    first = audit_record(action="test.first", actor=alice, subject=table, payload={"n": 1})
    with transaction.atomic():
        second = audit_record(action="test.second", payload={"p": 0.25, "f": 2.0}, reason="why")
        third = audit_record(
            action="test.third", subject=Subject("cashier.entry", 7, "deposit"), payload=None
        )
    records = list(AuditRecord.objects.order_by("seq"))
    assert [r.pk for r in records] == [first.pk, second.pk, third.pk]
    assert [r.seq for r in records] == [1, 2, 3]
    assert records[0].prev_hash == GENESIS_HASH
    for before, record in itertools.pairwise(records):
        assert record.prev_hash == before.hash
    for record in records:
        assert record.content_hash == content_hash(record)
        assert record.hash == chain_hash(record.prev_hash, record.content_hash)
    assert records[0].actor_kind == "player" and records[0].actor_label == "alice"
    assert records[0].subject_type == "poker.table" and records[0].subject_id == str(table.pk)
    assert records[1].actor_kind == "system" and records[1].payload == {"p": 0.25, "f": 2}
    assert records[2].subject_label == "deposit"
    head = AuditChainHead.objects.get()
    assert (head.seq, head.hash) == (3, records[2].hash)
    report = audit_verify()
    assert report.ok and report.records == 3
    out, _, ok = verify_output()
    assert ok and "Checked 3 audit records" in out and "intact" in out


@pytest.mark.django_db(transaction=True)
def test_a_failed_action_leaves_no_record():
    with pytest.raises(RuntimeError), transaction.atomic():
        audit_record(action="test.rolled_back")
        raise RuntimeError("the action failed after recording")
    assert not AuditRecord.objects.exists()
    assert not AuditChainHead.objects.filter(seq__gt=0).exists()
    audit_record(action="test.after")
    assert AuditRecord.objects.get().seq == 1
    assert audit_verify().ok


@pytest.mark.django_db
@pytest.mark.parametrize(
    "kwargs",
    [
        {"action": "nodots"},
        {"action": "Bad.Case"},
        {"action": ""},
        {"action": 5},
        {"action": "x." + "a" * 70},
        {"action": "test.payload", "payload": [1, 2]},
        {"action": "test.payload", "payload": {"x": float("nan")}},
        {"action": "test.payload", "payload": {"x": object()}},
        {"action": "test.subject", "subject": "poker.table#1"},
        {"action": "test.kind", "actor_kind": "robot"},
    ],
)
def test_bad_input_is_refused_and_writes_nothing(kwargs):
    with pytest.raises(AuditError):
        audit_record(**kwargs)
    assert not AuditRecord.objects.exists()


@pytest.mark.django_db
def test_an_anonymous_user_is_recorded_as_not_signed_in():
    from django.contrib.auth.models import AnonymousUser

    record = audit_record(action="security.password_reset_requested", actor=AnonymousUser())
    assert record.actor is None and record.actor_kind == "anonymous"


@pytest.mark.django_db(transaction=True)
def test_staff_actor_kind():
    staff = make_player("sam", is_staff=True)
    record = audit_record(action="staff.note", actor=staff, reason="looked")
    assert record.actor_kind == "staff"


# -- the database refuses changes (PostgreSQL)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE audit_auditrecord SET payload = '{\"amount\": 1}'",
        "UPDATE audit_auditrecord SET hash = repeat('a', 64)",
        "DELETE FROM audit_auditrecord",
        "UPDATE audit_auditchainhead SET seq = 0",
        "DELETE FROM audit_auditchainhead",
    ],
)
def test_update_and_delete_are_refused_at_the_database(statement):
    audit_record(action="test.kept", payload={"amount": 100})
    with pytest.raises(IntegrityError, match="refused"), connection.cursor() as cursor:
        cursor.execute(statement)
    record = AuditRecord.objects.get()
    assert record.payload == {"amount": 100} and record.seq == 1
    assert audit_verify().ok


@pytest.mark.django_db(transaction=True)
def test_an_insert_cannot_choose_its_place_in_the_chain():
    audit_record(action="test.first")
    record = AuditRecord(action="test.raw", actor_kind="system", content_hash="0" * 64, payload={})
    record.content_hash = content_hash(record)
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO audit_auditrecord (created_at, actor_label, actor_kind, action, "
            "subject_type, subject_id, subject_label, payload, reason, content_hash, seq, "
            "prev_hash, hash) VALUES (%s, '', 'system', 'test.raw', '', '', '', '{}', '', %s, "
            "1, %s, %s)",
            [record.created_at, record.content_hash, GENESIS_HASH, "f" * 64],
        )
    raw = AuditRecord.objects.get(action="test.raw")
    assert raw.seq == 2 and raw.hash == chain_hash(raw.prev_hash, raw.content_hash)
    assert audit_verify().ok


# -- forgeries are found (triggers switched off as the superuser, as a thief with the owner's
# rights could)


def _as_forger(sql: str, params=()) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")  # no triggers
        cursor.execute(sql, params)


def _three_records() -> list[AuditRecord]:
    for n in range(3):
        audit_record(action="ledger.entry", payload={"amount": 100 * (n + 1)})
    return list(AuditRecord.objects.order_by("seq"))


@pytest.mark.django_db(transaction=True)
def test_verify_audit_names_a_record_edited_with_direct_sql():
    records = _three_records()
    _as_forger(
        "UPDATE audit_auditrecord SET payload = '{\"amount\": 1}' WHERE id = %s",
        [records[1].pk],
    )
    report = audit_verify()
    assert not report.ok and report.first_broken == records[1].pk
    _, err, ok = verify_output()
    assert not ok
    assert f"first broken record #{records[1].pk}" in err and "changed since written" in err


@pytest.mark.django_db(transaction=True)
def test_verify_audit_finds_a_record_rehashed_after_editing():
    records = _three_records()
    forged = records[1]
    forged.payload = {"amount": 1}
    new_content = content_hash(forged)
    _as_forger(
        "UPDATE audit_auditrecord SET payload = '{\"amount\": 1}', content_hash = %s, hash = %s "
        "WHERE id = %s",
        [new_content, chain_hash(forged.prev_hash, new_content), forged.pk],
    )
    report = audit_verify()
    assert report.first_broken == records[2].pk  # its prev_hash no longer matches
    assert "prev_hash is not the hash of the record before it" in report.problems[0]


@pytest.mark.django_db(transaction=True)
def test_verify_audit_finds_deleted_records_and_a_forged_insert():
    records = _three_records()
    _as_forger("DELETE FROM audit_auditrecord WHERE id = %s", [records[1].pk])
    report = audit_verify()
    assert report.first_broken == records[2].pk
    assert "records 2 to 2 are missing" in report.problems[0]

    _as_forger("DELETE FROM audit_auditrecord WHERE id = %s", [records[2].pk])
    report = audit_verify()
    assert report.first_broken is None and not report.ok  # only the head tells
    assert "chain head is at seq 3" in report.problems[0]


@pytest.mark.django_db(transaction=True)
def test_verify_audit_finds_a_record_inserted_without_the_chain():
    _three_records()
    _as_forger(
        "INSERT INTO audit_auditrecord (created_at, actor_label, actor_kind, action, "
        "subject_type, subject_id, subject_label, payload, reason, content_hash) "
        "VALUES (now(), '', 'system', 'ledger.entry', '', '', '', '{}', '', %s)",
        ["0" * 64],
    )
    report = audit_verify()
    forged = AuditRecord.objects.get(seq__isnull=True)
    assert report.first_broken == forged.pk and "never chained" in report.problems[0]


@pytest.mark.django_db
def test_verify_inside_an_open_transaction_counts_its_own_records_as_pending():
    audit_record(action="test.pending")
    report = audit_verify()
    assert report.ok
    assert report.records == 1


@pytest.mark.django_db(transaction=True)
def test_a_transaction_of_many_records_is_linked_in_order_and_moves_the_head_once():
    audit_record(action="test.before")
    with transaction.atomic():
        ids = [audit_record(action="test.many", payload={"n": n}).pk for n in range(50)]
        with transaction.atomic():  # a savepoint's records are the transaction's too
            ids.append(audit_record(action="test.nested").pk)
        try:
            with transaction.atomic():
                audit_record(action="test.rolled_back")
                raise RuntimeError
        except RuntimeError:
            pass
    chained = list(AuditRecord.objects.filter(pk__in=ids).order_by("seq"))
    assert [r.pk for r in chained] == ids and [r.seq for r in chained] == list(range(2, 53))
    assert not AuditRecord.objects.filter(action="test.rolled_back").exists()
    assert AuditChainHead.objects.get().seq == 52
    assert audit_verify().ok


@pytest.mark.django_db(transaction=True)
def test_a_row_inserted_without_triggers_is_never_linked_by_a_later_transaction():
    _three_records()
    _as_forger(
        "INSERT INTO audit_auditrecord (created_at, actor_label, actor_kind, action, "
        "subject_type, subject_id, subject_label, payload, reason, content_hash) "
        "VALUES (now(), '', 'system', 'ledger.entry', '', '', '', '{}', '', %s)",
        ["0" * 64],
    )
    audit_record(action="test.later")
    forged = AuditRecord.objects.get(action="ledger.entry", seq__isnull=True)
    report = audit_verify()
    assert (
        report.first_broken == forged.pk and AuditRecord.objects.get(action="test.later").seq == 4
    )


# -- commits never wait for the chain head (migration 0006)


def _holding_the_head():
    """A second connection that holds the chain head's row lock, as a commit linking its
    records does, until it is closed."""
    import psycopg

    settings = connection.settings_dict
    other = psycopg.connect(
        host=settings["HOST"], port=settings["PORT"], user=settings["USER"], dbname=settings["NAME"]
    )
    other.execute("SELECT 1 FROM audit_auditchainhead WHERE id = 1 FOR UPDATE")
    return other


def _let_go(other) -> None:
    """End the holder's transaction and wait for it (closing alone lets the server release the
    lock a moment later, after the next commit may have looked)."""
    other.rollback()
    other.close()


@pytest.mark.django_db(transaction=True)
def test_a_commit_that_finds_the_head_busy_does_not_wait_and_the_next_commit_links_it():
    audit_record(action="test.first")
    other = _holding_the_head()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '2s'")  # waiting would fail the test, not hang
        busy = audit_record(action="test.while_busy", payload={"n": 1})
        busy.refresh_from_db()
        assert busy.seq is None  # committed, not linked: the head was taken
        report = audit_verify()  # its link attempt finds the head busy too
        assert report.ok and report.pending == 1 and report.records == 2
    finally:
        _let_go(other)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = 0")
    later = audit_record(action="test.later")
    chained = list(AuditRecord.objects.order_by("seq"))
    assert [(r.action, r.seq) for r in chained] == [
        ("test.first", 1),
        ("test.while_busy", 2),  # linked by the next commit, before that commit's own
        ("test.later", 3),
    ]
    assert later.pk == chained[2].pk and AuditChainHead.objects.get().seq == 3
    assert audit_verify().ok


def _listed() -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT txid FROM audit_chainpending ORDER BY txid")
        return [txid for (txid,) in cursor.fetchall()]


@pytest.mark.django_db(transaction=True)
def test_a_commit_beside_a_held_head_lists_its_transaction_and_the_next_link_clears_it():
    """Migration 0007: what is left unlinked is found by its transaction, not by a scan of every
    unlinked index entry since the last VACUUM."""
    audit_record(action="test.first")
    assert _listed() == []
    other = _holding_the_head()
    try:
        with transaction.atomic():
            busy = [audit_record(action="test.while_busy", payload={"n": n}).pk for n in range(3)]
            with connection.cursor() as cursor:
                cursor.execute("SELECT txid_current()")
                txid = cursor.fetchone()[0]
    finally:
        _let_go(other)
    assert _listed() == [txid]
    audit_record(action="test.later")
    assert _listed() == []
    chained = list(AuditRecord.objects.order_by("seq"))
    assert [r.pk for r in chained[1:4]] == busy and [r.seq for r in chained] == [1, 2, 3, 4, 5]
    assert audit_verify().ok


@pytest.mark.django_db(transaction=True)
def test_the_guard_refuses_a_content_change_even_with_the_linkers_mark():
    """The linker's UPDATE may set only the chain's fields of an unlinked record; the same mark
    set by hand (as the tables' owner could) does not let content change."""
    audit_record(action="test.first")
    other = _holding_the_head()
    try:
        held = audit_record(action="test.held", payload={"amount": 100})
    finally:
        _let_go(other)
    mark = "SELECT set_config('audit.linking', txid_current()::text, true)"
    for change in (
        "payload = '{\"amount\": 1}'",
        "reason = 'edited'",
        "content_hash = repeat('0', 64)",
    ):
        with (
            pytest.raises(IntegrityError, match="refused"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(mark)
            cursor.execute(
                f"UPDATE audit_auditrecord SET seq = 2, {change} WHERE id = %s", [held.pk]
            )
    with pytest.raises(IntegrityError, match="refused"), connection.cursor() as cursor:
        cursor.execute("UPDATE audit_auditrecord SET seq = 2 WHERE id = %s", [held.pk])  # no mark
    held.refresh_from_db()
    assert held.seq is None and held.payload == {"amount": 100}
    assert audit_verify().ok  # links it
    held.refresh_from_db()
    assert held.seq == 2


@pytest.mark.django_db(transaction=True)
def test_the_beat_links_what_a_busy_head_left_and_never_a_row_written_without_triggers():
    from audit.tasks import link_pending

    audit_record(action="test.first")
    other = _holding_the_head()
    try:
        audit_record(action="test.while_busy")
        assert link_pending() == -1  # the head is still held: nothing linked, no wait
    finally:
        _let_go(other)
    _as_forger(
        "INSERT INTO audit_auditrecord (created_at, actor_label, actor_kind, action, "
        "subject_type, subject_id, subject_label, payload, reason, content_hash) "
        "VALUES (now(), '', 'system', 'ledger.entry', '', '', '', '{}', '', %s)",
        ["0" * 64],
    )
    assert link_pending() == 1
    assert AuditRecord.objects.get(action="test.while_busy").seq == 2
    forged = AuditRecord.objects.get(action="ledger.entry")
    assert forged.seq is None
    report = audit_verify()
    assert report.first_broken == forged.pk and "never chained" in report.problems[0]


@pytest.mark.django_db(transaction=True)
def test_verify_audit_names_a_record_left_unlinked_longer_than_the_bound(settings):
    audit_record(action="test.first")
    other = _holding_the_head()
    try:
        held = audit_record(action="test.held_back")
        settings.AUDIT_LINK_BOUND_SECONDS = 0
        report = audit_verify()
    finally:
        _let_go(other)
    assert not report.ok and report.first_broken == held.pk
    assert "not linked 0 s after it was written" in report.problems[0]
    settings.AUDIT_LINK_BOUND_SECONDS = 120
    assert audit_verify().ok  # linked now, by verify_audit itself


@pytest.mark.django_db(transaction=True)
def test_records_committed_at_once_from_many_connections_form_one_intact_chain():
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connections

    writers, each = 6, 15
    barrier = threading.Barrier(writers)

    def write(writer: int) -> None:
        try:
            barrier.wait()
            for n in range(each):
                with transaction.atomic():
                    audit_record(action="test.together", payload={"writer": writer, "n": n})
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=writers) as pool:
        list(pool.map(write, range(writers)))
    report = audit_verify()
    assert report.ok and report.records == writers * each and report.pending == 0
    seqs = sorted(AuditRecord.objects.values_list("seq", flat=True))
    assert seqs == list(range(1, writers * each + 1))
    assert AuditChainHead.objects.get().seq == writers * each


@pytest.mark.django_db(transaction=True)
def test_verify_audit_in_a_read_only_session_links_nothing_and_still_checks():
    audit_record(action="test.first")
    other = _holding_the_head()
    try:
        audit_record(action="test.while_busy")
    finally:
        _let_go(other)
    with connection.cursor() as cursor:
        cursor.execute("SET default_transaction_read_only = on")  # as on a replica
    try:
        report = audit_verify()
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SET default_transaction_read_only = off")
    assert report.ok and report.pending == 1
    assert AuditRecord.objects.get(action="test.while_busy").seq is None
    assert audit_verify().ok and AuditRecord.objects.get(action="test.while_busy").seq == 2
