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

ROOT = Path(__file__).resolve().parents[1]
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
