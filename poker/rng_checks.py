"""Running the RNG integrity battery on the room's own shuffle and recording the result.

The battery itself is pure (`poker.engine.rng_battery`); here it is fed what the tables use,
`shuffle_deck(secrets.randbelow)` and `secrets.randbelow`, and each run becomes an `RngCheck`
row that staff read in the admin. `dieharder` (Debian package) may also be given the bytes
`secrets` draws from; its verdicts are recorded as text beside ours (docs/fairness.md).
"""

from __future__ import annotations

import logging
import secrets
import shutil
import subprocess
import threading
import time
from datetime import UTC, datetime

from django.db import transaction

from poker.engine.dealer import shuffle_deck
from poker.engine.rng_battery import battery_run
from poker.models import RngCheck

logger = logging.getLogger(__name__)

QUICK_SHUFFLES = 20_000
QUICK_RAW_DRAWS = 200_000
LONG_SHUFFLES = 1_000_000
LONG_RAW_DRAWS = 10_000_000
GENERATOR = "secrets.randbelow"

# dieharder tests that finish in seconds on a stream from stdin: birthdays, 32x32 binary rank,
# and the NIST STS monobit, runs and serial tests.
DIEHARDER_TESTS = (0, 2, 100, 101, 102)
DIEHARDER_TIMEOUT_SECONDS = 600


class RngCheckError(Exception):
    """The check could not run as asked (bad sizes, dieharder missing); nothing was recorded."""


def rng_check_run(
    *, shuffles: int, raw_draws: int, form: str = RngCheck.Form.CUSTOM, dieharder: bool = False
) -> RngCheck:
    """Run the battery on `secrets` and store the result (and dieharder's, when asked)."""
    if form not in RngCheck.Form.values:
        raise RngCheckError(f"unknown form {form!r}; use one of {', '.join(RngCheck.Form.values)}")
    if dieharder and shutil.which("dieharder") is None:
        raise RngCheckError("dieharder is not installed (Debian: apt-get install dieharder)")
    started_at = datetime.now(UTC)
    clock = time.monotonic()
    try:
        report = battery_run(
            shuffle=lambda: shuffle_deck(secrets.randbelow),
            randbelow=secrets.randbelow,
            shuffles=shuffles,
            raw_draws=raw_draws,
        )
    except ValueError as error:
        raise RngCheckError(str(error)) from error
    summary = dieharder_run() if dieharder else ""
    with transaction.atomic():  # the row and its audit record (audit/signals.py) together
        check = RngCheck.objects.create(
            form=form,
            generator=GENERATOR,
            shuffles=shuffles,
            raw_draws=raw_draws,
            passed=report.passed,
            alpha=report.alpha,
            statistics=report.to_dict()["statistics"],
            dieharder=summary,
            started_at=started_at,
            seconds=round(time.monotonic() - clock, 3),
        )
    if not check.passed:
        failed = [s["name"] for s in check.statistics if not s["passed"]]
        logger.error("RNG check %s FAILED: %s", check.pk, ", ".join(failed))
    return check


def dieharder_run(tests: tuple[int, ...] = DIEHARDER_TESTS) -> str:
    """Each dieharder test on a live stream of `secrets.token_bytes` (the operating system's
    CSPRNG that `secrets.randbelow` draws its bits from): a count of PASSED, WEAK and FAILED,
    then dieharder's result lines. Recorded beside the battery, not part of its verdict: at
    dieharder's own thresholds some WEAK results are expected from a perfect generator."""
    lines = []
    for test in tests:
        process = subprocess.Popen(
            ["dieharder", "-g", "200", "-d", str(test)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        # Not communicate(): it would close stdin, and dieharder reads until it has enough.
        feeder = threading.Thread(target=_feed, args=(process,), daemon=True)
        timer = threading.Timer(DIEHARDER_TIMEOUT_SECONDS, process.kill)
        feeder.start()
        timer.start()
        output = process.stdout.read()
        process.wait()
        timer.cancel()
        feeder.join(timeout=5)
        if timer.finished.is_set() and process.returncode < 0:
            lines.append(f"dieharder -d {test}: no result within {DIEHARDER_TIMEOUT_SECONDS} s")
            continue
        results = [
            line.strip()
            for line in output.decode(errors="replace").splitlines()
            if line.count("|") >= 5 and not line.lstrip().startswith(("#", "test_name"))
        ]
        lines.extend(
            results or [f"dieharder -d {test}: no result line (exit {process.returncode})"]
        )
    verdicts = [line.rsplit("|", 1)[-1].strip() for line in lines if "|" in line]
    counts = ", ".join(f"{verdicts.count(v)} {v}" for v in ("PASSED", "WEAK", "FAILED"))
    return "\n".join([f"dieharder {' '.join(f'-d {t}' for t in tests)}: {counts}", *lines])


def _feed(process: subprocess.Popen) -> None:
    try:
        while process.poll() is None:
            process.stdin.write(secrets.token_bytes(1 << 16))
    except (BrokenPipeError, OSError, ValueError):
        pass
