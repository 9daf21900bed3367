"""promtool (Debian's prometheus package, unpacked by ``make promtool``) and the alert rules shipped in docs/ops/ with
their unit tests."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OPS = ROOT / "docs" / "ops"
RULES, RULE_TESTS = OPS / "pokertable-alerts.rules.yml", OPS / "pokertable-alerts.test.yml"


@pytest.fixture(scope="module")
def promtool() -> str:
    """promtool on the PATH or in the virtual environment (``make promtool``); required in CI."""
    found = shutil.which("promtool") or next((str(path) for path in (Path(sys.executable).parent / "promtool",)
                                              if path.is_file() and os.access(path, os.X_OK)), None)
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("promtool is required in CI: make promtool (Debian's prometheus package)")
        pytest.skip("promtool is not installed: make promtool (Debian's prometheus package)")
    return found


def _run(promtool: str, *args: str, cwd: Path = OPS) -> subprocess.CompletedProcess[str]:
    return subprocess.run([promtool, *args], capture_output=True, text=True, timeout=120, cwd=cwd, check=False)
