"""The audit log: one append-only, hash-chained record of what matters to money, fairness and
security (ledger entries by reference, staff actions, security events, table incidents, RNG
checks, responsible-gaming events, the daily verifications).

Each record's content (time, actor, action, subject, payload, reason) is hashed into
`content_hash` when it is written; the chain then links it to the record before it:
`hash = sha256(prev_hash + content_hash)` and `seq` is its place in the chain. The chain is
filled in by a deferred trigger at commit (migration 0002), so the chain's lock is the last
one a transaction takes (no deadlock with the row locks it took before) and is held only while
it commits; the same migration refuses UPDATE and DELETE. A commit that finds the head held by
another commit does not wait for it: its records are linked by the next commit, the beat's
`audit.link_pending` or `verify_audit` (migration 0006); a commit finds what to link by
transaction, its own and those `audit_chainpending` lists (migration 0007). `AuditChainHead`
is the one row holding the chain's last `seq` and `hash`, so deleting the newest record is
noticed too.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

GENESIS_HASH = "0" * 64


class AuditRecord(models.Model):
    class ActorKind(models.TextChoices):
        SYSTEM = "system", "the room (no person)"
        PLAYER = "player", "player"
        STAFF = "staff", "staff"
        ANONYMOUS = "anonymous", "not signed in"
        # A change the database recorded itself (audit 0008) with no actor named for it.
        DATABASE = "database", "unknown (database)"

    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="audit_records",
    )
    # The actor's username when the record was written (kept if the user is renamed).
    actor_label = models.CharField(max_length=150, blank=True, default="")
    actor_kind = models.CharField(max_length=12, choices=ActorKind.choices)
    action = models.CharField(max_length=64, db_index=True, help_text='dotted, e.g. "ledger.entry"')
    subject_type = models.CharField(max_length=64, blank=True, default="")
    subject_id = models.CharField(max_length=64, blank=True, default="")
    subject_label = models.CharField(max_length=200, blank=True, default="")
    payload = models.JSONField(default=dict, blank=True)
    reason = models.TextField(blank=True, default="")
    content_hash = models.CharField(max_length=64)
    # The chain: NULL (not linked yet, never "") until the writing transaction commits.
    seq = models.BigIntegerField(null=True, blank=True, unique=True)
    prev_hash = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    hash = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001

    class Meta:
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["subject_type", "subject_id"], name="audit_subject"),
        ]

    def __str__(self) -> str:
        subject = f" {self.subject_type}#{self.subject_id}" if self.subject_type else ""
        return f"#{self.seq or '-'} {self.action}{subject}"


class AuditChainHead(models.Model):
    """The chain's newest link: one row (id 1), locked by whoever extends the chain."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    seq = models.BigIntegerField(default=0)
    hash = models.CharField(max_length=64, default=GENESIS_HASH)

    def __str__(self) -> str:
        return f"audit chain at {self.seq}"


class VerificationRun(AuditRecord):
    """The audit log's `verify.*` records (the daily verify_ledger and verify_audit), for their
    own admin page."""

    class Meta:
        proxy = True
        verbose_name = "verification run"
