"""Build hook: generate the gRPC code from proto/ into service/api/ (never committed, never edited by hand)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

PROTO = Path("pokertable/v1/pokertable.proto")


class CustomBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    """Run protoc (grpcio-tools) before every build, editable installs included."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        del version
        generate(Path(self.root))
        build_data.setdefault("artifacts", []).append("service/api/*_pb2*.py*")


def generate(root: Path) -> None:
    """Write service/api/pokertable_pb2.py, .pyi and pokertable_pb2_grpc.py from the proto file."""
    from grpc_tools import protoc

    out = root / "service" / "api"
    out.mkdir(exist_ok=True)
    (out / "__init__.py").touch()
    proto_dir = root / "proto"
    status = protoc.main([
        "grpc_tools.protoc", f"-I{proto_dir}", f"--python_out={out}", f"--pyi_out={out}",
        f"--grpc_python_out={out}", str(proto_dir / PROTO),
    ])
    if status != 0:
        raise RuntimeError(f"protoc failed with status {status}")
    nested = out / "pokertable" / "v1"
    for generated in nested.glob("pokertable_pb2*"):
        text = generated.read_text(encoding="utf-8")
        text = re.sub(r"from pokertable\.v1 import", "from service.api import", text)
        (out / generated.name).write_text(text, encoding="utf-8")
        generated.unlink()
    for directory in (nested, nested.parent):
        directory.rmdir()
