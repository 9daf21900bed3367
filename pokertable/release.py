"""The release manifest and the installation's check against it (issue 29, item 3: the software checks itself).

The wheel's build (``hatch_build.py``) writes ``pokertable/MANIFEST.sha256``: a line ``SHA256  PATH`` for every
file the wheel installs under ``pokertable/`` (the launcher, and the program's packages under ``pokertable/_app/``),
sorted by path, the paths relative to the ``site-packages`` directory it is installed in -- the format of
``sha256sum``, so ``cd SITE-PACKAGES && sha256sum --check --quiet pokertable/MANIFEST.sha256`` checks the files
without pokertable.  The **release digest** is the SHA-256 of that file as shipped: one figure for the whole release,
printed by ``pokertable --version`` and ``pokertable verify-install`` and compared with the one published with the
release (``unzip -p pokertable-VERSION-py3-none-any.whl pokertable/MANIFEST.sha256 | sha256sum``).

:func:`verify_installation` hashes every file of the installed package tree and names the files **changed** (a
digest that differs, or a file that cannot be read), **missing** (listed, not there) and **added** (there, not
listed): any file outside the ``__pycache__`` directories -- a module, a compiled extension or a sourceless ``.pyc``
beside the sources would be imported, a template rendered -- and any link to a directory.  Python's caches
(``__pycache__/*.pyc``) are compiled on the machine for its own interpreter and cannot be listed in advance; Python
uses one only for a source of the same size and time, and ignores one without its source.

A development install (``pip install -e .``, as ``make`` does; a checkout on ``sys.path``) has no manifest: nothing
to check it against, which :func:`verify_installation` says (``development``) rather than raising a false alarm.  An
install from the wheel (its ``RECORD`` lists this package's files) without its manifest is a finding.

This module uses the standard library alone: the build hook loads it from the source tree, and ``pokertable
--version`` reads the manifest without importing the program.

>>> manifest = Manifest({"pokertable/b.py": "0" * 64, "pokertable/a.py": "f" * 64})
>>> print(manifest.text(), end="")
ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff  pokertable/a.py
0000000000000000000000000000000000000000000000000000000000000000  pokertable/b.py
>>> Manifest.parse(manifest.text()) == manifest
True
>>> manifest.digest == "sha256:" + hashlib.sha256(manifest.text().encode()).hexdigest()
True
>>> Manifest.parse("f" * 64 + "  ../etc/passwd\\n")
Traceback (most recent call last):
...
ValueError: line 1: not a path inside the installation: '../etc/passwd'
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path, PurePosixPath

__all__ = ["MANIFEST_NAME", "Installation", "Manifest", "file_digest", "release_line", "verify_installation",
           "version_text"]

MANIFEST_NAME = "MANIFEST.sha256"
"""The manifest's name in the ``pokertable`` package directory (installed as ``pokertable/MANIFEST.sha256``)."""
PACKAGE = Path(__file__).resolve().parent
"""The ``pokertable`` package directory this module belongs to."""
CACHE = "__pycache__"
_LINE = re.compile(r"([0-9a-f]{64})  (\S(?:.*\S)?)")
_CHUNK = 1 << 16


def file_digest(path: Path) -> str:
    """The SHA-256 of a file's bytes, in hexadecimal (``OSError`` if it cannot be read)."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass(frozen=True)
class Manifest:
    """What a release installs: each file's path (relative to ``site-packages``, with ``/``) and its SHA-256."""

    files: Mapping[str, str]

    def __post_init__(self) -> None:
        for path, digest in self.files.items():
            _check_path(path)
            if not re.fullmatch(r"[0-9a-f]{64}", digest):
                raise ValueError(f"{path}: not a SHA-256 in hexadecimal: {digest!r}")

    def text(self) -> str:
        """The canonical text: ``SHA256  PATH`` a line, sorted by path, each line ending with a newline."""
        return "".join(f"{self.files[path]}  {path}\n" for path in sorted(self.files))

    @property
    def digest(self) -> str:
        """The release digest: ``sha256:`` and the SHA-256 of the canonical text (the manifest file's bytes)."""
        return "sha256:" + hashlib.sha256(self.text().encode("utf-8")).hexdigest()

    @classmethod
    def parse(cls, text: str) -> Manifest:
        """Read a manifest's text; ``ValueError`` unless it is canonical (sorted, each path once, nothing else)."""
        files: dict[str, str] = {}
        previous = ""
        for number, line in enumerate(text.split("\n")[:-1] if text.endswith("\n") else [text], 1):
            found = _LINE.fullmatch(line)
            if found is None:
                raise ValueError(f"line {number}: not 'SHA256  PATH': {line[:80]!r}")
            digest, path = found.groups()
            try:
                _check_path(path)
            except ValueError as error:
                raise ValueError(f"line {number}: {error}") from None
            if path <= previous:
                raise ValueError(f"line {number}: {path} is out of order or listed twice")
            files[path], previous = digest, path
        return cls(files)

    @classmethod
    def of_files(cls, files: Iterable[tuple[str, Path]]) -> Manifest:
        """The manifest of ``(installed path, file)`` pairs: each file hashed (what the build does)."""
        return cls({path: file_digest(source) for path, source in files})


def _check_path(path: str) -> None:
    pure = PurePosixPath(path)
    if pure.is_absolute() or ".." in pure.parts or str(pure) != path or "\\" in path or "\n" in path:
        raise ValueError(f"not a path inside the installation: {path!r}")


@dataclass(frozen=True)
class Installation:
    """The installed package tree checked against its release manifest.

    ``development``: a development install, with no manifest to check against (nothing else is said then).
    ``problem``: the manifest is missing or cannot be read on an install from the wheel (a finding).
    ``release``: the release digest of the manifest found (``""`` without one)."""

    root: Path
    release: str = ""
    files: int = 0
    changed: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    problem: str = ""
    development: bool = False
    checked: tuple[str, ...] = field(default=(), repr=False)

    @property
    def intact(self) -> bool:
        """Every file listed is there with its digest, nothing else is, and the manifest was read."""
        return not (self.development or self.problem or self.changed or self.missing or self.added)

    def findings(self) -> list[str]:
        """Each finding, a line: ``changed: PATH``, ``missing: PATH``, ``added: PATH``, or the manifest's problem."""
        lines = [f"manifest: {self.problem}"] if self.problem else []
        for kind, paths in (("changed", self.changed), ("missing", self.missing), ("added", self.added)):
            lines.extend(f"{kind}: {path}" for path in paths)
        return lines

    def summary(self) -> str:
        """The finding in one line: the counts, or the manifest's problem."""
        if self.development:
            return "development install: no release manifest"
        if self.problem:
            return f"no usable release manifest: {self.problem}"
        if self.intact:
            return f"{self.files} files intact ({self.release})"
        return (f"the installation differs from its release manifest ({self.release}): {len(self.changed)} changed, "
                f"{len(self.missing)} missing, {len(self.added)} added")


def verify_installation(package: Path | None = None) -> Installation:
    """Check the ``pokertable`` package directory ``package`` (default: this one) against its release manifest."""
    package = (package or PACKAGE).resolve()
    root = package.parent
    manifest_path = package / MANIFEST_NAME
    if not manifest_path.is_file():
        if not installed_from_wheel(package):
            return Installation(root, development=True)
        return Installation(root, problem=f"{manifest_path} is missing (an install from the wheel ships one)")
    try:
        shipped = manifest_path.read_bytes()
        manifest = Manifest.parse(shipped.decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        return Installation(root, problem=f"{manifest_path} cannot be read: {error}")
    release = "sha256:" + hashlib.sha256(shipped).hexdigest()
    present = set(_installed_files(package, root))
    changed, missing = [], []
    for path, digest in sorted(manifest.files.items()):
        if path not in present:
            missing.append(path)
            continue
        try:
            if file_digest(root / path) != digest:
                changed.append(path)
        except OSError:  # unreadable: it cannot be vouched for
            changed.append(path)
    manifest_name = f"{package.name}/{MANIFEST_NAME}"
    added = sorted(present - set(manifest.files) - {manifest_name})
    return Installation(root, release=release, files=len(manifest.files), changed=tuple(changed),
                        missing=tuple(missing), added=tuple(added))


def _installed_files(package: Path, root: Path) -> Iterable[str]:
    """Every file under ``package`` (relative to ``root``, with ``/``) but Python's caches (``.pyc`` files in
    ``__pycache__``); a link to a directory is named with a trailing ``/`` (it is not followed)."""
    for directory, directories, files in os.walk(package):
        here = Path(directory)
        cache = here.name == CACHE
        for name in list(directories):
            if (here / name).is_symlink():
                directories.remove(name)
                yield (here / name).relative_to(root).as_posix() + "/"
        for name in files:
            if cache and name.endswith(".pyc"):
                continue
            yield (here / name).relative_to(root).as_posix()


def installed_from_wheel(package: Path | None = None) -> bool:
    """Whether ``package`` (default: this one) was installed from the wheel: a ``pokertable`` distribution in the
    same directory lists it in its ``RECORD``. An editable install lists only its path entry; a checkout has no
    distribution there."""
    package = (package or PACKAGE).resolve()
    listed = f"{package.name}/__init__.py"
    for distribution in metadata.distributions(path=[str(package.parent)]):
        if (distribution.metadata["Name"] or "").lower() != "pokertable":
            continue
        if any(str(entry).replace(os.sep, "/") == listed for entry in distribution.files or ()):
            return True
    return False


def release_line(package: Path | None = None) -> str:
    """What ``pokertable --version`` says of the release: ``release sha256:HEX`` (the manifest's digest, not a check
    of the files: ``pokertable verify-install`` does that), or why there is none."""
    package = (package or PACKAGE).resolve()
    try:
        shipped = (package / MANIFEST_NAME).read_bytes()
    except FileNotFoundError:
        if installed_from_wheel(package):
            return "release: NO MANIFEST (an install from the wheel ships one: pokertable verify-install)"
        return "release: development install (no release manifest)"
    except OSError as error:
        return f"release: the manifest cannot be read ({error.strerror})"
    return "release sha256:" + hashlib.sha256(shipped).hexdigest()


def version_text() -> str:
    """``pokertable --version``: the installed distribution's version, and on a second line :func:`release_line`."""
    try:
        version = metadata.version("pokertable")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        version = "unknown (not installed)"
    return f"pokertable {version}\n{release_line()}"
