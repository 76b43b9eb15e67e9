"""Production settings refuse to start insecure and pass Django's deployment checks."""

import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
REAL_KEY = "k3y-" + "0123456789abcdefghijklmnopqrstuvwxyz" * 2


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    unset = ("SECRET_KEY", "DEBUG", "AUDIT_ANCHOR_KEY")
    clean = {k: v for k, v in os.environ.items() if k not in unset}
    clean.update({"SECURE_SSL_REDIRECT": "", "SECURE_COOKIES": ""})
    clean = {k: v for k, v in clean.items() if v != ""}
    clean.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO_ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_refuses_to_start_without_a_secret_key():
    result = manage("check", DEBUG="false")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_production_refuses_a_short_secret_key():
    result = manage("check", DEBUG="false", SECRET_KEY="short")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_deploy_check_passes_with_a_real_key():
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="false",
        SECRET_KEY=REAL_KEY,
        AUDIT_ANCHOR_KEY=REAL_KEY[::-1],
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_deploy_check_warns_without_an_audit_anchor_key():
    result = manage("check", "--deploy", DEBUG="false", SECRET_KEY=REAL_KEY)
    assert "audit.W001" in result.stdout + result.stderr


def test_debug_mode_runs_without_a_key():
    result = manage("check", DEBUG="true")
    assert result.returncode == 0, result.stderr


def test_a_database_pool_smaller_than_its_minimum_is_refused_at_start():
    result = manage(
        "check",
        DEBUG="true",
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/room",
        DB_POOL_MIN_SIZE="5",
        DB_POOL_MAX_SIZE="2",
    )
    assert result.returncode != 0
    assert (
        "DB_POOL_MIN_SIZE (5) must be 0 or more and at most DB_POOL_MAX_SIZE (2)" in result.stderr
    )


def test_the_database_is_reached_through_a_bounded_pool():
    result = manage(
        "shell",
        "--verbosity",
        "0",
        "-c",
        "from django.conf import settings; d = settings.DATABASES['default']; "
        "print(d['CONN_MAX_AGE'], sorted(d['OPTIONS']['pool'].items()))",
        DEBUG="true",
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/room",
        DB_POOL_MAX_SIZE="7",
        DB_POOL_TIMEOUT="2.5",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[0] == (
        "0 [('max_size', 7), ('min_size', 0), ('timeout', 2.5)]"
    )
