"""What people cost (issue 32): a command with its person checked and every event attributed, beside the same
command from a station acting alone (the service as it was before), and what a sign-in costs.

Two services run side by side, each as ``pokertable serve`` runs it, in its own process, on the same kind of store:
one whose staff are not in force (a station's token is enough: today's path), one where an administrator enrolled a
pit boss who signed in at the bench's station (every call presents his session: the service checks it, the command's
unit of work checks his record and his station's again, and every event is stamped with him and the station). The
same client plays fold-to-the-big-blind Hold'em hands (``StartHand``, six deals, two folds) on each, one command
after another; the servers take turns, ``--calls`` commands each, for ``--rounds`` rounds, so that a slow spell of
the machine falls on both. Printed: each server's commands per second, p50 and p99, their ratio, and each round's
figures beside the store's size then (the check reads cached records: it should not grow with the log).

Then ``--sign-ins`` sign-ins one after another (badge and PIN, Argon2id at RFC 9106's low-memory profile) and as
many wrong PINs: their p50 and p99 (a wrong PIN costs the same check, and is recorded).

Run with ``.venv/bin/python -m benchmarks.attribution [--postgres URL] [--calls 900] [--rounds 4]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if not __package__:  # run as a script: benchmarks/ heads sys.path, where service.py and devices.py shadow the packages
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import grpc

from benchmarks.service_load import TOKEN, Run, TablePlayer, postgres_url, serve
from service.api import table_service_pb2 as svc
from service.api import table_service_pb2_grpc as svc_grpc
from service.api import types_pb2 as pb

ADMIN_TOKEN = "bench-it-admin-token-0123456789"
CONFIG = (f'[stations.bench]\ntoken = "{TOKEN}"\nrole = "pit-boss"\n\n'
          f'[stations.it]\ntoken = "{ADMIN_TOKEN}"\nrole = "administrator"\n')
PINS = {"A1": "bench-admin-1", "P1": "bench-pit-1"}


class PersonPlayer(TablePlayer):
    """A table player whose calls carry ``metadata`` (a station's token and, in force, a person's session)."""

    def __init__(self, stub: Any, table: str, run: Run, metadata: tuple[tuple[str, str], ...]) -> None:
        super().__init__(stub, table, run)
        self.metadata = metadata

    async def command(self, method: str, request: object) -> None:
        started = time.perf_counter()
        try:
            await getattr(self.stub, method)(request, metadata=self.metadata, timeout=30)
        except grpc.aio.AioRpcError as error:
            self.run.errors += 1
            if self.run.errors == 1:
                print(f"  {self.run.name}: {error.code().name} {error.details()}", file=sys.stderr)
        self.run.latencies.append(time.perf_counter() - started)

    async def open(self) -> None:
        for method, request in (
                ("OpenTable", svc.OpenTableRequest(command_id=self.cid(), table=self.table, game=pb.GAME_HOLDEM,
                                                   circle=pb.CircleSettings(structure=pb.BETTING_STRUCTURE_NO_LIMIT,
                                                                            blinds=[1, 2], no_burns=True))),
                *(("SeatPlayer", svc.SeatPlayerRequest(command_id=self.cid(), table=self.table, seat=seat,
                                                       chips=1_000_000)) for seat in (1, 2, 3))):
            await getattr(self.stub, method)(request, metadata=self.metadata, timeout=30)


async def staffed(stub: Any) -> tuple[tuple[str, str], ...]:
    """Enrol an administrator (the IT station acting alone: the staff come in force) and a pit boss; sign the pit
    boss in at the bench's station; the metadata his calls carry."""
    admin: tuple[tuple[str, str], ...] = (("authorization", f"Bearer {ADMIN_TOKEN}"),)
    await stub.EnrolPerson(svc.EnrolPersonRequest(command_id="bench-a1", person_id="A1", name="Bench Admin",
                                                  roles=["administrator"], pin=PINS["A1"]), metadata=admin)
    signed = await stub.SignIn(svc.SignInRequest(badge="A1", pin=PINS["A1"]), metadata=admin)
    admin = (*admin, ("pokertable-session", signed.session))
    await stub.EnrolPerson(svc.EnrolPersonRequest(command_id="bench-p1", person_id="P1", name="Bench Pit",
                                                  roles=["pit-boss"], pin=PINS["P1"]), metadata=admin)
    station = (("authorization", f"Bearer {TOKEN}"),)
    signed = await stub.SignIn(svc.SignInRequest(badge="P1", pin=PINS["P1"]), metadata=station)
    return (*station, ("pokertable-session", signed.session))


def _ms(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))] * 1000


async def measure(ports: dict[str, int], args: argparse.Namespace) -> None:
    channels = {name: grpc.aio.insecure_channel(f"127.0.0.1:{port}") for name, port in ports.items()}
    stubs = {name: svc_grpc.TableServiceStub(channel) for name, channel in channels.items()}  # type: ignore[no-untyped-call]
    metadata = {"station alone (before issue 32)": (("authorization", f"Bearer {TOKEN}"),),
                "person signed in, attributed": await staffed(stubs["person signed in, attributed"])}
    runs = {name: Run(name) for name in ports}
    players = {name: PersonPlayer(stubs[name], "Mesa bench", runs[name], metadata[name]) for name in ports}
    for player in players.values():
        await player.open()
        await player.hand()  # warm: the table and its hand cached
        player.run.latencies.clear()
    print(f"{'round':>5}  {'commands stored':>15}  " + "  ".join(f"{name[:30]:>30} p50" for name in ports))
    for turn in range(args.rounds):
        line = []
        for name, player in players.items():
            round_run = Run(name)
            player.run = round_run
            started = time.perf_counter()
            for _ in range(args.calls // 9):
                await player.hand()
            round_run.seconds = time.perf_counter() - started
            runs[name].latencies += round_run.latencies
            runs[name].errors += round_run.errors
            runs[name].seconds += round_run.seconds
            line.append(f"{round_run.rate:>9,.0f}/s {_ms(round_run.latencies, 0.5):6.2f} ms")
        print(f"{turn + 1:>5}  {(turn + 1) * (args.calls // 9) * 9 + 13:>15,}  " + "  ".join(f"{cell:>34}"
                                                                                         for cell in line))
    print()
    before, after = runs["station alone (before issue 32)"], runs["person signed in, attributed"]
    for run in (before, after):
        print(run.line())
    print(f"  ratio (person ÷ station alone): rate {after.rate / before.rate:.2f}×, p50 "
          f"{_ms(after.latencies, 0.5) / _ms(before.latencies, 0.5):.2f}×, p99 "
          f"{_ms(after.latencies, 0.99) / _ms(before.latencies, 0.99):.2f}×")
    stub, station = stubs["person signed in, attributed"], (("authorization", f"Bearer {TOKEN}"),)
    for kind, pin in (("sign-in (right PIN)", PINS["P1"]), ("sign-in (wrong PIN, recorded)", "bench-wrong")):
        times = []
        for attempt in range(args.sign_ins):
            started = time.perf_counter()
            with contextlib.suppress(grpc.aio.AioRpcError):
                await stub.SignIn(svc.SignInRequest(badge="P1", pin=pin), metadata=station)
            times.append(time.perf_counter() - started)
            if kind.startswith("sign-in (wrong") and attempt % 8 == 7:  # stay under the badge's lockout
                await stub.SignIn(svc.SignInRequest(badge="P1", pin=PINS["P1"]), metadata=station)
        print(f"  {kind:<38} p50 {_ms(times, 0.5):7.1f} ms  p99 {_ms(times, 0.99):7.1f} ms  "
              f"(mean {statistics.fmean(times) * 1000:.1f} ms, {len(times)} calls)")
    for channel in channels.values():
        await channel.close()


def main(args: argparse.Namespace) -> None:
    stores: list[tuple[str, str | None]] = [("SQLite", None)]
    url = postgres_url(args.postgres) if args.postgres else None
    if url is not None:
        stores.append(("PostgreSQL", url))
    for label, base in stores:
        print(f"\n== {label}: {args.calls} commands a round, {args.rounds} rounds, one table, one command at a time")
        with tempfile.TemporaryDirectory() as folder:
            config = Path(folder) / "pokertable.toml"
            config.write_text(CONFIG, encoding="utf-8")
            config.chmod(0o600)
            processes, ports = [], {}
            for name, schema in (("station alone (before issue 32)", 1), ("person signed in, attributed", 2)):
                db = f"sqlite:///{folder}/tables-{schema}.db" if base is None else postgres_url(args.postgres)
                assert db is not None
                process, port = serve(db, config)
                processes.append(process)
                ports[name] = port
            try:
                asyncio.run(measure(ports, args))
            finally:
                for process in processes:
                    process.terminate()
                    process.wait(timeout=30)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=900, help="commands each server plays a round")
    parser.add_argument("--rounds", type=int, default=4, help="rounds the servers take turns for")
    parser.add_argument("--sign-ins", type=int, default=24, help="sign-ins timed (and as many wrong PINs)")
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/pokertable_test",
                        help="a PostgreSQL server for the second store ('' to skip)")
    main(parser.parse_args())
