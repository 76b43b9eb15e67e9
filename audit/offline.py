"""Check an exported audit log without the room: standard library only, no Django.

    python -m audit.offline audit-log.json     # the JSON export of /api/cashier/audit/log/
    python -m audit.offline --compare last.json new.json   # did anything kept change?

It recomputes each record's content hash from the exported fields (the canonical JSON of
docs/operations.md "The audit log") and each link, and checks the records follow each other
(`seq` without gaps, `prev_hash` the previous `hash`; a range that does not start at seq 1
starts from its first record's `prev_hash`). Exit 0 when intact, 1 naming the first broken
record. It is written apart from audit/services.py on purpose: an auditor can read it whole.
"""

from __future__ import annotations

import hashlib
import json
import sys
from datetime import UTC, datetime

FIELDS = (
    "created_at",
    "actor_id",
    "actor_label",
    "actor_kind",
    "action",
    "subject_type",
    "subject_id",
    "subject_label",
    "payload",
    "reason",
)


def canonical_text(content: dict) -> str:
    """The canonical JSON (sorted keys, no spaces) of FIELDS, the time as UTC ISO 8601 with
    microseconds: the one definition, which the room's own writer imports."""
    content = {name: content[name] for name in FIELDS}
    content["created_at"] = content["created_at"].astimezone(UTC).isoformat()
    return json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_hash(content: dict) -> str:
    """sha256 of the canonical JSON of FIELDS, as UTF-8."""
    return hashlib.sha256(canonical_text(content).encode()).hexdigest()


def content_hash(row: dict) -> str:
    """The content hash of an exported row (its time as text; in CSV, its payload as text)."""
    content = {**row, "created_at": datetime.fromisoformat(row["created_at"])}
    if isinstance(content["payload"], str):
        content["payload"] = json.loads(content["payload"])
    return canonical_hash(content)


def check(rows: list[dict]) -> list[str]:
    """The problems found, first broken record first (empty when intact)."""
    problems = []
    previous_seq = previous_hash = None
    for row in rows:
        name = f"record #{row['id']} (seq {row['seq']}, {row['action']})"
        if row["seq"] is None:
            problems.append(f"{name}: not chained")
            continue
        if previous_seq is not None:
            if row["seq"] != previous_seq + 1:
                problems.append(f"{name}: records after seq {previous_seq} are missing")
            if row["prev_hash"] != previous_hash:
                problems.append(f"{name}: prev_hash is not the previous record's hash")
        elif row["seq"] == 1 and row["prev_hash"] != "0" * 64:
            problems.append(f"{name}: the first record's prev_hash is not 64 zeros")
        if content_hash(row) != row["content_hash"]:
            problems.append(f"{name}: its fields do not give its content hash")
        link = hashlib.sha256((row["prev_hash"] + row["content_hash"]).encode()).hexdigest()
        if link != row["hash"]:
            problems.append(f"{name}: its hash is not the link of prev_hash and content hash")
        previous_seq, previous_hash = row["seq"], row["hash"]
    return problems


def compare(last: list[dict], new: list[dict]) -> list[str]:
    """What the new export contradicts in the last one an auditor kept: every record both hold
    must have the same hash (a link covers everything before it, so a rewrite anywhere up to
    there shows), and the new one must reach at least as far (records deleted and the chain
    head moved back show as a shorter chain)."""
    problems = []
    kept = {row["seq"]: row["hash"] for row in last if row.get("seq") is not None}
    now = {row["seq"]: row["hash"] for row in new if row.get("seq") is not None}
    for seq in sorted(kept.keys() & now.keys()):
        if kept[seq] != now[seq]:
            problems.append(f"seq {seq}: its hash changed since the last export: rewritten")
            break
    if kept and now and max(now) < max(kept):
        problems.append(
            f"the new export ends at seq {max(now)}, before the last one's seq {max(kept)}: "
            "records were removed and the head moved back"
        )
    elif kept and now and min(now) > max(kept) + 1:
        problems.append(
            f"the new export starts at seq {min(now)}: nothing in it overlaps the last one "
            f"(export from seq {max(kept)} on to compare)"
        )
    return problems


def _rows(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as export:
        rows = json.load(export)
    return rows["rows"] if isinstance(rows, dict) else rows


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) == 3 and args[0] == "--compare":
        last, new = _rows(args[1]), _rows(args[2])
        problems = check(new) + compare(last, new)
        for problem in problems:
            print(f"BROKEN {problem}")
        print(
            f"{len(new)} records against {len(last)} kept, "
            f"{'agree' if not problems else 'DISAGREE'}"
        )
        return 1 if problems else 0
    if len(args) != 1:
        print(
            "usage: python -m audit.offline audit-log.json\n"
            "       python -m audit.offline --compare last-audit-log.json new-audit-log.json",
            file=sys.stderr,
        )
        return 2
    rows = _rows(args[0])
    problems = check(rows)
    for problem in problems:
        print(f"BROKEN {problem}")
    print(f"{len(rows)} records, {'intact' if not problems else 'NOT intact'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
