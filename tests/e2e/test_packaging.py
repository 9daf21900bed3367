"""The installed program (issue 17, item 7): the wheel built from this checkout, installed in a fresh virtual
environment beside another distribution that has top-level ``service``, ``domain`` and ``devices`` packages of its
own: ``pokertable`` runs with its own packages (kept under ``pokertable/_app`` in the wheel), ``python -c "import
service"`` gets the other distribution's, and the service serves (health, the dashboard's templates) and stops
cleanly on SIGTERM, as a service manager stops it.  The checkout's editable install keeps the project root on
``sys.path``.

The wheel is built from a copy of the sources (the build hook writes ``service/api``: never in the working tree
others test in), with the virtual environment's hatchling and grpcio-tools when it has them (no download).  The fresh
environment gets this environment's installed dependencies through a path entry written after the install (no
download either) -- not its ``.pth`` files, so the checkout is not on its ``sys.path``."""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest
from grpc_health.v1 import health_pb2

from service.cli import health
from tests.support.packaging_support import CLASH, ROOT, Venv, _wheel_sources
from tests.support.packaging_support import venv as venv  # noqa: PLC0414  (a fixture)
from tests.support.packaging_support import wheel as wheel  # noqa: PLC0414  (a fixture)

pytestmark = pytest.mark.build


def test_the_wheel_keeps_domain_service_and_devices_out_of_the_top_level(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        entry_points = archive.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    top = {name.split("/")[0] for name in names}
    assert top == {"pokertable", wheel.name.split("-py3")[0] + ".dist-info"}, top
    assert "pokertable = pokertable:main" in entry_points
    for package in CLASH:
        assert f"pokertable/_app/{package}/__init__.py" in names
    # generated at build (service/api), data files beside the code (the dashboard's templates and static files)
    assert "pokertable/_app/service/api/table_service_pb2_grpc.py" in names
    assert "pokertable/_app/service/web/templates/signin.html" in names
    assert "pokertable/_app/service/web/static/pit.css" in names
    assert not any("__pycache__" in name or name.startswith(("tests/", "benchmarks/")) for name in names)


def test_pokertable_runs_its_own_packages_beside_another_distributions(venv: Venv, wheel: Path) -> None:
    version = wheel.name.split("-")[1]
    script = str(venv.bin / "pokertable")
    shown = venv.run(script, "--version")
    assert (shown.returncode, shown.stdout.splitlines()[0]) == (0, f"pokertable {version}"), shown.stderr
    assert re.fullmatch(r"release sha256:[0-9a-f]{64}", shown.stdout.splitlines()[1])  # test_verify_install.py
    hand = venv.run(script, "hand", "As", "Ks", "--board", "Qs", "Js", "Ts", "2c", "3d")
    assert hand.returncode == 0, hand.stderr
    assert "royal flush" in hand.stdout
    odds = venv.run(script, "odds", "--help")
    assert odds.returncode == 0, odds.stderr
    assert "usage: pokertable odds" in odds.stdout
    module = venv.run(str(venv.python), "-m", "pokertable", "--version")
    assert module.stdout == shown.stdout, module.stderr

    # a plain Python of that environment imports the other distribution's packages, as its owner expects
    theirs = venv.run(str(venv.python), "-c", "import service, service.cli, domain, devices; "
                      "print(service.OWNER, service.cli.OWNER, domain.OWNER, devices.OWNER, service.__file__)")
    assert theirs.returncode == 0, theirs.stderr
    owners, path = theirs.stdout.rsplit(" ", 1)
    assert owners.split() == ["clash"] * 4
    assert Path(path.strip()).parent.parent == venv.site_packages()

    # pokertable's launcher, imported in that Python, gets pokertable's own; with another `service` already
    # imported it refuses to run someone else's code under its names
    ours = venv.run(str(venv.python), "-c", "import pokertable; pokertable.use_own_packages(); "
                    "import service.cli.main, domain.cards.cards; print(service.cli.main.__file__)")
    assert ours.returncode == 0, ours.stderr
    assert Path(ours.stdout.strip()).is_relative_to(venv.site_packages() / "pokertable" / "_app")
    mixed = venv.run(str(venv.python), "-c", "import service, pokertable; pokertable.main()")
    assert mixed.returncode == 1
    assert "a 'service' package other than pokertable's was imported first" in mixed.stderr
    assert str(ROOT) not in (ours.stdout + theirs.stdout)  # the checkout is on nobody's path there


def test_the_installed_service_serves_answers_health_and_stops_on_sigterm(venv: Venv) -> None:
    config = venv.path / "stations.toml"
    config.write_text('[stations.pit]\ntoken = "pit-boss-token-0123456789"\nrole = "pit-boss"\n', encoding="utf-8")
    config.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    server = subprocess.Popen(
        [str(venv.bin / "pokertable"), "serve", "--db", f"sqlite:///{venv.path / 'tables.db'}", "--port", "0",
         "--config", str(config), "--http", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=venv.path, env=venv.env)
    try:
        assert server.stdout is not None
        serving = re.search(r"serving on 127\.0\.0\.1:(\d+)", server.stdout.readline())
        assert serving is not None
        address = f"127.0.0.1:{serving.group(1)}"
        dashboard = None
        while dashboard is None and (line := server.stdout.readline()):  # after the warm-up's line
            dashboard = re.search(r"pit dashboard on (http://\S+)", line)
        assert dashboard is not None
        deadline = time.monotonic() + 60
        while health.check(address) != health_pb2.HealthCheckResponse.SERVING:
            assert time.monotonic() < deadline, "not SERVING within 60 s"
            time.sleep(0.2)
        asked = venv.run(str(venv.bin / "pokertable"), "health", "--address", address)
        assert (asked.returncode, asked.stdout.strip()) == (0, f"{address}: SERVING"), asked.stderr
        with urllib.request.urlopen(dashboard.group(1) + "signin", timeout=10) as page:
            assert page.status == 200
            assert "<form" in page.read().decode()
        server.send_signal(signal.SIGTERM)
        out, err = server.communicate(timeout=30)
        assert server.returncode == 0, err
        assert "pokertable serve:" not in out + err  # no error at stop
        assert "Traceback" not in err, err
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()


def test_the_editable_install_keeps_the_checkout_on_the_path(tmp_path: Path) -> None:
    """``pip install -e .`` (make): the project root on ``sys.path``, no package copied, the same console script."""
    (tmp_path / "sources").mkdir()
    sources = _wheel_sources(tmp_path / "sources")
    built = subprocess.run(
        [sys.executable, "-c", "import sys, hatchling.build as b; print(b.build_editable(sys.argv[1]))",
         str(tmp_path)], capture_output=True, text=True, timeout=120, check=False, cwd=sources)
    if built.returncode != 0 and "No module named 'hatchling'" in built.stderr:
        pytest.skip("hatchling is not installed here (make installs it with the dev tools)")
    assert built.returncode == 0, built.stderr
    with zipfile.ZipFile(tmp_path / built.stdout.strip().splitlines()[-1]) as archive:
        names = archive.namelist()
        (pth,) = [n for n in names if n.endswith(".pth")]
        assert archive.read(pth).decode().split() == [str(sources)]
        assert not [n for n in names if n.endswith(".py")]
        entry_points = archive.read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "pokertable = pokertable:main" in entry_points
    # and this environment's own console script runs from the checkout
    script = shutil.which("pokertable", path=str(Path(sys.executable).parent)) or "pokertable"
    shown = subprocess.run([script, "--version"], capture_output=True, text=True, timeout=60, check=False)
    assert shown.returncode == 0, shown.stderr
    assert re.fullmatch(r"pokertable \S+\nrelease: development install \(no release manifest\)\n", shown.stdout)
