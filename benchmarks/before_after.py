"""Before and after a change, in one run: each named benchmark is run in a checkout of the version before (its own
virtual environment) and in this one, alternately, and every figure is printed side by side with its ratio.

The machine is noisy, so figures are compared within one run, never with numbers remembered from another day. A
line of output is matched with the line of the other run that reads the same once its numbers are blanked out; its
numbers are then printed before → after, with after/before. Whether higher is better is the reader's call (a line
says what it measures: per second, ms, ×).

Run with ``.venv/bin/python -m benchmarks.before_after --before /path/to/old/checkout [NAME[:ARGS] ...]``,
e.g. ``evaluator:--hands=100000 circle service devices replay:--events=20000``. The old checkout needs its
``.venv`` (``make .venv/.installed`` there).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import time
from pathlib import Path

NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?")
DEFAULT = ["evaluator", "circle", "service", "devices", "replay"]


def run(checkout: Path, name: str, extra: list[str]) -> tuple[list[str], float]:
    """The benchmark's output lines in ``checkout`` (with that checkout's interpreter) and its wall time."""
    python = checkout / ".venv" / "bin" / "python"
    started = time.perf_counter()
    done = subprocess.run([str(python), "-m", f"benchmarks.{name}", *extra], cwd=checkout, capture_output=True,
                          text=True, timeout=3600, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{name} failed in {checkout}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return done.stdout.splitlines(), time.perf_counter() - started


def shape(line: str) -> str:
    return NUMBER.sub("#", line).strip()


def numbers(line: str) -> list[float]:
    return [float(text.replace(",", "")) for text in NUMBER.findall(line)]


def compare(before: list[str], after: list[str]) -> list[str]:
    """Each line of ``after`` with numbers, against the first unused line of ``before`` of the same shape."""
    pool: dict[str, list[str]] = {}
    for line in before:
        pool.setdefault(shape(line), []).append(line)
    out = []
    for line in after:
        values = numbers(line)
        if not values:
            continue
        match = pool.get(shape(line))
        if not match:
            out.append(f"   (new) {line.strip()}")
            continue
        old = numbers(match.pop(0))
        pairs = []
        for was, now in zip(old, values, strict=True):
            if was == now:
                continue
            ratio = f"{now / was:.2f}" if was else "-"
            pairs.append(f"{was:g} → {now:g} ({ratio})")
        out.append(f"   {line.strip()}\n      {'; '.join(pairs) if pairs else 'unchanged'}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="a checkout of the version before, with .venv")
    parser.add_argument("benchmarks", nargs="*", default=DEFAULT, help="NAME or NAME:ARG,ARG (default: %(default)s)")
    args = parser.parse_args()
    here = Path(__file__).resolve().parents[1]
    for spec in args.benchmarks:
        name, _, extra = spec.partition(":")
        options = [option for option in extra.split(",") if option]
        old, old_time = run(args.before, name, options)
        new, new_time = run(here, name, options)
        print(f"== {name} {' '.join(options)}: before {old_time:.0f} s, after {new_time:.0f} s (one run each, "
              f"alternately)")
        print("\n".join(compare(old, new)), flush=True)


if __name__ == "__main__":
    main()
