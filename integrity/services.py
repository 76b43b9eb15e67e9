"""The integrity checks' writes and the staff's work on them: runs, cases, notes, outcomes.

Each is one transaction with its audit record in it. Staff need the integrity permissions
(`integrity.run_checks`, `integrity.work_case`: the "integrity officers" group,
integrity/migrations/0002_integrity_officers.py); the nightly run is the room's
own (no actor). A "suspended" outcome suspends the chosen accounts through the account tool
(`lobby.suspension.account_suspend`), so a suspended player can neither play nor withdraw: the
wallet and table money stay where they are until staff reinstate or settle the account.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from audit.services import audit_record
from config.errors import Refused
from integrity.aml import aml_subjects
from integrity.models import Case, CaseNote, QueueEntry, Run, Signal
from integrity.selectors import subjects_found
from lobby.suspension import account_suspend

NOTE_MAX_CHARS = 4000


class IntegrityRefused(Refused):
    """A refused integrity request: `code` for programs, `message` for people. Nothing
    changed."""


def _staff(staff, permission: str) -> None:
    User = get_user_model()
    if not isinstance(staff, User) or staff.pk is None or not staff.is_staff:
        raise IntegrityRefused("not_staff", _("Only staff may work integrity cases."))
    if not staff.has_perm(permission):
        raise IntegrityRefused(
            "not_your_role", _("Your role does not include the integrity checks.")
        )


@transaction.atomic
def integrity_run(
    *,
    player=None,
    by=None,
    since: datetime | None = None,
    until: datetime | None = None,
    now: datetime | None = None,
) -> Run:
    """Run the checks over the finished hands and the ledger entries of the window
    (`INTEGRITY_WINDOW_DAYS` up to now, unless given) and store each subject found, ranked per
    queue (collusion, bots, AML). With `player`, only
    that player's pairs and figures (asked by staff `by`, who need `integrity.run_checks`)."""
    if by is not None:
        _staff(by, "integrity.run_checks")
    now = now or timezone.now()
    until = until or now
    since = since or until - timedelta(days=getattr(settings, "INTEGRITY_WINDOW_DAYS", 7))
    if since >= until:
        raise IntegrityRefused("bad_period", _("The period must end after it starts."))
    player_id = player.pk if player is not None else None
    hands, subjects = subjects_found(since=since, until=until, player_id=player_id)
    subjects += aml_subjects(since=since, until=until, player_id=player_id, found=subjects)
    run = Run.objects.create(
        started_at=now, since=since, until=until, player=player, by=by, hands=hands
    )
    ranked = sorted(subjects, key=lambda s: (s.queue, -s.score, s.player_id, s.partner_id or 0))
    rank: dict[str, int] = {}
    signals = []
    for subject in ranked:
        rank[subject.queue] = rank.get(subject.queue, 0) + 1
        entry = QueueEntry.objects.create(
            run=run,
            queue=subject.queue,
            player_id=subject.player_id,
            partner_id=subject.partner_id,
            score=subject.score,
            rank=rank[subject.queue],
        )
        signals += [
            Signal(
                entry=entry,
                kind=found.kind,
                figure=found.figure,
                score=found.score,
                detail=found.detail,
                hand_ids=found.hand_ids,
                entry_ids=found.entry_ids,
            )
            for found in subject.signals
        ]
    Signal.objects.bulk_create(signals)
    run.entries = len(ranked)
    run.save(update_fields=["entries"])
    audit_record(
        action="integrity.run",
        actor=by,
        subject=player if player is not None else run,
        payload={
            "run": run.pk,
            "since": since,
            "until": until,
            "hands": hands,
            "entries": run.entries,
        },
        now=now,
    )
    return run


@transaction.atomic
def case_open(*, entry: QueueEntry, staff, now: datetime | None = None) -> Case:
    """Open a case on a queue entry's subject with the hands behind its signals (one open
    case per subject: an entry whose subject has one is refused)."""
    _staff(staff, "integrity.work_case")
    now = now or timezone.now()
    hands = sorted({h for signal in entry.signals.all() for h in signal.hand_ids})
    try:
        with transaction.atomic():
            case = Case.objects.create(
                queue=entry.queue,
                player_id=entry.player_id,
                partner_id=entry.partner_id,
                entry=entry,
                hand_ids=hands,
                opened_by=staff,
                opened_at=now,
            )
    except IntegrityError:
        raise IntegrityRefused(
            "case_open", _("A case on these players is already open: add to it.")
        ) from None
    audit_record(
        action="integrity.case_open",
        actor=staff,
        subject=case,
        payload={
            "case": case.pk,
            "entry": entry.pk,
            "queue": entry.queue,
            "score": entry.score,
            "player": entry.player_id,
            "partner": entry.partner_id,
            "hands": len(hands),
        },
        now=now,
    )
    return case


def _open(case: Case) -> Case:
    case = Case.objects.select_for_update().get(pk=case.pk)
    if case.closed_at is not None:
        raise IntegrityRefused("case_closed", _("This case is closed."))
    return case


@transaction.atomic
def case_note_add(*, case: Case, staff, text: str, now: datetime | None = None) -> CaseNote:
    """Add a staff member's note to an open case; notes are never edited."""
    _staff(staff, "integrity.work_case")
    if not isinstance(text, str) or not text.strip():
        raise IntegrityRefused("note_empty", _("A note needs some text."))
    if len(text) > NOTE_MAX_CHARS:
        raise IntegrityRefused("note_too_long", _("A note is at most 4,000 characters."))
    case = _open(case)
    note = CaseNote.objects.create(
        case=case, author=staff, text=text.strip(), created_at=now or timezone.now()
    )
    audit_record(
        action="integrity.case_note",
        actor=staff,
        subject=case,
        payload={"case": case.pk, "note": note.pk},
        reason=note.text,
        now=now,
    )
    return note


@transaction.atomic
def case_close(
    *,
    case: Case,
    staff,
    outcome: str,
    reason: str,
    suspend: list[int] | None = None,
    now: datetime | None = None,
) -> Case:
    """Close a case: cleared, warned, or suspended with funds held (`suspend`: the ids of the
    case's players to suspend, at least one; each through the account tool, in this
    transaction, so a refused suspension closes nothing)."""
    _staff(staff, "integrity.work_case")
    now = now or timezone.now()
    if outcome not in Case.Outcome.values:
        raise IntegrityRefused("bad_outcome", _("Choose an outcome: cleared, warned or suspended."))
    if not isinstance(reason, str) or not reason.strip():
        raise IntegrityRefused("reason_required", _("Say why: a reason is required."))
    case = _open(case)
    members = [case.player_id, *([case.partner_id] if case.partner_id else [])]
    suspend = sorted(set(suspend or []))
    if outcome == Case.Outcome.SUSPENDED:
        if not suspend or any(pid not in members for pid in suspend):
            raise IntegrityRefused(
                "suspend_whom", _("Choose which of the case's players to suspend.")
            )
    elif suspend:
        raise IntegrityRefused("suspend_whom", _("Only a suspension suspends anyone."))
    User = get_user_model()
    for pid in suspend:
        player = User.objects.get(pk=pid)
        if player.is_active:  # already suspended: funds already held
            account_suspend(
                player=player,
                staff=staff,
                reason=f"integrity case #{case.pk}: {reason.strip()}",
                now=now,
            )
    case.outcome, case.suspended = outcome, suspend
    case.closed_by, case.closed_at = staff, now
    case.save(update_fields=["outcome", "suspended", "closed_by", "closed_at"])
    audit_record(
        action="integrity.case_close",
        actor=staff,
        subject=case,
        payload={
            "case": case.pk,
            "outcome": outcome,
            "suspended": suspend,
            "player": case.player_id,
            "partner": case.partner_id,
        },
        reason=reason.strip(),
        now=now,
    )
    return case
