"""Recompute the audit log's chain (`manage.py verify_audit`, the daily beat task).

Walking the records in chain order (`seq`), each must follow the one before (no gap in `seq`,
`prev_hash` equal to the previous `hash`, the first one's the genesis hash), its content must
hash to its `content_hash` (nothing edited since it was written) and its `hash` must be the
link of the two. The chain head must name the last record (a deleted newest record is noticed),
and every committed record must be chained. The first record that fails is named; later
problems are listed up to MAX_LISTED. All reads come from one snapshot (REPEATABLE READ), so
records committed while it runs cannot look like a break.

A commit that finds the chain head busy leaves its records unlinked for the next commit
(migration audit 0006), so the check first links every committed record still unlinked
(`audit_chain_link`, its own transaction) and then accepts an unlinked record only if the
chain trigger saw it written (`chain_txid`) and it is younger than AUDIT_LINK_BOUND_SECONDS
(committed between the link and the snapshot, or by a transaction still linking): within that
bound a deleted unlinked record is not noticed, which docs/operations.md states.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import BooleanField
from django.db.models.expressions import RawSQL
from django.utils import timezone

from audit.anchor import anchor_file_append, anchor_sign
from audit.models import GENESIS_HASH, AuditChainHead, AuditRecord
from audit.services import (
    CONTENT_FIELDS,
    audit_chain_link,
    audit_record,
    chain_hash,
    content_hash_of,
)

MAX_LISTED = 20


@dataclass(frozen=True)
class AuditCheck:
    """A completeness rule run after the chain walk: `find()` yields a sentence for every place
    the log misses something it must hold (apps above the audit log register these, so the log
    never imports them)."""

    name: str
    says: str
    find: Callable[[], Iterable[str]]


_registered: list[AuditCheck] = []


def audit_check_register(check: AuditCheck) -> None:
    """Run `check` in `verify_audit`; registering a name again replaces it."""
    _registered[:] = [known for known in _registered if known.name != check.name]
    _registered.append(check)


def audit_checks() -> list[AuditCheck]:
    return list(_registered)


@dataclass
class AuditReport:
    records: int = 0
    head_seq: int = 0
    head_hash: str = GENESIS_HASH
    pending: int = 0  # written by the transaction running the check, chained at its commit
    checks: list[str] = field(default_factory=list)
    first_broken: int | None = None  # the id of the first broken record
    problems: list[str] = field(default_factory=list)
    unlisted: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> dict:
        return {
            "ok": self.ok,
            "records": self.records,
            "head_seq": self.head_seq,
            "head_hash": self.head_hash,
            "first_broken": self.first_broken,
            "problems": self.problems[:MAX_LISTED],
            "more_problems": self.unlisted,
            "checks": self.checks,
            "seconds": round(self.seconds, 3),
        }


def audit_verify() -> AuditReport:
    """Check the whole chain on one snapshot."""
    if connection.in_atomic_block:
        return _verify(inside_transaction=True)
    audit_chain_link()  # the records of commits that found the head busy
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        return _verify(inside_transaction=False)


def _label(row: dict) -> str:
    when = f"{row['created_at']:%Y-%m-%d %H:%M:%S}"
    return f"record #{row['id']} (seq {row['seq']}, {row['action']}, {when})"


def _verify(*, inside_transaction: bool) -> AuditReport:
    clock = time.perf_counter()
    report = AuditReport()

    def broken(row: dict | None, why: str) -> None:
        if row is not None and report.first_broken is None:
            report.first_broken = row["id"]
        if len(report.problems) < MAX_LISTED:
            report.problems.append(f"{_label(row)}: {why}" if row else why)
        else:
            report.unlisted += 1

    head = AuditChainHead.objects.filter(pk=1).values("seq", "hash").first() or {
        "seq": 0,
        "hash": GENESIS_HASH,
    }
    report.head_seq, report.head_hash = head["seq"], head["hash"]
    fields = ("id", "seq", "prev_hash", "hash", "content_hash", *CONTENT_FIELDS)
    # A record is linked at its transaction's commit, or by a later commit or
    # `audit_chain_link` when its commit found the head busy: an unlinked record the chain
    # trigger saw written (`chain_txid`) is pending if it is this transaction's own or younger
    # than the bound. One it never saw (no `chain_txid`) was written with the trigger off.
    _unchained_check(report, broken, fields, inside_transaction=inside_transaction)
    previous_seq, previous_hash = 0, GENESIS_HASH
    rows = (
        AuditRecord.objects.filter(seq__isnull=False)
        .order_by("seq")
        .values_list(*fields)
        .iterator(chunk_size=5000)
    )
    for values in rows:
        row = dict(zip(fields, values, strict=True))
        report.records += 1
        for why in _link_problems(row, previous_seq, previous_hash):
            broken(row, why)
        previous_seq, previous_hash = row["seq"], row["hash"]
    if (head["seq"], head["hash"]) != (previous_seq, previous_hash):
        broken(
            None,
            f"the chain head is at seq {head['seq']} but the last record is seq "
            f"{previous_seq}: the newest records were removed or the head was moved",
        )
    for check in audit_checks():
        report.checks.append(check.name)
        for problem in check.find():
            broken(None, f"[{check.name}] {problem}")
    report.records += report.pending
    report.seconds = time.perf_counter() - clock
    return report


def _unchained_check(
    report: AuditReport, broken: Callable, fields: tuple, *, inside_transaction: bool
) -> None:
    """Count the unlinked records that are pending and name the others (see the module doc)."""
    unchained = AuditRecord.objects.filter(seq__isnull=True)
    bound = settings.AUDIT_LINK_BOUND_SECONDS
    held_back: set[int] = set()  # seen by the trigger, older than the bound
    oldest_pending = timezone.now() - timedelta(seconds=bound)
    states = unchained.annotate(
        own=RawSQL("chain_txid = txid_current()", [], output_field=BooleanField()),
        seen=RawSQL("chain_txid IS NOT NULL", [], output_field=BooleanField()),
    ).values_list("id", "own", "seen", "created_at")
    waiting = []
    for record_id, own, seen, created_at in states.order_by("id").iterator():
        if (own and inside_transaction) or (seen and created_at >= oldest_pending):
            report.pending += 1
            waiting.append(record_id)
        elif seen:
            held_back.add(record_id)
    unchained = unchained.exclude(id__in=waiting)
    for row in unchained.order_by("id").values(*fields)[: MAX_LISTED + 1]:
        if row["id"] in held_back:
            why = (
                f"not linked {bound} s after it was written: records were held back from the "
                "chain, or the linking stopped (is beat's audit.link_pending running?)"
            )
        else:
            why = "never chained: it was written with the chain trigger switched off"
        broken(row, why)


def _link_problems(row: dict, previous_seq: int, previous_hash: str) -> list[str]:
    """What is wrong with one chained record as the link after (previous_seq, previous_hash):
    a gap before it, a prev_hash that is not the previous hash, content changed since it was
    hashed, or a hash that is not the link of the two."""
    problems = []
    if row["seq"] != previous_seq + 1:
        problems.append(
            f"comes after seq {previous_seq}: records {previous_seq + 1} to "
            f"{row['seq'] - 1} are missing"
        )
    if row["prev_hash"] != previous_hash:
        problems.append("its prev_hash is not the hash of the record before it")
    if content_hash_of(row) != row["content_hash"]:
        problems.append("its content does not match its content hash: changed since written")
    elif chain_hash(row["prev_hash"] or "", row["content_hash"]) != row["hash"]:
        problems.append("its hash is not the link of its prev_hash and content hash")
    return problems


# -- the daily run (Celery beat: audit.verify_daily)


@dataclass(frozen=True)
class Verification:
    """A whole-room verification the daily run records beside the chain's, as `verify.<name>`:
    `run()` gives (ok, payload). Apps above the log register theirs (the cashier its ledger,
    cashier/apps.py), so the log never imports them."""

    name: str
    run: Callable[[], tuple[bool, dict]]


_verifications: list[Verification] = []


def verification_register(verification: Verification) -> None:
    """Run `verification` daily before the chain's; registering a name again replaces it."""
    _verifications[:] = [known for known in _verifications if known.name != verification.name]
    _verifications.append(verification)


def verifications_record(*, actor=None) -> dict[str, bool]:
    """Run each registered verification (`verify_ledger`) and then `verify_audit`, each on its
    own snapshot, and record each result in the audit log (`verify.ledger`, `verify.audit`,
    the latter with a signed anchor of the head it verified, also appended to
    AUDIT_ANCHOR_FILE); returns {name: ok}."""
    results = [(verification.name, *verification.run()) for verification in _verifications]
    chain = audit_verify()
    with transaction.atomic():
        for name, _ok, payload in results:
            audit_record(action=f"verify.{name}", actor=actor, payload=payload)
        anchor = anchor_sign(seq=chain.head_seq, head_hash=chain.head_hash)
        audit_record(
            action="verify.audit", actor=actor, payload={**chain.summary(), "anchor": anchor}
        )
    anchor_file_append(anchor)
    return {**{name: ok for name, ok, _ in results}, "audit": chain.ok}
