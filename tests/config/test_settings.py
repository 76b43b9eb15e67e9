"""Production settings refuse to start insecure and pass Django's deployment checks."""

import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
REAL_KEY = "k3y-" + "0123456789abcdefghijklmnopqrstuvwxyz" * 2


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEBUG")}
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
        "check", "--deploy", "--fail-level", "WARNING", DEBUG="false", SECRET_KEY=REAL_KEY
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_debug_mode_runs_without_a_key():
    result = manage("check", DEBUG="true")
    assert result.returncode == 0, result.stderr
