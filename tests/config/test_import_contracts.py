"""The direction of imports (pyproject.toml [tool.importlinter], docs/architecture.md): the
engine is pure, edges sit above services, the apps in layers, and no module but a router
imports a socket consumer. `make lint` runs the same check; this test makes a broken
contract fail the test suite too."""

import pkgutil
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_import_contract_is_kept():
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run(
        [str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout, done.stdout


def test_every_module_of_every_app_sits_in_a_layer():
    """The app-level contract names three apps module by module (config, responsible, fairness):
    a module added to one of them and left out would be checked by nothing."""
    importlinter = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    [layered] = [c for c in importlinter["contracts"] if c["id"] == "apps-layered"]
    names = (name.strip() for layer in layered["layers"] for name in re.split(r"[:|]", layer))
    named = set(names) - {""}
    missing = [
        f"{package}.{module.name}"
        for package in importlinter["root_packages"]
        if package not in named
        for module in pkgutil.iter_modules([str(ROOT / package)])
        if f"{package}.{module.name}" not in named
    ]
    assert not missing, f"in no layer of the apps-layered contract: {missing}"


def test_no_import_cycle_among_the_poker_services():
    """poker/services builds upwards from its unit of work: a module that imports another
    never is imported back by it, lazily or not (what it needs from above is handed in)."""
    import grimp

    graph = grimp.build_graph("poker", cache_dir=None)
    modules = sorted(m for m in graph.modules if m.startswith("poker.services."))
    cycles = [
        (a, b)
        for i, a in enumerate(modules)
        for b in modules[i + 1 :]
        if graph.chain_exists(importer=a, imported=b) and graph.chain_exists(importer=b, imported=a)
    ]
    assert not cycles, cycles
