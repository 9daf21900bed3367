"""A real ``pokertable serve`` process for the evidence attacks, its standard error kept in a file, and a wait for a
condition."""

from __future__ import annotations

import signal
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import grpc

from service.api import table_service_pb2 as svc
from service.api import table_service_pb2_grpc as svc_grpc
from tests.support.serve_process import SCRIPT

PIT = [("authorization", "Bearer pit-boss-token-0123456789")]
STATIONS = '[stations.pit]\ntoken = "pit-boss-token-0123456789"\nrole = "pit-boss"\n'


class Service:
    """A real ``pokertable serve`` process; its standard error goes to a file (read after)."""

    def __init__(self, url: str, config: Path, *extra: str) -> None:
        self.errors = config.parent / f"serve-{uuid.uuid4().hex[:8]}.err"
        self._err: IO[str] = self.errors.open("w", encoding="utf-8")
        self.process = subprocess.Popen([SCRIPT, "serve", "--db", url, "--port", "0", "--config", str(config),
                                         *extra], stdout=subprocess.PIPE, stderr=self._err, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert "serving on" in line, self.errors.read_text(encoding="utf-8")
        self.port = int(line.split(":")[1].split()[0])
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.port}")
        self.stub: Any = svc_grpc.TableServiceStub(self.channel)  # type: ignore[no-untyped-call]

    def stop(self) -> str:
        """SIGTERM, and what it wrote (standard output, then standard error)."""
        self.channel.close()
        self.process.send_signal(signal.SIGTERM)
        out, _ = self.process.communicate(timeout=60)
        self._err.close()
        assert self.process.returncode == 0, self.errors.read_text(encoding="utf-8")
        return out + self.errors.read_text(encoding="utf-8")

    def holds(self, table: str) -> list[Any]:
        return list(self.stub.GetTable(svc.GetTableRequest(table=table), metadata=PIT, timeout=10).view.holds)

    def said(self, text: str) -> int:
        """How many times its standard error says ``text`` so far."""
        return self.errors.read_text(encoding="utf-8").count(text)


def _until(condition: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
