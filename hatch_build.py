"""Build hook: generate the gRPC code of every proto/pokertable/v1/*.proto into service/api/ (never committed, never
edited by hand)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

PACKAGE = Path("pokertable/v1")


class CustomBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    """Run protoc (grpcio-tools) before every build, editable installs included."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        del version
        generate(Path(self.root))
        build_data.setdefault("artifacts", []).append("service/api/*_pb2*.py*")


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
