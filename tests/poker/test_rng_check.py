"""`manage.py rng_check`, the RngCheck record, its read-only admin and the daily beat task."""

import json
import shutil
import time

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from poker.engine.rng_battery import MIN_RAW_DRAWS, MIN_SHUFFLES, STATISTIC_NAMES
from poker.models import RngCheck
from poker.rng_checks import RngCheckError, dieharder_run, rng_check_run
from poker.tasks import rng_check_daily
from tests.factories import make_player

SMALL = ["--shuffles", str(MIN_SHUFFLES), "--raw-draws", str(MIN_RAW_DRAWS)]


@pytest.mark.django_db
def test_the_command_prints_each_statistic_and_stores_the_check(capsys):
    call_command("rng_check", *SMALL)
    out = capsys.readouterr().out
    check = RngCheck.objects.get()
    assert check.passed and check.form == RngCheck.Form.CUSTOM
    assert check.generator == "secrets.randbelow"
    assert (check.shuffles, check.raw_draws) == (MIN_SHUFFLES, MIN_RAW_DRAWS)
    assert [s["name"] for s in check.statistics] == list(STATISTIC_NAMES)
    for name in STATISTIC_NAMES:
        assert f"pass  {name}" in out
    assert "Battery at 99% confidence" in out and "p >= 0.001667" in out
    assert "The RNG check passed." in out


@pytest.mark.django_db
def test_the_command_prints_json(capsys):
    call_command("rng_check", *SMALL, "--json")
    result = json.loads(capsys.readouterr().out)
    assert result["passed"] is True and result["id"] == RngCheck.objects.get().pk
    assert {s["name"] for s in result["statistics"]} == set(STATISTIC_NAMES)
    assert all(0 <= p <= 1 for s in result["statistics"] for p in s["p_values"])


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--shuffles", "100"], "at least 13260 shuffles"),
        (["--raw-draws", "5"], "at least 27040 raw draws"),
        (["--long", "--shuffles", "20000"], "--long sets its own sizes"),
    ],
)
def test_bad_sizes_are_refused_and_record_nothing(args, message):
    with pytest.raises(CommandError, match=message):
        call_command("rng_check", *args)
    assert not RngCheck.objects.exists()


@pytest.mark.django_db
def test_dieharder_missing_is_a_clear_refusal(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(RngCheckError, match="dieharder is not installed"):
        rng_check_run(shuffles=MIN_SHUFFLES, raw_draws=MIN_RAW_DRAWS, dieharder=True)
    assert not RngCheck.objects.exists()


@pytest.mark.skipif(shutil.which("dieharder") is None, reason="dieharder is not installed")
def test_dieharder_reads_the_stream_and_its_verdicts_are_counted():
    summary = dieharder_run(tests=(0,))
    head, *lines = summary.splitlines()
    assert head.startswith("dieharder -d 0: ") and "FAILED" in head
    assert len(lines) == 1 and lines[0].startswith("diehard_birthdays|")
    assert lines[0].rsplit("|", 1)[-1].strip() in {"PASSED", "WEAK", "FAILED"}


@pytest.mark.django_db
def test_staff_read_checks_in_the_admin_and_cannot_change_them():
    call_command("rng_check", *SMALL, "--json")
    check = RngCheck.objects.get()
    staff = Client()
    staff.force_login(make_player("boss", is_staff=True, is_superuser=True))
    listing = staff.get("/admin/poker/rngcheck/")
    assert listing.status_code == 200 and "custom size" in listing.content.decode()
    page = staff.get(f"/admin/poker/rngcheck/{check.pk}/change/").content.decode()
    for name in STATISTIC_NAMES:
        assert f"<td>{name}</td>" in page
    assert "secrets.randbelow" in page
    assert staff.get("/admin/poker/rngcheck/add/").status_code == 403
    staff.post(f"/admin/poker/rngcheck/{check.pk}/change/", {"passed": ""})
    staff.post(f"/admin/poker/rngcheck/{check.pk}/delete/", {"post": "yes"})
    check.refresh_from_db()
    assert check.passed


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_runs_the_daily_check_and_records_it(celery_worker_process):
    rng_check_daily.delay()
    deadline = time.monotonic() + 120
    while not RngCheck.objects.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    check = RngCheck.objects.get()
    assert check.form == RngCheck.Form.QUICK and check.passed
    assert (check.shuffles, check.raw_draws) == (20_000, 200_000)
