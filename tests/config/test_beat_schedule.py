"""Beat sends what docs/operations.md says it sends, as often as it says: every entry of
CELERY_BEAT_SCHEDULE names a task a worker registers, at the time the operators' table gives."""

import os
import re
from pathlib import Path

from celery.schedules import crontab
from django.conf import settings

from config.celery import app as celery_app

DOC = Path(settings.BASE_DIR) / "docs" / "operations.md"
HEADER = "| task | sent |"
ROW = re.compile(r"\| `(?P<task>[\w.]+)` \| (?P<sent>[^|]+?) \|")
NUMBER = r"(\d+(?:\.\d+)?)"


def documented_schedule() -> dict[str, float | crontab]:
    """{task name: seconds between two sends, or the crontab of a daily time} from the beat
    table of docs/operations.md."""
    lines = [line.strip() for line in DOC.read_text(encoding="utf-8").splitlines()]
    start = lines.index(HEADER) + 2  # after the header and its --- row
    schedule = {}
    for line in lines[start:]:
        row = ROW.fullmatch(line)
        if row is None:
            break
        schedule[row["task"]] = seconds_of(row["sent"])
    return schedule


def seconds_of(sent: str) -> float | crontab:
    """ "once a day", "every 30 seconds", "every `SETTING` (default 2) seconds" (the variable
    from the environment when set, as config/settings.py reads it), or "daily at `SETTING`
    (default 4):15 UTC" (a crontab: the hour from the setting)."""
    if daily := re.fullmatch(r"daily at `(\w+)` \(default (\d+)\):(\d\d) UTC", sent):
        return crontab(hour=int(os.environ.get(daily[1], daily[2])), minute=int(daily[3]))
    if sent == "once a day":
        return 24 * 60 * 60.0
    if fixed := re.fullmatch(rf"every {NUMBER} seconds", sent):
        return float(fixed[1])
    if variable := re.fullmatch(rf"every `(\w+)` \(default {NUMBER}\) seconds", sent):
        return float(os.environ.get(variable[1], variable[2]))
    raise AssertionError(f"docs/operations.md's beat table: cannot read {sent!r}")


def test_beat_sends_registered_tasks_at_the_times_docs_operations_gives():
    documented = documented_schedule()
    scheduled = {
        entry["task"]: entry["schedule"] for entry in settings.CELERY_BEAT_SCHEDULE.values()
    }
    assert scheduled == documented
    celery_app.loader.import_default_modules()  # what a worker imports before it consumes
    unregistered = set(scheduled) - set(celery_app.tasks)
    assert not unregistered, f"beat would send tasks no worker knows: {unregistered}"


def test_the_times_are_read_as_written():
    assert seconds_of("once a day") == 86_400
    assert seconds_of("every 30 seconds") == 30
    assert seconds_of("every `NOT_A_ROOM_SETTING` (default 2.5) seconds") == 2.5
    assert seconds_of("daily at `NOT_A_ROOM_SETTING` (default 4):15 UTC") == crontab(
        hour=4, minute=15
    )
