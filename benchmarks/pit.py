"""The pit's dashboard under a casino's load (issue 16): 200 tables dealt at a croupier's pace by simulated stations
(fold-to-the-big-blind Hold'em hands through pokertable.v1), with 20 dashboards open on the floor's stream.

A real service runs in its own process (``pokertable serve --http`` on a temporary SQLite file). Each dashboard is a
browser's session as the dashboard's script holds it: signed in, the floor's server-sent events stream open
(``/events/floor``), every row update parsed. Measured, in one run:

- **event to dashboard**: from a hand's ``StartHand`` sent by its table's station to each dashboard receiving the
  floor row with that hand's number (the issue's target: p99 under 250 ms);
- **the stations' commands** with no dashboard open and with the 20 open, in turns (target: the p99 no more than
  10 % worse). The dashboards run in a process of their own, as browsers do on their own machines: their parsing
  of the rows is not charged to the stations' client (both still share this machine's two cores with the service).

Then the shift report (issue 34, item 6; :mod:`benchmarks.shift_report`): ``GetShiftReport``'s reads at 13 and at
200 tables on logs of increasing size, beside the dashboard's earlier three questions a table, and what a week of
the floor's log would cost at the growth measured.

Run with ``.venv/bin/python -m benchmarks.pit [--tables 200] [--dashboards 20] [--seconds 20] [--pace 1.0]
[--report-tables 13 200] [--report-sizes 20000 60000 180000] [--report-only]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import grpc
import httpx

from benchmarks import shift_report
from benchmarks.service_load import CONFIG, TOKEN, Run, TablePlayer, p99, start
from service.api import table_service_pb2_grpc as svc_grpc

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


class StartsTimed(TablePlayer):
    """A table's station that notes when it sent each hand's ``StartHand``."""

    def __init__(self, *args: object, starts: dict[tuple[str, int], float],
                 wall: dict[tuple[str, int], float]) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.starts, self.wall = starts, wall

    async def command(self, method: str, request: object) -> None:
        if method == "StartHand":
            self.starts[(self.table, self.hands)] = time.perf_counter()
            self.wall[(self.table, self.hands)] = time.time()  # the browser's clock is the wall clock
        await super().command(method, request)


WATCH_ROWS = """() => {
  window.__rows = [];
  new MutationObserver((mutations) => {
    const now = Date.now();
    for (const mutation of mutations) {
      const cell = mutation.target.nodeType === 1 ? mutation.target : mutation.target.parentElement;
      if (cell && cell.dataset && cell.dataset.key === "hand") {
        window.__rows.push([cell.parentElement.dataset.table, Number(cell.textContent), now]);
      }
    }
  }).observe(document.getElementById("floor"), {subtree: true, childList: true, characterData: true});
}"""
"""Notes, in the page, when each row's hand number is drawn (the DOM updated by the dashboard's own script)."""


async def browser_dashboard(url: str, ready: asyncio.Event, stop: asyncio.Event,
                            wall: dict[tuple[str, int], float]) -> list[float]:
    """One dashboard in Debian's Chromium (Playwright): the floor page, each row's hand timed as it is drawn."""
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = await browser.new_page(base_url=url)
        await page.goto("/signin")
        await page.get_by_label("Station").fill("bench")
        await page.get_by_label("Token").fill(TOKEN)
        await page.get_by_role("button", name="Sign in").click()
        await page.wait_for_url(f"{url}/")
        await page.evaluate(WATCH_ROWS)
        connected = time.time()
        ready.set()
        await stop.wait()
        rows: list[list[Any]] = await page.evaluate("() => window.__rows")
        await browser.close()
    drawn: dict[tuple[str, int], float] = {}
    for table, hand, at in rows:
        drawn.setdefault((table, hand), at / 1000)
    return [at - wall[key] for key, at in drawn.items() if key in wall and wall[key] > connected]


async def dashboard(url: str, seen: dict[tuple[str, int], float], *, ready: asyncio.Event,
                    stop: asyncio.Event) -> int:
    """One dashboard: sign in as the pit boss, follow the floor, note when (wall clock) each hand's row first
    arrives; the number of rows received."""
    rows = 0
    async with httpx.AsyncClient(base_url=url, timeout=None) as http:
        await http.post("/signin", data={"station": "bench", "token": TOKEN})
        async with http.stream("GET", "/events/floor") as response:
            ready.set()
            event = ""
            async for line in response.aiter_lines():
                if stop.is_set():
                    break
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "rows":
                    now = time.time()
                    for row in json.loads(line[6:])["rows"]:
                        rows += 1
                        seen.setdefault((row["table"], row["hand"]), now)
    return rows


async def dashboards(url: str, count: int, seconds: float) -> None:
    """``count`` dashboards for ``seconds`` (in a process of their own, as browsers are: their parsing is not the
    stations' client's); prints "ready" once every stream is open, then each delivery as JSON lines: the
    dashboard's connection time and, per hand's row, when it arrived (wall clock)."""
    stop = asyncio.Event()
    readies = [asyncio.Event() for _ in range(count)]
    seen: list[dict[tuple[str, int], float]] = [{} for _ in range(count)]
    views = [asyncio.ensure_future(dashboard(url, seen[n], ready=readies[n], stop=stop)) for n in range(count)]
    await asyncio.gather(*(ready.wait() for ready in readies))
    await asyncio.sleep(1)  # each has had the whole floor: rows from now on are deliveries of new hands
    connected = time.time()
    print("ready", flush=True)
    await asyncio.sleep(seconds)
    stop.set()
    for view in views:
        view.cancel()
    for arrived in seen:
        print(json.dumps({"connected": connected, "rows": [[table, hand, at] for (table, hand), at in arrived.items()
                                                           if at > connected]}), flush=True)


async def paced(port: int, players: list[StartsTimed], seconds: float, pace: float) -> None:
    deadline = time.perf_counter() + seconds

    async def play(player: TablePlayer, offset: float) -> None:
        await asyncio.sleep(offset)
        while time.perf_counter() < deadline:
            await player.hand(pace)

    await asyncio.gather(*(play(p, i * pace / len(players)) for i, p in enumerate(players)))


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))] * 1000 if ordered else float("nan")


async def watched_phase(url: str, args: argparse.Namespace, port: int, players: list[StartsTimed], *,
                        run: Run, wall: dict[tuple[str, int], float], latencies: list[float]) -> None:
    """The stations' commands with ``args.dashboards`` dashboards open (in their own process) for one phase; each
    hand's delivery to each dashboard appended to ``latencies`` (seconds, StartHand sent to the row received)."""
    for player in players:
        player.run = run
    phase = args.seconds / args.rounds
    viewers = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "benchmarks.pit", "--dashboards-of", url, "--dashboards", str(args.dashboards),
        "--seconds", str(phase + 0.5), stdout=asyncio.subprocess.PIPE)
    assert viewers.stdout is not None
    while (await viewers.stdout.readline()).strip() != b"ready":
        pass
    started = time.perf_counter()
    await paced(port, players, phase, args.pace)
    run.seconds += time.perf_counter() - started
    out, _ = await viewers.communicate()
    for line in out.decode().splitlines():
        delivered = json.loads(line)
        latencies.extend(at - wall[(table, hand)] for table, hand, at in delivered["rows"]
                         if (table, hand) in wall and wall[(table, hand)] > delivered["connected"])


async def measure(port: int, url: str, args: argparse.Namespace) -> None:
    starts: dict[tuple[str, int], float] = {}
    wall: dict[tuple[str, int], float] = {}
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = svc_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        alone, watched = Run("commands, no dashboard open"), Run(f"commands, {args.dashboards} dashboards open")
        players = [StartsTimed(stub, f"Mesa {n:03}", alone, starts=starts, wall=wall)
                   for n in range(1, args.tables + 1)]
        for group in range(0, len(players), 20):
            await asyncio.gather(*(player.open() for player in players[group:group + 20]))
        await asyncio.sleep(3)  # the floor has found every table
        latencies: list[float] = []
        # Without and with the dashboards, in turns (the store grows and the machine's load drifts during a run:
        # each way sees the same share of it)
        for _ in range(args.rounds):
            for player in players:
                player.run = alone
            started = time.perf_counter()
            await paced(port, players, args.seconds / args.rounds, args.pace)
            alone.seconds += time.perf_counter() - started
            await watched_phase(url, args, port, players, run=watched, wall=wall, latencies=latencies)
        # Then with a real browser's page (on these same two cores, so its commands are not the target's)
        browser, drawn = Run("commands, Chromium on this machine"), []
        if Path(CHROMIUM).exists():
            for player in players:
                player.run = browser
            shown, seen = asyncio.Event(), asyncio.Event()
            in_browser = asyncio.ensure_future(browser_dashboard(url, shown, seen, wall))
            await shown.wait()
            started = time.perf_counter()
            await paced(port, players, args.seconds / args.rounds, args.pace)
            browser.seconds = time.perf_counter() - started
            seen.set()
            drawn = await in_browser
    print(f"pokertable pit dashboard benchmark: {args.tables} tables, a command every {args.pace:g} s each "
          f"(a croupier's pace), {args.seconds:g} s each way in {args.rounds} turns; SQLite; the dashboards in a "
          "process of their own")
    print(alone.line())
    print(watched.line())
    ratio = p99(watched) / p99(alone)
    print(f"  the stations' p99 with {args.dashboards} dashboards open: {ratio:.2f}× the p99 with none "
          f"(target ≤ 1.10: {'met' if ratio <= 1.10 else 'MISSED'}); p50 "
          f"{percentile(watched.latencies, 0.5) / percentile(alone.latencies, 0.5):.2f}×")
    print(f"  event to dashboard (StartHand sent -> the floor row with that hand received), {len(latencies)} "
          f"deliveries to {args.dashboards} dashboards' streams: p50 {percentile(latencies, 0.5):.1f} ms  "
          f"p99 {percentile(latencies, 0.99):.1f} ms (target < 250 ms: "
          f"{'met' if percentile(latencies, 0.99) < 250 else 'MISSED'})")
    if drawn:
        print(browser.line())
        print(f"  event to browser (StartHand sent -> the row's hand drawn in Chromium's DOM by the page's script), "
              f"{len(drawn)} rows: p50 {percentile(drawn, 0.5):.1f} ms  p99 {percentile(drawn, 0.99):.1f} ms "
              f"(target < 250 ms: {'met' if percentile(drawn, 0.99) < 250 else 'MISSED'})")
    else:
        print("  event to browser: not measured (Debian's chromium is not installed)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--dashboards", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20.0, help="each way: without, then with the dashboards")
    parser.add_argument("--pace", type=float, default=1.0, help="seconds between a table's commands")
    parser.add_argument("--rounds", type=int, default=2, help="turns without and with the dashboards")
    parser.add_argument("--dashboards-of", metavar="URL", help=argparse.SUPPRESS)  # the dashboards' own process
    parser.add_argument("--report-tables", type=int, nargs="*", default=[13, 200],
                        help="the shift report measured at these numbers of tables (none: not measured)")
    parser.add_argument("--report-sizes", type=int, nargs="+", default=[20_000, 60_000, 180_000],
                        help="the logs' sizes (events) the shift report is measured at")
    parser.add_argument("--report-only", action="store_true", help="the shift report alone, not the live floor")
    args = parser.parse_args()
    if args.dashboards_of:
        asyncio.run(dashboards(args.dashboards_of, args.dashboards, args.seconds))
        return
    if not args.report_only:
        floor(args)
    if args.report_tables:
        shift_report.run(args.report_tables, args.report_sizes, window=20, repeats=5)


def floor(args: argparse.Namespace) -> None:
    """The live floor at ``args.tables`` tables with ``args.dashboards`` dashboards open."""
    with tempfile.TemporaryDirectory() as tmp:
        stations = Path(tmp) / "stations.toml"
        stations.write_text(CONFIG, encoding="utf-8")
        stations.chmod(0o600)  # station tokens in clear: its owner's only (issue 32)
        process, port = start([sys.executable, "-m", "service.cli", "serve", "--db", f"sqlite:///{tmp}/pit.db",
                               "--port", "0", "--config", str(stations), "--http", "127.0.0.1:0"])
        try:
            assert process.stdout is not None
            while "pit dashboard on" not in (line := process.stdout.readline()):
                if not line:
                    raise RuntimeError("the service stopped before its dashboard listened")
            url = re.sub(r"/$", "", line.split(" on ", 1)[1].strip())
            asyncio.run(measure(port, url, args))
        finally:
            process.terminate()
            process.wait(timeout=10)


if __name__ == "__main__":
    main()
