"""Issue 13, item 6 — attack: reach one SQLite file by another path (a hard link, a symbolic link) to get a second
writer round the one-writer claim.  The claim binds the file's identity, so every path meets it."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from service.store.persistence import SoleWriter, StoreInUseError, claim_sole_writer
from tests.support.serve_process import SCRIPT, STATIONS, start


def test_a_hard_link_or_a_symbolic_link_meets_the_same_claim(tmp_path: Path) -> None:
    db = tmp_path / "tables.db"
    claim = claim_sole_writer(f"sqlite:///{db}")
    assert isinstance(claim, SoleWriter)
    other = tmp_path / "elsewhere"
    other.mkdir()
    os.link(db, other / "hard.db")
    (other / "soft.db").symlink_to(db)
    try:
        for path in (other / "hard.db", other / "soft.db", db):
            with pytest.raises(StoreInUseError) as refused:
                claim_sole_writer(f"sqlite:///{path}")
            assert f"pokertable process {os.getpid()}" in str(refused.value)
    finally:
        claim.release()
    again = claim_sole_writer(f"sqlite:///{other / 'hard.db'}")  # released: any path may claim it now
    assert again is not None
    again.release()


def test_a_second_server_on_a_hard_link_of_a_served_file_is_refused(tmp_path: Path) -> None:
    db, config = tmp_path / "tables.db", tmp_path / "stations.toml"
    config.write_text(STATIONS, encoding="utf-8")
    config.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    first, _ = start(db, config)
    try:
        link = tmp_path / "link.db"
        os.link(db, link)
        second = subprocess.run([SCRIPT, "serve", "--db", f"sqlite:///{link}", "--port", "0", "--config",
                                 str(config)], check=False, capture_output=True, text=True, timeout=60)
        assert second.returncode == 2
        assert f"is being written by pokertable process {first.pid}" in second.stderr
    finally:
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
