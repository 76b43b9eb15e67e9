"""Anchors: the audit chain's head held outside the database, so a rewrite of the chain with
every later link recomputed (or the newest records deleted and the head moved back) is found.

An anchor is the head's `seq` and `hash` at a moment, signed with HMAC-SHA256 under
`AUDIT_ANCHOR_KEY`, an environment setting the database never holds. The daily verification
puts one in its `verify.audit` record, the auditors' daily report and (with `AUDIT_ANCHOR_FILE`)
a file; every export's manifest carries one. Auditors keep them; `verify_audit --anchor FILE`
checks the live chain against any of them: the record at the anchor's seq must still exist and
still have the anchored hash. A chain link covers everything before it, so one anchor vouches
for every record up to its seq.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings

from audit.models import GENESIS_HASH, AuditChainHead, AuditRecord

VERSION = "audit-anchor-v1"


def _message(seq: int, head_hash: str, at: str) -> bytes:
    return f"{VERSION}:{seq}:{head_hash}:{at}".encode()


def _key() -> bytes:
    return (getattr(settings, "AUDIT_ANCHOR_KEY", "") or "").encode()


def anchor_sign(*, seq: int, head_hash: str, at: datetime | None = None) -> dict:
    """A signed anchor of (seq, hash); unsigned (`signature` null) when no key is set."""
    at_text = (at or datetime.now(UTC)).astimezone(UTC).isoformat()
    key = _key()
    signature = (
        hmac.new(key, _message(seq, head_hash, at_text), hashlib.sha256).hexdigest()
        if key
        else None
    )
    return {"seq": seq, "hash": head_hash, "at": at_text, "signature": signature}


def anchor_of_head() -> dict:
    """An anchor of the chain's current head (committed records only)."""
    head = AuditChainHead.objects.filter(pk=1).values("seq", "hash").first()
    head = head or {"seq": 0, "hash": GENESIS_HASH}
    return anchor_sign(seq=head["seq"], head_hash=head["hash"])


def anchor_signature_ok(anchor: dict) -> bool:
    key, signature = _key(), anchor.get("signature")
    if not key or not isinstance(signature, str):
        return False
    expected = hmac.new(
        key, _message(anchor["seq"], anchor["hash"], str(anchor.get("at", ""))), hashlib.sha256
    ).hexdigest()
    return hmac.compare_digest(expected, signature)


def anchor_file_append(anchor: dict) -> None:
    """Append the anchor as one JSON line to AUDIT_ANCHOR_FILE, when set (a file outside the
    database: another disk, a write-once mount, a log shipper's input)."""
    path = getattr(settings, "AUDIT_ANCHOR_FILE", "")
    if path:
        with Path(path).open("a", encoding="utf-8") as out:
            out.write(json.dumps(anchor, sort_keys=True) + "\n")


# -- checking the live chain against what auditors kept


def _is_anchor(value) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("seq"), int)
        and isinstance(value.get("hash"), str)
        and "signature" in value
    )


def anchors_in(document) -> tuple[list[dict], list[dict]]:
    """(anchors, exported chain rows) found in a file an auditor kept: one anchor, a JSON-lines
    anchor file, a daily report, an export manifest, a `verify.audit` record, or an audit log
    export (whose rows are compared one by one)."""
    anchors: list[dict] = []
    rows: list[dict] = []

    def walk(value, depth=0):
        if depth > 4:
            return
        if _is_anchor(value):
            anchors.append(value)
        elif isinstance(value, dict):
            if {"seq", "hash", "content_hash", "prev_hash"} <= value.keys():
                if value["seq"] is not None:
                    rows.append(value)
                if isinstance(value.get("payload"), dict):
                    walk(value["payload"], depth + 1)
                return
            for item in value.values():
                walk(item, depth + 1)
        elif isinstance(value, list):
            for item in value:
                walk(item, depth + 1)

    walk(document)
    return anchors, rows


def _csv_document(text: str) -> list[dict]:
    """A CSV export as what its JSON twin would hold: a daily report's `audit_anchor` rows as
    anchors, an audit log export's rows as records."""
    document: list[dict] = []
    for row in csv.DictReader(io.StringIO(text)):
        if row.get("section") == "audit_anchor":
            document.append(
                {
                    "seq": int(row["count"]),
                    "hash": row["anchor_hash"],
                    "at": row["anchor_at"],
                    "signature": row["anchor_signature"] or None,
                }
            )
        elif row.get("content_hash") and row.get("seq"):
            document.append(
                {
                    "seq": int(row["seq"]),
                    "hash": row["hash"],
                    "content_hash": row["content_hash"],
                    "prev_hash": row["prev_hash"],
                }
            )
    return document


def anchor_load(path: str | Path) -> tuple[list[dict], list[dict]]:
    """Anchors and exported records in a kept file: JSON, JSON lines, or a CSV export."""
    text = Path(path).read_text(encoding="utf-8")
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        lines = [line for line in text.splitlines() if line.strip()]
        if lines and lines[0].lstrip().startswith("{"):
            document = [json.loads(line) for line in lines]
        else:
            document = _csv_document(text)
    return anchors_in(document)


def anchors_compare(anchors: Iterable[dict], rows: Iterable[dict] = ()) -> list[str]:
    """What in the live chain contradicts the anchors and exported rows (empty when nothing
    does). Reads the records at the anchored seqs only."""
    problems: list[str] = []
    wanted: dict[int, tuple[str, str]] = {}
    for anchor in anchors:
        name = f"the anchor of seq {anchor['seq']} ({anchor.get('at', '?')})"
        if anchor.get("signature") is None:
            if _key():  # the room signs: an unsigned anchor was not written by it
                problems.append(f"{name} is unsigned, and the room signs its anchors")
                continue
        elif not anchor_signature_ok(anchor):
            problems.append(f"{name}: its signature does not verify (forged, or another key)")
            continue
        if anchor["seq"] > 0:
            wanted.setdefault(anchor["seq"], (anchor["hash"], name))
    for row in rows:
        wanted.setdefault(row["seq"], (row["hash"], f"the exported record of seq {row['seq']}"))
    head = AuditChainHead.objects.filter(pk=1).values_list("seq", flat=True).first() or 0
    live: dict[int, str] = {}
    seqs = sorted(wanted)
    for start in range(0, len(seqs), 5000):
        live.update(
            AuditRecord.objects.filter(seq__in=seqs[start : start + 5000]).values_list(
                "seq", "hash"
            )
        )
    first_rewritten = None
    for seq in seqs:
        expected, name = wanted[seq]
        if seq > head or seq not in live:
            problems.append(
                f"{name}: the live chain has no record at seq {seq} (its head is at seq {head}): "
                "records were deleted and the head moved back"
            )
        elif live[seq] != expected:
            first_rewritten = seq if first_rewritten is None else first_rewritten
            problems.append(
                f"{name}: the live record at seq {seq} has another hash: the chain was "
                f"rewritten at or before seq {seq}"
            )
    if first_rewritten is not None and rows:
        problems.append(
            f"the first exported record the live chain contradicts is seq {first_rewritten}"
        )
    return problems
