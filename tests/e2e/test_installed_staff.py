"""``tokens add`` and ``staff add`` on a service installed as docs/ops/install.md says (issue 32, acceptance): the
configuration file root-owned, group of the service's user, mode 0640. After each the file keeps its owner, group
and mode (the service's user still reads it: its group may), the service starts again and serves, and the person
enrolled is still there after the restart; the service refuses, with one line, a configuration file holding tokens
in clear that anyone may read.  (The service itself runs as the test's user: this machine's interpreter lives
where no other user may execute it.)"""

from __future__ import annotations

import os
import re
import signal
import stat
import subprocess
from pathlib import Path

import pytest

from tests.support.serve_process import SCRIPT

SERVICE_USER = 65534  # nobody: a user that is not root, in group nogroup (65534)


def _serve(config: Path, data: Path) -> tuple[subprocess.Popen[str], int]:
    process = subprocess.Popen([SCRIPT, "serve", "--config", str(config), "--db", f"sqlite:///{data}/tables.db",
                                "--signing-key", str(data / "signing.key"), "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=data)
    assert process.stdout is not None
    line = process.stdout.readline()
    if "serving on" not in line:
        process.kill()
        raise AssertionError(line + process.communicate()[1])
    found = re.search(r"serving on [^:\s]+:(\d+)", line)
    assert found is not None, line
    return process, int(found.group(1))


def _stop(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err


@pytest.mark.skipif(os.geteuid() != 0, reason="installs files as root for another user, as docs/ops/install.md does")
def test_tokens_add_and_staff_add_leave_an_installed_service_restartable(tmp_path: Path) -> None:
    etc, data = tmp_path / "etc", tmp_path / "data"
    etc.mkdir()
    etc.chmod(0o755)
    tmp_path.chmod(0o755)
    data.mkdir()
    data.chmod(0o700)
    config = etc / "pokertable.toml"
    config.write_text('[service]\nhost = "127.0.0.1"\n', encoding="utf-8")
    os.chown(config, 0, SERVICE_USER)
    config.chmod(0o640)
    added = subprocess.run([SCRIPT, "tokens", "add", "--config", str(config), "--role", "administrator", "--name",
                            "it"], capture_output=True, text=True, check=False)
    assert added.returncode == 0, added.stderr
    token = added.stdout.strip()
    kept = config.stat()
    assert (kept.st_uid, kept.st_gid, stat.S_IMODE(kept.st_mode)) == (0, SERVICE_USER, 0o640)
    process, port = _serve(config, data)
    try:
        env = {**os.environ, "POKERTABLE_TOKEN": token, "POKERTABLE_NEW_PIN": "first-admin-1"}
        enrolled = subprocess.run([SCRIPT, "staff", "--server", f"127.0.0.1:{port}", "add", "1001", "--name",
                                   "Ana Gómez", "--role", "administrator"], capture_output=True, text=True,
                                  env=env, check=False)
        assert enrolled.returncode == 0, enrolled.stderr
        assert "first-admin-1" not in enrolled.stdout + enrolled.stderr
    finally:
        _stop(process)
    kept = config.stat()
    assert (kept.st_uid, kept.st_gid, stat.S_IMODE(kept.st_mode)) == (0, SERVICE_USER, 0o640)  # untouched
    process, port = _serve(config, data)  # restarted
    try:
        env = {**os.environ, "POKERTABLE_TOKEN": token, "POKERTABLE_PIN": "first-admin-1"}
        listed = subprocess.run([SCRIPT, "staff", "--server", f"127.0.0.1:{port}", "--as", "1001", "list"],
                                capture_output=True, text=True, env=env, check=False)
        assert listed.returncode == 0, listed.stderr
        assert "1001" in listed.stdout and "Ana Gómez" in listed.stdout and "active" in listed.stdout
    finally:
        _stop(process)


def test_the_service_refuses_a_configuration_with_tokens_in_clear_that_anyone_may_read(tmp_path: Path) -> None:
    config = tmp_path / "pokertable.toml"
    config.write_text('[stations.pit]\ntoken = "pit-boss-token-0123456789"\nrole = "pit-boss"\n', encoding="utf-8")
    config.chmod(0o644)
    refused = subprocess.run([SCRIPT, "serve", "--config", str(config), "--db", f"sqlite:///{tmp_path}/t.db",
                              "--port", "0"], capture_output=True, text=True, timeout=60, check=False)
    assert refused.returncode == 2
    lines = [line for line in refused.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "readable by anyone on this machine" in lines[0] and "chmod o-rwx" in lines[0], lines
    assert "pit-boss-token" not in refused.stderr and "Traceback" not in refused.stderr
