"""The walls between the layers (docs/architecture.md, "Walls"): the import-linter contracts of pyproject.toml hold,
every module of domain/ and service/ stands on a side of them, and a wrong import is caught.

``make lint`` runs ``lint-imports`` on the tree; these tests check that the contracts cover every module (a new
module is classified, or these tests fail) and that each kind of wall does refuse the import it exists to refuse,
on a copy of the tree with one wrong import added.
"""

from __future__ import annotations

import pkgutil
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

import domain
import service

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _contracts() -> dict[str, dict[str, Any]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    return {contract["id"]: contract for contract in config["contracts"]}


def _modules(package: Any) -> set[str]:
    return {f"{package.__name__}.{info.name}" for info in pkgutil.iter_modules(package.__path__)}


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(LINT_IMPORTS), "--no-logo", "--no-cache"], cwd=tree, capture_output=True, text=True,
                          timeout=120, check=False)


def test_every_domain_module_is_on_a_side_of_the_game_walls() -> None:
    contracts = _contracts()
    below = set(contracts["cards-know-no-game"]["source_modules"])
    circle = set(contracts["circle-knows-no-banked"]["source_modules"])
    banked = set(contracts["banked-knows-no-circle"]["source_modules"])
    above = set(contracts["cards-know-no-game"]["forbidden_modules"]) - circle - banked
    assert circle == {"domain.circle"} and banked == {"domain.banked"}
    assert set(contracts["banked-knows-no-circle"]["forbidden_modules"]) == circle
    assert set(contracts["circle-knows-no-banked"]["forbidden_modules"]) == banked
    sides = [below, circle, banked, above]
    assert sum(len(side) for side in sides) == len(set().union(*sides)), "a module is on two sides"
    assert set().union(*sides) == _modules(domain), "classify the module in pyproject.toml's [tool.importlinter]"


def test_every_service_package_is_on_a_side_of_the_application_wall() -> None:
    contracts = _contracts()
    application = set(contracts["application-below-edges"]["source_modules"])
    edges = set(contracts["application-below-edges"]["forbidden_modules"])
    assert application == {"service.app", "service.store", "service.formats"}
    assert not application & edges
    loop = set(contracts["application-off-the-loop"]["forbidden_modules"])  # the store's follower waits on it
    assert application | ((edges | loop) & _modules(service)) == _modules(service), \
        "classify the package in pyproject.toml's [tool.importlinter]"
    loose = {info.name for info in pkgutil.iter_modules(service.__path__) if not info.ispkg}
    assert loose == {"bootstrap"}, "service/ holds packages and its one composition root"


def test_lint_imports_passes_on_the_tree() -> None:
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"Contracts: {len(_contracts())} kept, 0 broken." in result.stdout


@pytest.fixture(scope="module")
def tree_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The three packages and pyproject.toml, copied (the copy is found first: lint-imports puts its cwd first)."""
    tree = tmp_path_factory.mktemp("tree")
    for package in ("domain", "service", "devices"):
        shutil.copytree(ROOT / package, tree / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    return tree


@pytest.mark.parametrize(("module", "line", "contract"), [
    ("domain/circle/pots.py", "import service.store.chain", "domain knows neither the service nor the devices"),
    ("devices/cli.py", "import service.grpc.server", "devices know nothing of the service"),
    ("domain/cards/batch.py", "import domain.circle.hand", "know no circle and"),
    ("domain/circle/stud.py", "import domain.banked.paytables", "circle games do not import a banked game"),
    ("domain/banked/cdp_rules.py", "import domain.circle.pots", "banked games do not import a circle game"),
    ("service/app/visibility.py", "import service.station.reference",
     "the application layer (app, store, formats) knows neither"),
    ("service/store/persistence.py", "import grpc", "the application layer (app, store, formats) knows neither"),
    ("service/station/client.py", "import service.store.persistence", "a dealer station is a gRPC client"),
    ("service/grpc/requests.py", "import service.station.client", "the gRPC server knows neither the stations"),
    ("domain/errors.py", "import domain.names", "no import cycle between the modules of any package"),
])
def test_a_wrong_import_is_caught(tree_copy: Path, module: str, line: str, contract: str) -> None:
    path = tree_copy / module
    original = path.read_text(encoding="utf-8")
    path.write_text(f"{original}\n{line}  # the wrong import\n", encoding="utf-8")
    try:
        result = _lint(tree_copy)
    finally:
        path.write_text(original, encoding="utf-8")
    assert result.returncode == 1, result.stdout + result.stderr
    # (a wrong import between sibling packages breaks the no-cycle contract too: both are named)
    assert " broken." in result.stdout and "Contracts: " in result.stdout
    broken = result.stdout.split("Broken contracts", 1)[1]
    assert contract in broken.replace("\n", " ")


def test_the_application_is_built_in_one_place() -> None:
    """One composition root (service/bootstrap.py): no other module of service/ constructs the application."""
    builders = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "service").rglob("*.py")
                      if any("PokerTables(" in line and ">>>" not in line and "class PokerTables" not in line
                             for line in path.read_text(encoding="utf-8").splitlines()))
    assert builders == ["service/bootstrap.py"]
