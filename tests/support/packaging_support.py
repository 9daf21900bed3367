"""pokertable's wheel built from a copy of this checkout (the ``wheel`` fixture), and a fresh virtual environment with
it and a distribution of someone else's whose top-level packages clash with ours installed (``venv``)."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLASH = ("service", "domain", "devices")


def _wheel_sources(destination: Path) -> Path:
    """The files a wheel is built from, copied to ``destination``: pyproject.toml, its build hook and readme, proto/
    and the packages the wheel includes (its only-include), without caches or generated code."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    included = config["tool"]["hatch"]["build"]["targets"]["wheel"]["only-include"]
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*_pb2*.py*")
    for name in ("pyproject.toml", config["tool"]["hatch"]["build"]["hooks"]["custom"]["path"],
                 config["project"]["readme"]):
        shutil.copy2(ROOT / name, destination / name)
    for name in [*included, "proto"]:
        shutil.copytree(ROOT / name, destination / name, ignore=ignore)
    return destination


def _build_flags() -> list[str]:
    """No build isolation when this environment has the build backend and the proto compiler (no download)."""
    local = all(importlib.util.find_spec(name) is not None for name in ("hatchling", "grpc_tools"))
    return ["--no-build-isolation"] if local else []


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pokertable's wheel, built from a copy of this checkout."""
    sources = _wheel_sources(tmp_path_factory.mktemp("sources"))
    dist = tmp_path_factory.mktemp("dist")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", *_build_flags(),
                            "--wheel-dir", str(dist), str(sources)],
                           capture_output=True, text=True, timeout=300, check=False)
    assert built.returncode == 0, built.stderr
    (found,) = dist.glob("pokertable-*.whl")
    return found


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _clashing_wheel(directory: Path) -> Path:
    """A distribution of someone else's with top-level ``service`` (and ``service.cli``), ``domain`` and
    ``devices`` packages, each saying whose it is."""
    files = {f"{name}/__init__.py": f'OWNER = "clash"\nNAME = "{name}"\n'.encode() for name in CLASH}
    files["service/cli.py"] = b'OWNER = "clash"\n'
    info = "clash_app-1.0.dist-info"
    files[f"{info}/METADATA"] = b"Metadata-Version: 2.1\nName: clash-app\nVersion: 1.0\n"
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: tests/support/packaging_support.py\n" \
                             b"Root-Is-Purelib: true\nTag: py3-none-any\n"
    record = [_record_line(name, data) for name, data in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    path = directory / "clash_app-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return path


class Venv:
    """A fresh virtual environment and the programs in it, run outside the checkout."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.bin = path / "bin"
        self.python = self.bin / "python"
        self.env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}

    def run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(list(args), capture_output=True, text=True, timeout=timeout, check=False,
                              cwd=self.path, env=self.env)

    def site_packages(self) -> Path:
        found = self.run(str(self.python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))")
        assert found.returncode == 0, found.stderr
        return Path(found.stdout.strip())


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Venv]:
    """A fresh environment with pokertable's wheel and the clashing distribution installed; the dependencies are
    this environment's (a path entry added after the install, so pip sees nothing of this environment)."""
    home = tmp_path_factory.mktemp("venv")
    created = subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(home)],
                             capture_output=True, text=True, timeout=120, check=False)
    assert created.returncode == 0, created.stderr
    fresh = Venv(home)
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(fresh.python), "install", "--quiet",
                                "--no-deps", "--no-index", str(_clashing_wheel(home)), str(wheel)],
                               capture_output=True, text=True, timeout=300, check=False)
    assert installed.returncode == 0, installed.stderr
    (fresh.site_packages() / "_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
    yield fresh
