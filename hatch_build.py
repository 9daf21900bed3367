"""Build hook: generate the gRPC code of every proto/pokertable/v1/*.proto into service/api/ (never committed, never
edited by hand), and give the wheel its release manifest, ``pokertable/MANIFEST.sha256`` (every file the wheel installs
and its SHA-256: ``pokertable verify-install`` checks the installation against it; pokertable/release.py)."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

PACKAGE = Path("pokertable/v1")


class CustomBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    """Run protoc (grpcio-tools) before every build, editable installs included; a wheel (not an editable install,
    which has no files of its own to list) also gets its release manifest."""

    _manifest_directory: Path | None = None

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        generate(Path(self.root))
        build_data.setdefault("artifacts", []).append("service/api/*_pb2*.py*")
        self.app.display_info(f"hand-ranking tables: SHA-256 {write_ranking_tables(Path(self.root))}")
        build_data["artifacts"].append("service/store/*.tables")
        if self.target_name == "wheel" and version == "standard":
            self._manifest_directory = Path(tempfile.mkdtemp(prefix="pokertable-manifest-"))
            manifest = self._manifest_directory / "MANIFEST.sha256"
            digest = write_manifest(self.build_config.builder, build_data, manifest, Path(self.root))
            build_data.setdefault("force_include", {})[str(manifest)] = RELEASE_MANIFEST
            self.app.display_info(f"pokertable release digest: {digest} ({RELEASE_MANIFEST})")

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        del version, build_data, artifact_path
        if self._manifest_directory is not None:
            shutil.rmtree(self._manifest_directory, ignore_errors=True)
            self._manifest_directory = None


RELEASE_MANIFEST = "pokertable/MANIFEST.sha256"
"""Where the wheel keeps its manifest (pokertable/release.py's ``MANIFEST_NAME`` in the ``pokertable`` package)."""


def _release_module(root: Path) -> ModuleType:
    """pokertable/release.py of the sources being built (the manifest's one format, shared with its check)."""
    name = "_pokertable_release_for_build"
    spec = importlib.util.spec_from_file_location(name, root / "pokertable" / "release.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module


def write_manifest(builder: Any, build_data: dict[str, Any], target: Path, root: Path) -> str:
    """Write the manifest of every file the wheel will hold (hatchling's own selection, with this build's generated
    artifacts) to ``target``; return the release digest. The files are listed by their path in the wheel, which is
    their path under ``site-packages`` once installed."""
    release = _release_module(root)
    assert Path(RELEASE_MANIFEST).name == release.MANIFEST_NAME
    with builder.config.set_build_data({"artifacts": [], "force_include": {}, **build_data}):
        files = [(included.distribution_path.replace("\\", "/"), Path(included.path))
                 for included in builder.recurse_included_files()]
    outside = [path for path, _ in files if not path.startswith("pokertable/")]
    if outside:
        raise RuntimeError(f"the wheel would install files outside pokertable/, which its manifest cannot cover: "
                           f"{outside[:5]}")
    manifest = release.Manifest.of_files((path, source) for path, source in files if path != RELEASE_MANIFEST)
    target.write_text(manifest.text(), encoding="utf-8", newline="\n")
    return str(manifest.digest)


def write_ranking_tables(root: Path) -> str:
    """Build the 52-card deck's hand-ranking tables and write them into service/store/ (its ranking_tables.py:
    a service's start reads them back in milliseconds instead of building them, 1.4 s), in a process of its own
    (the sources' modules stay out of the build's); their SHA-256."""
    write = "from service.store.ranking_tables import write; print(write())"
    done = subprocess.run([sys.executable, "-c", write], cwd=root, capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1",  # the build environment's paths too
                               "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))})
    if done.returncode != 0:
        raise RuntimeError(f"the hand-ranking tables could not be written: {done.stderr.strip()}")
    return done.stdout.strip()


def generate(root: Path) -> None:
    """Write service/api/<name>_pb2.py, .pyi and <name>_pb2_grpc.py for each proto file of pokertable.v1.

    google/protobuf/*.proto (Timestamp, Struct) come from grpc_tools' bundled include directory; the generated code
    imports them from the protobuf package.  The files import each other as ``pokertable/v1/x.proto``, which the
    generated code reads as ``from pokertable.v1 import x_pb2``: rewritten to ``from service.api import x_pb2``."""
    import grpc_tools
    from grpc_tools import protoc

    out = root / "service" / "api"
    out.mkdir(exist_ok=True)
    (out / "__init__.py").touch()
    for stale in out.glob("*_pb2*.py*"):  # a proto file removed or renamed leaves no module behind
        stale.unlink()
    proto_dir = root / "proto"
    protos = sorted((proto_dir / PACKAGE).glob("*.proto"))
    if not protos:
        raise RuntimeError(f"no .proto file in {proto_dir / PACKAGE}")
    bundled = Path(grpc_tools.__file__).parent / "_proto"
    status = protoc.main([
        "grpc_tools.protoc", f"-I{proto_dir}", f"-I{bundled}", f"--python_out={out}", f"--pyi_out={out}",
        f"--grpc_python_out={out}", *map(str, protos),
    ])
    if status != 0:
        raise RuntimeError(f"protoc failed with status {status}")
    nested = out / PACKAGE
    for generated in nested.glob("*_pb2*"):
        text = generated.read_text(encoding="utf-8")
        text = re.sub(r"from pokertable\.v1 import", "from service.api import", text)
        (out / generated.name).write_text(text, encoding="utf-8")
        generated.unlink()
    for directory in (nested, nested.parent):
        directory.rmdir()
