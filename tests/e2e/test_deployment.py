"""The container image and the systemd unit (issue 17, item 7): docs/ops/Dockerfile and docs/ops/pokertable.service.

What can be checked without running them is checked here: the image's stages, its unprivileged user, its volumes
and health check, that it copies what the wheel is built from (pyproject.toml's only-include and the build hook's
inputs) and nothing its ignore file leaves out; every POKERTABLE_* variable either sets is a setting pokertable
serve knows, with a value it takes; the health check's command, run as Docker runs it, says 0 to a serving service
and 1 to nothing; the unit's keys, ``systemd-analyze verify`` and its offline security score.  Building and running
the image needs a Docker daemon: without one that test is a visible skip naming why."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
import tomllib
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from service.cli.settings import ENV_PREFIX, KEYS
from tests.support.grpc_support import health_service

ROOT = Path(__file__).resolve().parents[2]
OPS = ROOT / "docs" / "ops"
DOCKERFILE = OPS / "Dockerfile"
UNIT = OPS / "pokertable.service"
SCRIPT = shutil.which("pokertable", path=str(Path(sys.executable).parent)) or "pokertable"


# -- the Dockerfile ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Instruction:
    name: str
    args: str


def _instructions(path: Path) -> list[Instruction]:
    """The Dockerfile's instructions, continuation lines joined, comments and the parser directive left out."""
    logical, current = [], ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not current and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):  # a comment inside a continued instruction
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        logical.append(current + line)
        current = ""
    assert not current, "a continuation line ends the file"
    return [Instruction(text.split(None, 1)[0].upper(), text.split(None, 1)[1] if " " in text else "")
            for text in logical]


def _stages(instructions: list[Instruction]) -> list[list[Instruction]]:
    stages: list[list[Instruction]] = []
    for instruction in instructions:
        if instruction.name == "FROM":
            stages.append([])
        if stages:
            stages[-1].append(instruction)
    return stages


def _env(stage: list[Instruction]) -> dict[str, str]:
    values: dict[str, str] = {}
    for instruction in stage:
        if instruction.name == "ENV":
            for pair in shlex.split(instruction.args):
                name, _, value = pair.partition("=")
                values[name] = value
    return values


def _final() -> list[Instruction]:
    return _stages(_instructions(DOCKERFILE))[-1]


def _one(stage: list[Instruction], name: str) -> str:
    found = [instruction.args for instruction in stage if instruction.name == name]
    assert len(found) == 1, f"{name}: {found}"
    return found[0]


def test_the_image_builds_the_wheel_then_installs_it_in_a_slim_python_3_11() -> None:
    instructions = _instructions(DOCKERFILE)
    default = next(i.args for i in instructions if i.name == "ARG" and i.args.startswith("PYTHON_IMAGE="))
    assert re.fullmatch(r"PYTHON_IMAGE=python:3\.11-slim(-\w+)?", default)
    build, final = _stages(instructions)
    assert build[0].args == "${PYTHON_IMAGE} AS build"
    assert final[0].args == "${PYTHON_IMAGE}"
    assert any(i.name == "RUN" and "pip wheel --wheel-dir /wheels ." in i.args for i in build)
    install = " ".join(i.args for i in final if i.name == "RUN")
    assert "from=build,source=/wheels" in install  # the wheels are mounted, not copied into a layer
    assert "pip install --no-index --find-links /wheels pokertable" in install
    assert not any(i.name in ("COPY", "ADD") for i in final)  # nothing of the sources in the image
    assert _one(final, "ENTRYPOINT") == '["pokertable"]'
    assert _one(final, "CMD") == '["serve"]'
    assert _one(final, "STOPSIGNAL") == "SIGTERM"
    assert "50051" in _one(final, "EXPOSE").split()


def test_the_image_runs_as_an_unprivileged_user() -> None:
    final = _final()
    user = _one(final, "USER")
    name, _, group = user.partition(":")
    assert name not in ("root", "0") and group not in ("root", "0")
    assert name.isdigit(), "a numeric uid, so that runAsNonRoot can check it"
    created = " ".join(i.args for i in final if i.name == "RUN")
    assert f"useradd --system --uid {name} " in created
    assert f"groupadd --system --gid {group or name} " in created
    # the user is the last word: nothing after it runs as root
    assert [i.name for i in final].index("USER") > max(n for n, i in enumerate(final) if i.name == "RUN")


def test_the_database_and_the_signing_key_are_on_volumes_of_their_own() -> None:
    final = _final()
    volumes = [Path(v) for v in shlex.split(_one(final, "VOLUME").strip("[]").replace(",", " "))]
    env = _env(final)
    database = Path(env["POKERTABLE_DB"].removeprefix("sqlite:///"))
    key = Path(env["POKERTABLE_SIGNING_KEY"])
    (data,) = [v for v in volumes if database.is_relative_to(v)]
    (keys,) = [v for v in volumes if key.is_relative_to(v)]
    assert data != keys
    created = " ".join(i.args for i in final if i.name == "RUN")
    assert f"-o pokertable -g pokertable -m 0700 {data} {keys}" in created  # the user's own, before it is a volume


def test_every_setting_of_the_image_and_the_unit_is_one_serve_takes() -> None:
    unit = _unit()
    variables = {**_env(_final()),
                 **dict(v.split("=", 1) for v in unit["Service"].get("Environment", []))}
    settings = {name: value for name, value in variables.items() if name.startswith(ENV_PREFIX)}
    assert {"POKERTABLE_CONFIG", "POKERTABLE_DB", "POKERTABLE_HOST", "POKERTABLE_PORT"} <= set(settings)
    for name, value in settings.items():
        if name == ENV_PREFIX + "CONFIG":
            assert Path(value).is_absolute()
            continue
        key = KEYS.get(name.removeprefix(ENV_PREFIX).lower())
        assert key is not None, f"{name} is not a setting of pokertable serve"
        key.parse(value)  # raises on a value serve would refuse


def test_the_image_copies_what_the_wheel_is_built_from_and_the_context_holds_it() -> None:
    build = _stages(_instructions(DOCKERFILE))[0]
    sources = {part.rstrip("/") for i in build if i.name == "COPY" for part in shlex.split(i.args)[:-1]}
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    needed = {*config["tool"]["hatch"]["build"]["targets"]["wheel"]["only-include"], "pyproject.toml",
              config["tool"]["hatch"]["build"]["hooks"]["custom"]["path"], config["project"]["readme"], "proto"}
    assert needed <= sources, f"not copied: {needed - sources}"
    for source in sources:
        assert (ROOT / source).exists(), source
    lines = (OPS / "Dockerfile.dockerignore").read_text(encoding="utf-8").splitlines()
    ignored = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    assert ignored[0] == "*"  # everything left out but what is named
    assert {f"!{source}" for source in sources} <= set(ignored), "the context leaves out something the image copies"


def test_the_health_check_is_0_for_a_serving_service_and_1_for_none() -> None:
    check = _one(_final(), "HEALTHCHECK")
    options, _, command = check.partition(" CMD ")
    assert "pokertable health" in command
    assert re.search(r"--start-period=(\d+)s", options)  # the hand-ranking tables are built before SERVING
    environment = {**os.environ, "PATH": f"{Path(SCRIPT).parent}{os.pathsep}{os.environ.get('PATH', '')}"}

    def run(port: int) -> subprocess.CompletedProcess[str]:  # as Docker runs a CMD given as a string
        return subprocess.run(["/bin/sh", "-c", command], capture_output=True, text=True, timeout=60, check=False,
                              env={**environment, "POKERTABLE_PORT": str(port)})

    ready = threading.Event()
    ready.set()
    with health_service(ready) as port:
        deadline = time.monotonic() + 60
        while (healthy := run(port)).returncode != 0 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert healthy.returncode == 0, healthy.stderr
        assert "SERVING" in healthy.stdout
    gone = run(port)
    assert gone.returncode == 1, gone.stdout
    assert "UNAVAILABLE" in gone.stderr


def _docker() -> str:
    """Why the image cannot be built here ('' when it can)."""
    if shutil.which("docker") is None:
        return "docker is not installed"
    info = subprocess.run(["docker", "info"], capture_output=True, text=True, timeout=60, check=False)
    if info.returncode != 0:
        reason = (info.stderr.strip().splitlines() or ["docker info failed"])[-1]
        return f"no Docker daemon answers here (docker info: {reason})"
    return ""


@pytest.fixture
def image() -> Iterator[str]:
    why = _docker()
    if why:
        pytest.skip(f"the image is not built: {why}")
    tag = f"pokertable-test:{uuid.uuid4().hex[:8]}"
    built = subprocess.run(["docker", "build", "-f", str(DOCKERFILE), "-t", tag, str(ROOT)],
                           capture_output=True, text=True, timeout=1200, check=False)
    assert built.returncode == 0, built.stderr[-4000:]
    try:
        yield tag
    finally:
        subprocess.run(["docker", "rmi", "-f", tag], capture_output=True, timeout=120, check=False)


@pytest.mark.build
def test_the_image_serves_healthy_as_its_user_and_stops_cleanly(image: str, tmp_path: Path) -> None:
    def docker(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout, check=False)

    version = docker("run", "--rm", image, "--version")
    assert re.fullmatch(r"pokertable \S+\nrelease sha256:[0-9a-f]{64}\n", version.stdout), version.stderr
    verified = docker("run", "--rm", image, "verify-install")  # the image's installation, as the wheel shipped it
    assert verified.returncode == 0 and verified.stdout == version.stdout.split("\n", 1)[1], verified.stderr
    uid = docker("run", "--rm", "--entrypoint", "id", image, "-u")
    assert uid.stdout.strip() not in ("", "0"), uid.stderr
    config = tmp_path / "pokertable.toml"
    config.write_text('[stations.pit]\ntoken = "pit-boss-token-0123456789"\nrole = "pit-boss"\n', encoding="utf-8")
    config.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    config.chmod(0o644)
    name = f"pokertable-test-{uuid.uuid4().hex[:8]}"
    started = docker("run", "-d", "--name", name, "--health-interval", "1s", "--health-start-period", "120s",
                     "-v", f"{config}:/etc/pokertable/pokertable.toml:ro", image)
    assert started.returncode == 0, started.stderr
    try:
        deadline, status = time.monotonic() + 120, ""
        while status != "healthy" and time.monotonic() < deadline:
            time.sleep(1)
            status = docker("inspect", "--format", "{{.State.Health.Status}}", name).stdout.strip()
        assert status == "healthy", docker("logs", name).stderr[-4000:]
        docker("stop", "--time", "30", name, timeout=60)
        exit_code = docker("inspect", "--format", "{{.State.ExitCode}}", name).stdout.strip()
        assert exit_code == "0", docker("logs", name).stderr[-4000:]
    finally:
        docker("rm", "-f", "-v", name)


# -- the systemd unit ----------------------------------------------------------------------------------------------

def _unit(path: Path = UNIT) -> dict[str, dict[str, list[str]]]:
    """The unit's sections and keys, each key's values in order (a key may repeat, as Environment= does)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] | None = None
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        assert current is not None, f"a key before any section: {line}"
        key, equals, value = line.partition("=")
        assert equals, f"not a key=value line: {line}"
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def test_the_unit_runs_serve_as_its_own_user_restarts_on_failure_and_stops_by_sigterm() -> None:
    keys = _unit()["Service"]

    def one(key: str) -> str:
        assert len(keys.get(key, [])) == 1, f"{key}: {keys.get(key)}"
        return keys[key][0]

    assert one("User") == "pokertable" and one("Group") == "pokertable"
    assert one("ExecStart").endswith("/bin/pokertable serve")
    assert one("Restart") == "on-failure"
    assert one("RestartPreventExitStatus") == "2"  # a setting or the database that cannot be used
    assert one("KillSignal") == "SIGTERM"
    grace = KEYS["grace"].default
    assert int(one("TimeoutStopSec")) >= grace + 10  # the calls in flight, then the head signed, before SIGKILL
    assert one("NoNewPrivileges") == "yes"
    assert one("ProtectSystem") == "strict"
    assert one("ProtectHome") == "yes"
    assert one("PrivateTmp") == "yes"
    assert one("CapabilityBoundingSet") == ""
    environment = dict(v.split("=", 1) for v in keys["Environment"])
    database = Path(environment["POKERTABLE_DB"].removeprefix("sqlite:///"))
    key = Path(environment["POKERTABLE_SIGNING_KEY"])
    writable = [Path(p) for p in one("ReadWritePaths").split()]
    assert any(database.parent == p for p in writable), "the database's directory is not writable"
    assert any(key.parent == p for p in writable), "the signing key's directory is not writable"
    assert {f"/var/lib/{name}" for name in one("StateDirectory").split()} == {str(p) for p in writable}
    assert database.parent != key.parent
    assert one("StateDirectoryMode") == "0700"
    assert _unit()["Install"]["WantedBy"] == ["multi-user.target"]


def _systemd_analyze() -> str:
    found = shutil.which("systemd-analyze")
    if found is None:
        pytest.skip("systemd-analyze is not installed here: the unit is checked by its keys only")
    return found


def _runnable_copy(tmp_path: Path) -> Path:
    """The unit with ExecStart on this environment's pokertable (verify checks the program is there)."""
    text = UNIT.read_text(encoding="utf-8")
    program = re.search(r"^ExecStart=(\S+)", text, re.M)
    assert program is not None
    copy = tmp_path / UNIT.name
    copy.write_text(text.replace(program.group(1), str(Path(SCRIPT).resolve())), encoding="utf-8")
    return copy


def test_systemd_analyze_verifies_the_unit(tmp_path: Path) -> None:
    analyze = _systemd_analyze()
    copy = _runnable_copy(tmp_path)
    verified = subprocess.run([analyze, "verify", "--man=no", copy.name], capture_output=True, text=True,
                              timeout=60, check=False, cwd=tmp_path)
    assert verified.returncode == 0, verified.stderr
    assert verified.stderr.strip() == "" and verified.stdout.strip() == "", verified.stderr + verified.stdout
    # and it sees a unit whose program does not exist
    missing = tmp_path / "missing" / UNIT.name
    missing.parent.mkdir()
    missing.write_text(copy.read_text(encoding="utf-8").replace(str(Path(SCRIPT).resolve()), "/nonexistent/x"),
                       encoding="utf-8")
    refused = subprocess.run([analyze, "verify", "--man=no", UNIT.name], capture_output=True, text=True, timeout=60,
                             check=False, cwd=missing.parent)
    assert refused.returncode != 0 and "/nonexistent/x" in refused.stderr


def test_the_unit_is_well_confined_by_systemd_s_own_measure(tmp_path: Path) -> None:
    analyze = _systemd_analyze()
    copy = _runnable_copy(tmp_path)
    scored = subprocess.run([analyze, "security", "--offline=yes", "--no-pager", copy.name], capture_output=True,
                            text=True, timeout=60, check=False, cwd=tmp_path)
    if "--offline" in scored.stderr and scored.returncode != 0:
        pytest.skip(f"this systemd-analyze scores no unit file offline: {scored.stderr.strip()}")
    exposure = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", scored.stdout)
    assert exposure is not None, scored.stdout + scored.stderr
    assert float(exposure.group(1)) <= 2.0, scored.stdout  # 0 to 10; systemd calls below 4 "OK"
    assert "Unknown key" not in scored.stderr, scored.stderr
