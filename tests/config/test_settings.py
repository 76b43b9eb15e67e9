"""Production settings refuse to start insecure and pass Django's deployment checks.

The settings are read from the environment once, at start: each case needs a Python of its
own environment. One child process (not one per case) reads config/settings.py afresh under
each case's environment, then starts Django with production settings and runs the deployment
checks, with and without the audit anchor key."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
REAL_KEY = "k3y-" + "0123456789abcdefghijklmnopqrstuvwxyz" * 2
POSTGRES = "postgres://postgres@127.0.0.1:5432/room"

CASES = {
    "no_key": {"DEBUG": "false"},
    "short_key": {"DEBUG": "false", "SECRET_KEY": "short"},
    "debug_without_key": {"DEBUG": "true"},
    "pool_min_above_max": {
        "DEBUG": "true",
        "DATABASE_URL": POSTGRES,
        "DB_POOL_MIN_SIZE": "5",
        "DB_POOL_MAX_SIZE": "2",
    },
    # No DATABASE_URL (the environment's is blanked): the embedded room's own PostgreSQL.
    "embedded": {"DEBUG": "true", "DATABASE_URL": ""},
    "sqlite": {"DEBUG": "true", "DATABASE_URL": "sqlite:///room.sqlite3"},
    "bounded_pool": {
        "DEBUG": "true",
        "DATABASE_URL": POSTGRES,
        "DB_POOL_MAX_SIZE": "7",
        "DB_POOL_TIMEOUT": "2.5",
    },
}
DEPLOY = {"DEBUG": "false", "SECRET_KEY": REAL_KEY, "AUDIT_ANCHOR_KEY": REAL_KEY[::-1]}

# Run by the child: {"base": env, "cases": {name: env}, "deploy": env} on stdin, a JSON report
# on stdout (`print` only there: Django's own output goes to the buffers).
CHILD = """
import io, json, os, runpy, sys
job = json.load(sys.stdin)
report = {}
for name, case in job["cases"].items():
    os.environ.clear()
    os.environ.update({**job["base"], **case})
    try:
        found = runpy.run_module("config.settings")
    except Exception as error:
        report[name] = {"error": f"{type(error).__name__}: {error}"}
    else:
        database = found["DATABASES"]["default"]
        pool = database.get("OPTIONS", {}).get("pool")
        report[name] = {
            "engine": database["ENGINE"],
            "conn_max_age": database["CONN_MAX_AGE"],
            "pool": sorted(pool.items()) if isinstance(pool, dict) else None,
        }
os.environ.clear()
os.environ.update({**job["base"], **job["deploy"], "DJANGO_SETTINGS_MODULE": "config.settings"})
import django
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test.utils import override_settings
django.setup()

def deploy_check(**overrides):
    out, err = io.StringIO(), io.StringIO()
    try:
        with override_settings(**overrides):
            call_command("check", "--deploy", "--fail-level", "WARNING", stdout=out, stderr=err)
        passed = True
    except SystemCheckError as error:
        passed, err = False, io.StringIO(str(error))
    return {"passed": passed, "output": out.getvalue() + err.getvalue()}

report["deploy"] = deploy_check()
report["deploy_without_anchor_key"] = deploy_check(AUDIT_ANCHOR_KEY="")
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def report() -> dict:
    unset = ("SECRET_KEY", "DEBUG", "AUDIT_ANCHOR_KEY")
    base = {k: v for k, v in os.environ.items() if k not in unset}
    base.update({"SECURE_SSL_REDIRECT": "", "SECURE_COOKIES": ""})
    base = {k: v for k, v in base.items() if v != ""}
    job = {"base": base, "cases": CASES, "deploy": DEPLOY}
    result = subprocess.run(
        [sys.executable, "-c", CHILD],
        cwd=REPO_ROOT,
        env=base,
        input=json.dumps(job),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def test_production_refuses_to_start_without_a_secret_key(report):
    assert "SECRET_KEY must be set" in report["no_key"]["error"]


def test_production_refuses_a_short_secret_key(report):
    assert "SECRET_KEY must be set" in report["short_key"]["error"]


def test_debug_mode_runs_without_a_key(report):
    assert "error" not in report["debug_without_key"]


def test_deploy_check_passes_with_a_real_key(report):
    assert report["deploy"]["passed"], report["deploy"]["output"]
    assert "no issues" in report["deploy"]["output"]


def test_deploy_check_warns_without_an_audit_anchor_key(report):
    assert not report["deploy_without_anchor_key"]["passed"]
    assert "audit.W001" in report["deploy_without_anchor_key"]["output"]


def test_a_database_pool_smaller_than_its_minimum_is_refused_at_start(report):
    assert (
        "DB_POOL_MIN_SIZE (5) must be 0 or more and at most DB_POOL_MAX_SIZE (2)"
        in report["pool_min_above_max"]["error"]
    )


def test_the_database_is_reached_through_a_bounded_pool(report):
    assert report["bounded_pool"] == {
        "engine": "django.db.backends.postgresql",
        "conn_max_age": 0,
        "pool": [["max_size", 7], ["min_size", 0], ["timeout", 2.5]],
    }


def test_without_a_database_url_the_room_runs_on_its_own_postgresql(report):
    embedded = report["embedded"]
    assert embedded["engine"] == "config.embedded_db", embedded
    assert embedded["conn_max_age"] == 0 and embedded["pool"], embedded


def test_a_database_url_that_is_not_postgresql_is_refused(report):
    assert "must name a PostgreSQL database" in report["sqlite"]["error"]
