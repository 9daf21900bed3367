"""Issue 14 (acceptance): the service tells games apart through ``domain.games``, never by name —
``git grep -n "holdem-bonus\\|casino-draw" service/`` finds only the command line's argument texts."""

from __future__ import annotations

import ast
import shutil
import subprocess
from pathlib import Path

import pytest

from domain.games import GAMES

ROOT = Path(__file__).resolve().parents[2]
BANKED_CODES = sorted(code for code, game in GAMES.items() if game.family == "banked")


def _argparse_lines(path: Path) -> set[int]:
    """The lines of a module's argparse texts: an argument's ``choices=`` and ``help=``, a command's or an argument
    group's ``help=`` and ``description=`` (the module's docstring when it is their ``description=__doc__``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstring = tree.body[0] if tree.body and isinstance(tree.body[0], ast.Expr) else None
    lines: set[int] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("add_argument", "add_parser", "add_argument_group")):
            continue
        for keyword in node.keywords:
            if keyword.arg not in ("choices", "help", "description"):
                continue
            value: ast.expr | ast.stmt = keyword.value
            if isinstance(value, ast.Name) and value.id == "__doc__" and docstring is not None:
                value = docstring
            lines.update(range(value.lineno, (value.end_lineno or value.lineno) + 1))
    return lines


def test_issue_14_the_service_names_a_banked_game_only_in_the_clis_argument_choices() -> None:
    """``git grep -n "holdem-bonus\\|casino-draw" service/`` finds only argparse choices (and their help texts) of
    the command line (service/cli/) or the stations (service/station/): the service tells games apart through
    ``domain.games``, never by name."""
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    found = subprocess.run([git, "grep", "-n", "\\|".join(BANKED_CODES), "--", "service/"], cwd=ROOT,
                           capture_output=True, text=True, check=False)
    assert found.returncode in (0, 1), found.stderr  # 1: nothing found
    hits = [line.split(":", 2) for line in found.stdout.splitlines()]
    assert all(len(hit) == 3 for hit in hits), found.stdout
    offences = []
    allowed: dict[str, set[int]] = {}
    for path, number, text in hits:
        if not path.startswith(("service/cli/", "service/station/")):
            offences.append(f"{path}:{number}: {text.strip()}")
            continue
        if path not in allowed:
            allowed[path] = _argparse_lines(ROOT / path)
        if int(number) not in allowed[path]:
            offences.append(f"{path}:{number}: {text.strip()}")
    assert offences == []
