"""The software checks itself (issue 29, item 3): the wheel ships a manifest of every file it installs
(``pokertable/MANIFEST.sha256``, written by hatch_build.py) whose SHA-256 is the release digest; the installed
``pokertable verify-install`` finds its installation intact (exit 0) and prints that digest, the same as ``pokertable
--version`` and as the manifest inside the wheel; one byte changed in an installed module, a file added beside the
modules, a file deleted and the manifest itself deleted are each found and named (exit 1), and Python's own caches
are not.  The service's check, given a tampered installation, holds every open table of a real application on SQLite
(R-HOLD-1: no hand starts) until the games director acknowledges it, and records the same finding once however often
it runs.  A development install (this checkout) has no manifest: said, exit 2, never an alarm and never an alert.

The wheel is built and installed once for the module, as tests/e2e/test_packaging.py does (its fixtures)."""

from __future__ import annotations

import asyncio
import doctest
import hashlib
import logging
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

import pokertable
import pokertable.release
from domain.banked.thb import STANDARD_LIMITS, ThbSettings
from domain.circle.settings import BettingStructure, TableSettings
from pokertable.release import MANIFEST_NAME, Manifest, verify_installation
from service.app import significant
from service.app.application import PokerTables
from service.app.commands import AcknowledgeAlert, OpenTable, Sit, StartHand
from service.app.install_check import KIND, alert_words, check_installation, watch_installation
from service.cli.main import main as command_line
from service.store.persistence import environment
from tests.support.app_play import DIRECTOR, next_deck
from tests.support.packaging_support import Venv, venv, wheel

__all__ = ["venv", "wheel"]  # test_packaging's module-scoped fixtures, built again once for this module

ROOT = Path(__file__).resolve().parents[2]
DIGEST = r"release sha256:[0-9a-f]{64}"


def _site(venv: Venv) -> Path:
    return venv.site_packages()


def _verify(venv: Venv, *args: str) -> tuple[int, list[str], str]:
    done = venv.run(str(venv.bin / "pokertable"), "verify-install", *args)
    return done.returncode, done.stdout.splitlines(), done.stderr


def _version(venv: Venv) -> list[str]:
    shown = venv.run(str(venv.bin / "pokertable"), "--version")
    assert shown.returncode == 0, shown.stderr
    return shown.stdout.splitlines()


def _flip_a_docstring_byte(path: Path) -> bytes:
    """Change one byte of a module's opening docstring (it still imports): the original bytes."""
    original = path.read_bytes()
    assert original.startswith(b'"""') and original[3:4].isalpha()
    path.write_bytes(original[:3] + original[3:4].swapcase() + original[4:])
    return original


@pytest.mark.build
def test_the_wheel_ships_a_manifest_of_every_file_it_installs(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = [name for name in archive.namelist() if ".dist-info/" not in name]
        text = archive.read(f"pokertable/{MANIFEST_NAME}").decode()
        manifest = Manifest.parse(text)
        assert sorted(manifest.files) == sorted(set(names) - {f"pokertable/{MANIFEST_NAME}"})
        for name in ("pokertable/__init__.py", "pokertable/_app/service/web/static/pit.css",
                     "pokertable/_app/service/api/table_service_pb2_grpc.py"):  # code, data, generated at build
            assert manifest.files[name] == hashlib.sha256(archive.read(name)).hexdigest()
    assert text == manifest.text()


@pytest.mark.build
def test_the_installed_program_is_intact_and_says_its_release_digest(venv: Venv, wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        release = "release sha256:" + hashlib.sha256(archive.read(f"pokertable/{MANIFEST_NAME}")).hexdigest()
    status, out, err = _verify(venv)
    assert (status, out) == (0, [release]), err
    assert "file(s) intact under" in err
    version = wheel.name.split("-")[1]
    assert _version(venv) == [f"pokertable {version}", release]  # the launcher's answer, the program unloaded
    parsed = venv.run(str(venv.bin / "pokertable"), "--tz", "UTC", "--version")  # the command line's own
    assert parsed.stdout.splitlines() == [f"pokertable {version}", release], parsed.stderr
    # the manifest is sha256sum's format: checked without pokertable, from site-packages
    if shutil.which("sha256sum"):
        checked = venv.run("sh", "-c", f"cd '{_site(venv)}' && sha256sum --check --quiet --strict "
                                       f"pokertable/{MANIFEST_NAME}")
        assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.build
def test_one_byte_changed_in_an_installed_module_is_found_and_named(venv: Venv) -> None:
    target = _site(venv) / "pokertable" / "_app" / "domain" / "holds.py"
    original = _flip_a_docstring_byte(target)
    try:
        status, out, err = _verify(venv)
        assert status == 1, err
        assert out[:-1] == ["changed: pokertable/_app/domain/holds.py"]
        assert out[-1] == _version(venv)[1]  # the release is the same: the manifest was not touched
        assert "1 changed, 0 missing, 0 added" in err and err.startswith("pokertable verify-install: ")
    finally:
        target.write_bytes(original)
    assert _verify(venv)[0] == 0


@pytest.mark.build
def test_a_file_added_or_deleted_is_found_and_named_and_caches_are_not(venv: Venv) -> None:
    app = _site(venv) / "pokertable" / "_app"
    added = app / "service" / "app" / "backdoor.py"
    sourceless = app / "domain" / "cards" / "ranking.pyc"  # importable in place of ranking.py's cache: named
    deleted = app / "service" / "web" / "static" / "pit.css"
    kept = deleted.read_bytes()
    cache = app / "service" / "app" / "__pycache__" / "backdoor.cpython-311.pyc"  # a cache: not named
    cache.parent.mkdir(exist_ok=True)
    try:
        added.write_text("OPEN = True\n", encoding="utf-8")
        sourceless.write_bytes(b"\x00")
        cache.write_bytes(b"\x00")
        deleted.unlink()
        status, out, err = _verify(venv)
        assert status == 1, err
        assert out[:-1] == ["missing: pokertable/_app/service/web/static/pit.css",
                            "added: pokertable/_app/domain/cards/ranking.pyc",
                            "added: pokertable/_app/service/app/backdoor.py"]
        assert "0 changed, 1 missing, 2 added" in err
    finally:
        for path in (added, sourceless, cache):
            path.unlink(missing_ok=True)
        deleted.write_bytes(kept)
    assert _verify(venv)[0] == 0


@pytest.mark.build
def test_an_installation_without_its_manifest_is_a_finding_not_a_development_install(venv: Venv) -> None:
    manifest = _site(venv) / "pokertable" / MANIFEST_NAME
    kept = manifest.read_bytes()
    manifest.unlink()
    try:
        status, out, err = _verify(venv)
        assert status == 1, err
        assert len(out) == 1 and out[0].startswith("manifest: ") and "is missing" in out[0]
        assert _version(venv)[1].startswith("release: NO MANIFEST")
    finally:
        manifest.write_bytes(kept)
    assert _verify(venv)[0] == 0


def test_a_development_install_has_no_manifest_and_says_so_without_an_alarm(
        capsys: pytest.CaptureFixture[str]) -> None:
    found = verify_installation(ROOT / "pokertable")
    assert found.development and not found.intact and not found.findings()
    assert command_line(["verify-install"]) == 2  # nothing to verify: not 1 (found bad), not 0 (intact)
    out, err = capsys.readouterr()
    assert out == "" and "development install" in err and err.startswith("pokertable verify-install: ")
    with pytest.raises(SystemExit) as shown:
        command_line(["--version"])
    assert shown.value.code == 0
    assert capsys.readouterr().out.splitlines()[1] == "release: development install (no release manifest)"
    assert pokertable.release.release_line() == "release: development install (no release manifest)"


def test_the_release_module_s_examples_hold() -> None:
    assert doctest.testmod(pokertable.release).failed == 0


# -- the service's check ---------------------------------------------------------------------------------------


@pytest.fixture
def installation(venv: Venv, tmp_path: Path) -> Path:
    """A copy of the installed package tree with its distribution's metadata: an installation of the wheel."""
    site = tmp_path / "site-packages"
    shutil.copytree(_site(venv) / "pokertable", site / "pokertable",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (info,) = _site(venv).glob("pokertable-*.dist-info")
    shutil.copytree(info, site / info.name)
    return site / "pokertable"


@pytest.fixture
def app(tmp_path: Path) -> Iterator[PokerTables]:
    tables = PokerTables(env=environment(f"sqlite:///{tmp_path / 'tables.db'}"))
    tables.handle(OpenTable("open-1", "Mesa 1", TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1,
                                                                                                                  2))))
    for seat in (1, 2):
        tables.handle(Sit(f"sit-{seat}", "Mesa 1", seat, 100))
    tables.handle(OpenTable("open-2", "THB 1", ThbSettings(STANDARD_LIMITS[10])))
    yield tables
    tables.close()


def _start_refused(app: PokerTables, table: str) -> str:
    """The rule a hand's start is refused by at ``table`` ("" when it starts)."""
    try:
        app.handle(StartHand(f"probe-{table}-{app.recorder.max_notification_id()}", table, next_deck(app, table)))
    except Exception as refused:
        return str(getattr(refused, "rule", refused))
    return ""


@pytest.mark.build
def test_the_service_holds_every_table_once_for_a_tampered_installation(
        app: PokerTables, installation: Path, caplog: pytest.LogCaptureFixture) -> None:
    found, raised = check_installation(app, installation)
    assert found.intact and raised == []  # the copy as installed: nothing to say
    _flip_a_docstring_byte(installation / "_app" / "service" / "app" / "holds.py")
    with caplog.at_level(logging.ERROR, logger="pokertable.install"):
        found, raised = check_installation(app, installation)
    assert found.changed == ("pokertable/_app/service/app/holds.py",)
    assert any("SOFTWARE CHANGED" in record.message for record in caplog.records)
    assert {alert.table for alert in raised} == {"Mesa 1", "THB 1"}
    for table in ("Mesa 1", "THB 1"):
        (hold,) = app.holds.holds_of(app.any_table(table))
        assert hold.kind == KIND and hold.rule == "25 CFR 547.8(f)"
        assert hold.detail == alert_words(found) and "pokertable/_app/service/app/holds.py" in hold.detail
        assert "1 changed, 0 missing, 0 added" in hold.detail and len(hold.detail) <= 200
        assert _start_refused(app, table) == "R-HOLD-1"
    head = app.recorder.max_notification_id()
    again, repeated = check_installation(app, installation)  # the next interval: the same finding, nothing new
    assert again.changed == found.changed and repeated == raised
    assert app.recorder.max_notification_id() == head
    for alert in raised:  # the games director acknowledges it (the existing path): play resumes
        app.handle(AcknowledgeAlert(f"ack-{alert.table}", alert.table, alert.position,
                                    "files restored from the release, verify-install clean"), DIRECTOR)
    assert _start_refused(app, "Mesa 1") == ""
    assert check_installation(app, installation)[1] == raised  # acknowledged, not raised again
    (installation / "_app" / "service" / "app" / "extra.py").write_text("X = 1\n", encoding="utf-8")
    _, fresh = check_installation(app, installation)  # a new difference is a new alert
    assert {alert.table for alert in fresh} == {"Mesa 1", "THB 1"}
    assert all(alert.position > (head or 0) for alert in fresh)


@pytest.mark.build
def test_the_service_holds_for_a_missing_manifest_and_watches_on_a_thread(
        app: PokerTables, installation: Path) -> None:
    (installation / MANIFEST_NAME).unlink()
    found, raised = check_installation(app, installation)
    assert found.problem and len(raised) == 2
    assert all("no usable release manifest" in hold.detail for hold in app.holds.holds_of(app.any_table("THB 1")))

    async def one_interval() -> None:
        watching = asyncio.ensure_future(watch_installation(app, 3600, installation))
        await asyncio.sleep(0.5)
        assert not watching.done()  # an installation is watched until the service stops
        watching.cancel()

    head = app.recorder.max_notification_id()
    since = datetime.now(UTC)
    asyncio.run(one_interval())
    new = [n.topic.rsplit(":", 1)[-1] for n in app.recorder.select_notifications((head or 0) + 1, 100)]
    assert "ProcessedCommand.Processed" in new and not any("Alert" in topic or "Hold" in topic for topic in new)
    # the same finding: no alert again; the watch's first finding is a significant event (issue 29, item 2)
    [entry] = significant.entries(app, since, datetime.now(UTC))
    assert entry.kind == KIND and entry.detail.startswith("CHANGED: ") and "no usable release manifest" in entry.detail


def test_the_service_never_alerts_on_a_development_install(app: PokerTables) -> None:
    found, raised = check_installation(app, ROOT / "pokertable")
    assert found.development and raised == []
    assert asyncio.run(asyncio.wait_for(watch_installation(app, 3600, ROOT / "pokertable"), 30)) is None  # ends
    assert not app.holds.holds_of(app.any_table("Mesa 1"))


def test_the_launcher_answers_version_without_loading_the_program() -> None:
    loaded = [name for name in sys.modules if name.split(".")[0] in pokertable.OWN_PACKAGES]
    assert loaded  # this test process has the program loaded; a fresh one must not
    probe = ("import sys, pokertable; sys.argv = ['pokertable', '--version']; status = pokertable.main(); "
             "print(sorted(n for n in sys.modules if n.split('.')[0] in pokertable.OWN_PACKAGES)); "
             "raise SystemExit(status)")
    shown = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False,
                           cwd=ROOT)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0].startswith("pokertable ") and lines[1].startswith("release") and lines[2] == "[]"
