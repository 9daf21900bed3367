"""A real ``pokertable serve`` in a process of its own, its metrics scraped over HTTP and its JSON log lines read."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parents[2]
TOKENS = {"pit": "obs-pit-boss-token-0123456", "dealer": "obs-dealer-token-01234567",
          "shoe": "obs-shoe-device-token-0123"}
STATIONS = {
    "pit": {"token": TOKENS["pit"], "role": "pit-boss"},
    "mesa-1": {"token": TOKENS["dealer"], "role": "dealer", "table": "Mesa 1"},
    "shoe-1": {"token": TOKENS["shoe"], "role": "device", "table": "Mesa 1"},
}
STATIONS_TOML = "".join(f'[stations.{name}]\n' + "".join(f'{key} = "{value}"\n' for key, value in entry.items()) + "\n"
                        for name, entry in STATIONS.items())
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def sample(samples: Samples, name: str, **labels: str) -> float:
    """One sample's value (0 when the series does not exist)."""
    return samples.get((name, frozenset(labels.items())), 0.0)


def scrape(url: str) -> tuple[Samples, str]:
    """``/metrics`` over HTTP, parsed as Prometheus parses it; and the text."""
    reply = httpx.get(f"{url}metrics", timeout=10)
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("text/plain"), reply.headers
    samples: Samples = {}
    for family in text_string_to_metric_families(reply.text):
        for one in family.samples:
            samples[(one.name, frozenset(one.labels.items()))] = one.value
    return samples, reply.text


@dataclass
class Serving:
    """A ``pokertable serve`` subprocess: its ports and what it printed."""

    process: subprocess.Popen[str]
    grpc_port: int
    http_url: str
    stdout: list[str] = field(default_factory=list)

    def stop(self) -> tuple[str, str]:
        """SIGTERM (a service manager's stop); everything it wrote on stdout and stderr."""
        self.process.send_signal(signal.SIGTERM)
        out, err = self.process.communicate(timeout=60)
        assert self.process.returncode == 0, err
        return "".join(self.stdout) + out, err


def serve(tmp_path: Path, db: str, *options: str) -> Serving:
    """``pokertable serve`` on ``db`` on free ports, once it says it serves (and where its dashboard is)."""
    config = tmp_path / "stations.toml"
    config.write_text(STATIONS_TOML, encoding="utf-8")
    config.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    process = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--db", db, "--port", "0",
                                "--config", str(config), *options], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert process.stdout is not None
    printed: list[str] = []
    port, url = 0, ""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (port and (url or "--http" not in options)):
        line = process.stdout.readline()
        if not line:
            process.kill()
            raise AssertionError("".join(printed) + (process.stderr.read() if process.stderr else ""))
        printed.append(line)
        if found := re.search(r"serving on [^ ]+:(\d+)", line):
            port = int(found.group(1))
        if found := re.search(r"pit dashboard on (http://\S+/)", line):
            url = found.group(1)
    return Serving(process, port, url, printed)


def json_lines(stderr: str) -> list[dict[str, Any]]:
    """The log's JSON lines (the service's own status lines are plain text on stderr beside them)."""
    return [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]
