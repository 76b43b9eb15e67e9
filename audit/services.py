"""Writing the audit log: one service, called inside the transaction of the change it records.

    audit_record(*, action: str, actor=None, subject=None, payload=None, reason: str = "",
                 actor_kind: str | None = None, now: datetime | None = None) -> AuditRecord

- `action`: a dotted code, e.g. "ledger.entry", "staff.hand_cancel", "security.login_failed".
- `actor`: the user who did it, or None for the room itself (a timer, a sweep, beat).
  `actor_kind` defaults to "system" (no actor), "staff" (is_staff or superuser) or "player";
  pass "anonymous" for someone not signed in (a failed login).
- `subject`: what it was done to: a model instance (type "app_label.model", its pk, str()),
  a `Subject(type, id, label)`, or None.
- `payload`: a JSON object (before/after, amounts in cents, ids); `reason`: the staff's words.

It joins the caller's transaction without a savepoint (or makes its own when there is none), so
a failed action leaves no record and a record never outlives a rolled-back action. Bad input
raises `AuditError` and writes nothing.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass
from datetime import datetime

from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, models, transaction
from django.utils import timezone

from audit.models import AuditRecord
from audit.offline import FIELDS, canonical_hash, canonical_text

ACTION = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$")


class AuditError(ValueError):
    """An audit record that cannot be written as asked (bad action, payload or subject)."""


@dataclass(frozen=True)
class Subject:
    type: str
    id: str | int | None = ""
    label: str = ""


def subject_of(obj) -> Subject:
    """The subject for a model instance: "app_label.model", its pk, its str()."""
    meta = obj._meta
    return Subject(f"{meta.app_label}.{meta.model_name}", obj.pk, str(obj))


# -- hashing (verify_audit recomputes exactly this)


def _plain(value):
    """JSON values as the database gives them back: integral floats become ints (jsonb prints
    1e20 as 100000000000000000000), NaN and infinities are refused."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise AuditError("bad_payload", f"not a finite number: {value!r}")
        return int(value) if value.is_integer() else value
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def payload_normalize(payload) -> dict:
    if payload is None:
        return {}
    if not isinstance(payload, dict):
        raise AuditError("bad_payload", "An audit payload is a JSON object.")
    try:
        return _plain(json.loads(json.dumps(payload, cls=DjangoJSONEncoder)))
    except (TypeError, ValueError) as exc:
        raise AuditError("bad_payload", f"An audit payload must be JSON: {exc}") from exc


# The fields a record's content hash covers (everything but the chain) and its canonical form,
# defined once in the standard-library checker that auditors run offline.
CONTENT_FIELDS = FIELDS
content_hash_of = canonical_hash


def content_hash(record: AuditRecord) -> str:
    return content_hash_of({name: getattr(record, name) for name in CONTENT_FIELDS})


def chain_hash(prev_hash: str, content: str) -> str:
    """A link: sha256 of the previous hash and this content hash, as hex text (the PostgreSQL
    trigger computes the same with sha256(convert_to(prev || content, 'UTF8')))."""
    return hashlib.sha256((prev_hash + content).encode()).hexdigest()


# -- writing


def _actor_kind(actor, kind: str | None) -> str:
    if kind is not None:
        if kind not in AuditRecord.ActorKind.values:
            raise AuditError("bad_actor_kind", f"Unknown actor kind {kind!r}.")
        return kind
    if actor is None:
        return AuditRecord.ActorKind.SYSTEM
    if actor.is_staff or actor.is_superuser:
        return AuditRecord.ActorKind.STAFF
    return AuditRecord.ActorKind.PLAYER


def _subject(subject) -> Subject:
    if subject is None:
        return Subject("", "", "")
    if isinstance(subject, models.Model):
        subject = subject_of(subject)
    if not isinstance(subject, Subject):
        raise AuditError("bad_subject", "A subject is a model instance or a Subject.")
    return Subject(
        str(subject.type)[:64],
        "" if subject.id is None else str(subject.id)[:64],
        str(subject.label)[:200],
    )


def _record(*, action, actor, subject, payload, reason, actor_kind, now) -> AuditRecord:
    """The record as asked, checked, without its content hash (nothing written)."""
    if not isinstance(action, str) or len(action) > 64 or not ACTION.match(action):
        raise AuditError("bad_action", f"An audit action is a dotted code, not {action!r}.")
    if actor is not None and getattr(actor, "pk", None) is None:
        if getattr(actor, "is_authenticated", True):
            raise AuditError("bad_actor", "An audit actor is a saved user or None.")
        actor = None  # Django's AnonymousUser: someone not signed in
        actor_kind = actor_kind or AuditRecord.ActorKind.ANONYMOUS
    subject = _subject(subject)
    record = AuditRecord(
        created_at=now or timezone.now(),
        actor=actor,
        actor_label=actor.get_username() if actor is not None else "",
        actor_kind=_actor_kind(actor, actor_kind),
        action=action,
        subject_type=subject.type,
        subject_id=subject.id,
        subject_label=subject.label,
        payload=payload_normalize(payload),
        reason=str(reason or ""),
    )
    return record


def audit_record(
    *,
    action: str,
    actor=None,
    subject=None,
    payload: dict | None = None,
    reason: str = "",
    actor_kind: str | None = None,
    now: datetime | None = None,
) -> AuditRecord:
    """Append one record to the audit log in the caller's transaction (see the module doc)."""
    record = _record(
        action=action,
        actor=actor,
        subject=subject,
        payload=payload,
        reason=reason,
        actor_kind=actor_kind,
        now=now,
    )
    record.content_hash = content_hash(record)
    with transaction.atomic(savepoint=False):
        record.save(force_insert=True)
    return record


def audit_chain_link() -> int:
    """Link every committed record still unlinked. A commit that finds the chain head held
    by another commit does not wait for it (migration 0006): its records stay unlinked until
    the next commit that takes the head, or this call (the beat's `audit.link_pending`, and
    `verify_audit` before it reads). Returns how many it linked, -1 when another commit held
    the head (that one links them). Its own transaction."""
    with transaction.atomic(), connection.cursor() as cursor:
        # A standby or a read-only session (an auditor's check on a replica) links nothing:
        # the primary's next commit or beat does, and verify_audit counts the tail as pending.
        cursor.execute(
            "SELECT CASE WHEN pg_is_in_recovery() OR current_setting('transaction_read_only') "
            "= 'on' THEN 0 ELSE audit_chain_link() END"
        )
        return int(cursor.fetchone()[0])


# -- a record of a row that the same statement inserts (cashier.posting)

# Stands for the subject's id in the canonical text until the statement knows it (a private-use
# character, which no id and none of the room's payloads hold).
_SUBJECT_ID_MARK = "\ue000subject id\ue000"
# The columns of such a record's INSERT, in `RecordRow.values` order; then `subject_id` and
# `content_hash`, which the statement computes.
RECORD_ROW_COLUMNS = (
    "created_at",
    "actor_id",
    "actor_label",
    "actor_kind",
    "action",
    "subject_type",
    "subject_label",
    "payload",
    "reason",
)


@dataclass(frozen=True)
class RecordRow:
    """An audit record whose subject is a row inserted by the same SQL statement: every column
    but the subject's id, and the canonical text before and after that id, so the statement
    computes the content hash `sha256(before || id || after)` that `audit_record` would have
    (and `verify_audit` recomputes). Saves the record's own round trip after the insert."""

    values: tuple
    text_before: str
    text_after: str


def audit_record_row(
    *,
    action: str,
    subject_type: str,
    subject_label: str = "",
    actor=None,
    payload: dict | None = None,
    reason: str = "",
    now: datetime | None = None,
) -> RecordRow:
    """The record `audit_record` would write for a subject whose id is not known yet (checked
    the same way; nothing written). The chain trigger links it at commit."""
    record = _record(
        action=action,
        actor=actor,
        subject=Subject(subject_type, _SUBJECT_ID_MARK, subject_label),
        payload=payload,
        reason=reason,
        actor_kind=None,
        now=now,
    )
    text = canonical_text({name: getattr(record, name) for name in CONTENT_FIELDS})
    before, mark, after = text.partition(_SUBJECT_ID_MARK)
    if not mark or _SUBJECT_ID_MARK in after:
        raise AuditError("bad_payload", "An audit payload holds the subject id's mark.")
    values = tuple(getattr(record, name) for name in RECORD_ROW_COLUMNS[:-2])
    payload_text = json.dumps(record.payload, cls=DjangoJSONEncoder)
    return RecordRow((*values, payload_text, record.reason), before, after)
