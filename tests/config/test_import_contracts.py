"""The direction of imports (pyproject.toml [tool.importlinter], docs/architecture.md): the
engine is pure, edges sit above services, the cashier below the games, and no module but a
router imports a socket consumer. `make lint` runs the same check; this test makes a broken
contract fail the test suite too."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_import_contract_is_kept():
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run(
        [str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout, done.stdout
