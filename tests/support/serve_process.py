"""``pokertable serve`` as a casino runs it: the installed console script in a process of its own, on an SQLite
file, with a stations file of a pit boss and Mesa 1's croupier."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

SCRIPT = shutil.which("pokertable", path=str(Path(sys.executable).parent)) or "pokertable"
STATIONS = """
[stations.pit]
token = "pit-boss-token-0123456789"
role = "pit-boss"

[stations.mesa-1]
token = "dealer-token-0123456789"
role = "dealer"
table = "Mesa 1"
"""


def start(db: Path, config: Path, *extra: str) -> tuple[subprocess.Popen[str], int]:
    process = subprocess.Popen([SCRIPT, "serve", "--db", f"sqlite:///{db}", "--port", "0", "--config", str(config),
                                *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    assert "serving on" in line, process.stderr.read() if process.stderr else line
    return process, int(line.split(":")[1].split()[0])
