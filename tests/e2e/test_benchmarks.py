"""Every benchmark imports both ways it is run: as a module (``python -m benchmarks.odds``, as ``make bench`` does)
and as a script (``python benchmarks/odds.py``), where the script's directory heads ``sys.path`` and
``benchmarks/service.py`` and ``benchmarks/devices.py`` would shadow the ``service`` and ``devices`` packages.

Only the imports are checked (``__main__`` blocks do not run): the benchmarks themselves take minutes.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = sorted(path for path in (ROOT / "benchmarks").glob("*.py") if path.name != "__init__.py")

# A script run: its directory first on sys.path, the working directory not on it; run_path executes the file the way
# ``python benchmarks/x.py`` does, under another name so that its __main__ block stays idle.
AS_A_SCRIPT = "import runpy, sys; sys.path.insert(0, sys.argv[1]); runpy.run_path(sys.argv[2], run_name='as_a_script')"


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda path: path.stem)
def test_a_benchmark_imports_when_run_as_a_script(script: Path, tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-c", AS_A_SCRIPT, str(script.parent), str(script)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr


def test_every_benchmark_imports_as_a_module() -> None:
    names = [f"benchmarks.{path.stem}" for path in BENCHMARKS]
    code = "import importlib, sys; [importlib.import_module(name) for name in sys.argv[1:]]"
    run = subprocess.run([sys.executable, "-c", code, *names], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         check=False)
    assert run.returncode == 0, run.stderr


def test_the_year_benchmark_builds_keeps_and_measures_again_a_small_store(tmp_path: Path) -> None:
    """``benchmarks/year.py`` end to end on a store of a few thousand events (its figures are not judged here, only
    that every path is measured at each size, the copies are kept, and ``--kept`` measures them again)."""
    kept = tmp_path / "kept"
    kept.mkdir()
    built = subprocess.run([sys.executable, "-m", "benchmarks.year", "--sizes", "2000", "4000", "--tables", "2",
                            "--repeats", "1", "--only", "SQLite", "--old-up-to", "2500", "--keep", str(kept)],
                           cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert built.returncode == 0, built.stderr[-2000:]
    copies = sorted(path.name for path in kept.glob("year-*.db"))
    assert len(copies) == 2 and len(list(kept.glob("year-*.json"))) == 2, copies
    again = subprocess.run([sys.executable, "-m", "benchmarks.year", "--kept", str(kept), "--repeats", "1",
                            "--old-up-to", "0"], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert again.returncode == 0, again.stderr[-2000:]
    for run in (built, again):
        assert "SQLite: cost of each read path" in run.stdout and "what a year costs" in run.stdout, run.stdout
        for path in ("dealers", "shufflers", "floor start", "history", "search", "first load", "command",
                     "start: every table", "memory"):
            assert f"\n{path} " in run.stdout, (path, run.stdout)
    assert "dealers, from position 1" in built.stdout  # the path as before issue 30, at the smaller size
