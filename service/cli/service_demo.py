"""The service demo: a simulated dealer station plays every game against the table service over gRPC.

Hold'em and Texas Hold'em Bonus are dealt from a simulated shoe over a pseudo-terminal, with a simulated shuffler
preparing the other deck (red and blue alternate); the other tables' station supplies seeded cards as a shoe would.
The station follows what the service says is due, chooses legal actions, and shows the table as the hands go.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from devices.simulators import ShoeSimulator, ShufflerSimulator
from domain.banked.cdp import CdpHand
from domain.banked.thb import ThbHand
from domain.cards.cards import Card
from domain.cards.decks import composition
from domain.games import GAMES
from service.api import pokertable_pb2 as pb
from service.station.hardware import HardwareStation
from service.station.reference import Station, render

PIT, DIRECTOR = "demo-pit-boss-token-000001", "demo-director-token-000002"

CIRCLE_TABLES: tuple[tuple[str, pb.Settings, int], ...] = (
    ("Hold'em", pb.Settings(variant="holdem", structure="no-limit", blinds=[5, 10]), 2),
    ("Omaha", pb.Settings(variant="omaha", structure="pot-limit", blinds=[5, 10]), 1),
    ("Seven-card stud", pb.Settings(variant="stud7", structure="fixed-limit", ante=1, bring_in=2, small_bet=5,
                                    big_bet=10), 1),
    ("Five-card draw", pb.Settings(variant="draw", structure="fixed-limit", ante=2, small_bet=5, big_bet=10), 3),
    ("Five-card stud", pb.Settings(variant="stud5", structure="fixed-limit", ante=2, small_bet=5, big_bet=10), 1),
    ("Sintético", pb.Settings(variant="sintetico", structure="pot-limit", ante=2, min_bet=5), 1),
)
BANKED_TABLES = ("Texas Hold'em Bonus", "Casino Draw Poker")
BANKED_GAMES = tuple(code for code, game in GAMES.items() if game.family == "banked")
"""The games of :data:`BANKED_TABLES`, in order (``domain.games``)."""
DEMO_BETS: dict[type[Any], tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]] = {
    ThbHand: (((1, 10), (4, 20), (7, 5)), ((4, 5),)),
    CdpHand: (((2, 10), (5, 20)), ()),
}
"""Each banked game's demo hand, by its hand aggregate: the antes by box, then the bonus bets by box."""
DECKS = {"stud5": 32, "sintetico": 28}


def dealer_token(index: int) -> str:
    """The token of the dealer station of table ``index``."""
    return f"demo-dealer-token-{index:06}"


def stations_file(directory: Path) -> Path:
    """The demo's stations: a pit boss, a games director, and one dealer station per table."""
    lines = ["[stations.pit]", f'token = "{PIT}"', 'role = "pit-boss"', "",
             "[stations.director]", f'token = "{DIRECTOR}"', 'role = "games-director"', ""]
    for i, table in enumerate([t for t, _, _ in CIRCLE_TABLES] + list(BANKED_TABLES)):
        lines += [f"[stations.dealer-{i}]", f'token = "{dealer_token(i)}"', 'role = "dealer"', f'table = "{table}"', ""]
    path = directory / "stations.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


class Shoe:
    """The station's seeded shuffle, read card by card with sequence numbers; discards rejoin it when reshuffled."""

    def __init__(self, rng: random.Random, size: int) -> None:
        self.rng = rng
        self.cards = list(composition(size))
        rng.shuffle(self.cards)
        self.sequence = 0

    def draw(self) -> tuple[str, int]:
        self.sequence += 1
        return str(self.cards.pop(0)), self.sequence


@dataclass
class Devices:
    """A simulated shoe and shuffler on pseudo-terminals, attached to a table's station."""

    shoe: ShoeSimulator
    shuffler: ShufflerSimulator
    hardware: HardwareStation

    @classmethod
    def attach(cls, station: Station, table: str, *, banked: bool, seed: int) -> Devices:
        shoe, shuffler = ShoeSimulator(seed=seed), ShufflerSimulator(seed=seed + 1)
        hardware = HardwareStation(station, table, shoe.url, shuffler.url, banked=banked,
                                   show=lambda message: print(f"   [devices] {message}", flush=True))
        shoe.hello()
        shuffler.hello()
        print(f"   shoe on {shoe.url}, shuffler on {shuffler.url}: the station deals what the shoe reads", flush=True)
        return cls(shoe, shuffler, hardware)

    def start_hand(self) -> None:
        colour = self.hardware.start_hand()
        self.shoe.load(colour)

    def draw(self) -> None:
        before = len(self.hardware.dealt) + len(self.hardware.refused) + len(self.hardware.irregularities)
        self.shoe.draw()
        self.hardware.wait(lambda: len(self.hardware.dealt) + len(self.hardware.refused)
                           + len(self.hardware.irregularities) > before)

    def close(self) -> None:
        self.hardware.close()
        self.shoe.close()
        self.shuffler.close()


def play_circle_hand(station: Station, table: str, rng: random.Random, colour: str,
                     devices: Devices | None = None) -> pb.TableView:
    """One hand, following what the service says is due; returns the table as it stood at the end of play."""
    if devices is not None:
        devices.start_hand()
    else:
        station.call("StartHand", pb.StartHandRequest(command_id=station.command_id(), table=table,
                                                      deck_colour=colour))
    view = station.table(table)
    size = DECKS.get(view.variant, 52)
    if view.variant == "draw":
        size = {5: 36, 6: 40, 7: 44, 8: 48}.get(len(view.players), 32 if len(view.players) <= 4 else 52)
    shoe = Shoe(rng, size)
    last_street, final = "", view
    while view.hand_in_progress:
        if view.street != last_street and not view.next_card:
            print(render(view), flush=True)
            last_street = view.street
        final = view
        if view.next_card and devices is not None:
            devices.draw()
        elif view.next_card:
            card, sequence = shoe.draw()
            station.hand(table, "deal", card=card, source="shoe", sequence=sequence)
        elif view.drawer_seat:
            _draw(station, table, view)
        elif (legal := station.legal(table)).anyone_to_act:
            _act(station, table, legal, rng)
        else:
            seat = view.next_to_show_seat or next(p.seat for p in view.players if not p.folded and not all(p.face_up))
            station.hand(table, "show", seat=seat)  # at the showdown in the order of R-CIRC-13
        view = station.table(table)
    return final


def _act(station: Station, table: str, legal: pb.LegalActions, rng: random.Random) -> None:
    roll = rng.random()
    if legal.HasField("bring_in"):
        station.hand(table, "bring-in", seat=legal.seat)
    elif legal.HasField("raise_min") and roll < 0.25:
        station.hand(table, "bet", seat=legal.seat, amount=legal.raise_min)
    elif legal.HasField("call") and legal.fold and roll < 0.35:
        station.hand(table, "fold", seat=legal.seat)
    elif legal.check:
        station.hand(table, "check", seat=legal.seat)
    else:
        station.hand(table, "call", seat=legal.seat)


def _draw(station: Station, table: str, view: pb.TableView) -> None:
    """Keep pairs and better; change up to three of the lowest unpaired cards."""
    player = next(p for p in view.players if p.seat == view.drawer_seat)
    cards = [Card.parse(c) for c in player.cards]
    ranks = [c.rank for c in cards]
    singles = sorted((c for c in cards if ranks.count(c.rank) == 1), key=lambda c: c.rank)
    station.hand(table, "discard", seat=player.seat, cards=[str(c) for c in singles[:3]])


def play_banked_hand(station: Station, director: Station, table: str, game: str,
                     rng: random.Random, *, devices: Devices | None = None) -> pb.BankedTableView:
    """One banked hand: Texas Hold'em Bonus with three boxes, or Casino Draw Poker with two."""
    if devices is not None:
        devices.start_hand()
    else:
        station.call("StartBankedHand", pb.StartHandRequest(command_id=station.command_id(), table=table))
    antes, bonuses = DEMO_BETS[GAMES[game].hand_class]
    for box, ante in antes:
        station.banked(table, "ante", box=box, amount=ante)
    for box, bonus in bonuses:
        station.banked(table, "bonus", box=box, amount=bonus)
    station.banked(table, "close-bets")
    shoe = Shoe(rng, 52)
    view: pb.BankedTableView = station.call("GetBankedTable", pb.TableRequest(table=table))
    while view.hand_in_progress:
        if view.next_card and devices is not None:
            devices.draw()
        elif view.next_card:
            station.banked(table, "deal", card=shoe.draw()[0])
        elif view.stage == "approval":  # R-THB-10: the games director approves the 1000:1
            director.banked(table, "approve", box=next(b.box for b in view.boxes if b.result.get("bonus", 0) > 0))
        else:
            _decide(station, table, view, rng)
        view = station.call("GetBankedTable", pb.TableRequest(table=table))
    return view


def _decide(station: Station, table: str, view: pb.BankedTableView, rng: random.Random) -> None:
    box = next(b for b in view.boxes if b.box == view.to_decide)
    ante = box.bets["ante"]
    if view.stage == "preflop":
        station.banked(table, "flop-bet", box=box.box, amount=2 * ante)
    elif view.stage in ("turn", "river"):
        if rng.random() < 0.5:
            station.banked(table, "bet", box=box.box, amount=ante)
        else:
            station.banked(table, "check", box=box.box)
    elif view.stage == "exchange":
        lowest = sorted((Card.parse(c) for c in box.cards), key=lambda c: c.rank)[:2]
        station.banked(table, "exchange", box=box.box, cards=[str(c) for c in lowest])
    else:
        station.banked(table, "play", box=box.box, amount=2 * ante)


def run_service_demo(rng: random.Random, directory: Path, db: str) -> None:
    """Start ``pokertable serve`` on ``db``, play every game through a station, print what happened."""
    import re
    import subprocess
    import sys
    import time

    config = stations_file(directory)
    started = time.perf_counter()
    server = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--db", db, "--port", "0", "--config",
                               str(config)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert server.stdout is not None
    line = server.stdout.readline()
    match = re.search(r"serving on [^:\s]+:(\d+)", line)
    if match is None:
        raise RuntimeError(f"the service did not start: {line}{server.stderr.read() if server.stderr else ''}")
    address = f"127.0.0.1:{match.group(1)}"
    print(f"== {line.strip()}\n")
    pit, director = Station(address, PIT), Station(address, DIRECTOR)
    summary: list[str] = []
    try:
        _play_circle_tables(address, pit, rng, summary)
        _play_banked_tables(address, pit, director, rng, summary)
    finally:
        pit.close()
        director.close()
        server.terminate()
        server.wait(timeout=10)
    print("== Summary: every deal, bet, payment and approval above is an event in " + db)
    print("\n".join(summary))
    print(f"   ({time.perf_counter() - started:.1f} s, the service stopped cleanly)\n")
    from service.bootstrap import open_store
    from service.store.audit import verify

    app = open_store(db).app
    verdict = verify(app.recorder)
    position, digest = verdict.head
    state = "clean" if verdict.clean else f"TAMPERED: {verdict.finding}"
    print(f"== Audit (pokertable audit verify): {verdict.events} events, hash chain {state}; head {position}:"
          f"{digest.hex()[:16]}…\n")
    app.close()


def _play_circle_tables(address: str, pit: Station, rng: random.Random, summary: list[str]) -> None:
    """Open every circle table, seat players and play its hands; the first table deals from the simulated shoe."""
    colours = ("red", "blue")
    for index, (table, settings, hands) in enumerate(CIRCLE_TABLES):
        pit.call("OpenTable", pb.OpenTableRequest(command_id=pit.command_id(), table=table, settings=settings))
        dealer = Station(address, dealer_token(index))
        for seat in (1, 2, 3, 4) if settings.variant == "sintetico" else (1, 2, 3):
            dealer.call("SeatPlayer", pb.SeatPlayerRequest(command_id=dealer.command_id(), table=table, seat=seat,
                                                           chips=500))
        print(f"== {table}: {hands} hand{'s' if hands > 1 else ''}")
        devices = Devices.attach(dealer, table, banked=False, seed=rng.randrange(10**6)) if index == 0 else None
        try:
            for number in range(hands):
                play_circle_hand(dealer, table, rng, colours[number % 2], devices)
        finally:
            if devices is not None:
                devices.close()
        view = dealer.table(table)
        print(render(view) + "\n", flush=True)
        summary.append(f"  {table:<22} {view.hands_started} hands   stacks "
                       + "  ".join(f"{s}: {c}" for s, c in sorted(view.stacks.items())))
        dealer.close()


def _play_banked_tables(address: str, pit: Station, director: Station, rng: random.Random,
                        summary: list[str]) -> None:
    """Open the banked tables and play a hand at each; Texas Hold'em Bonus deals from the simulated shoe."""
    for offset, (table, game) in enumerate(zip(BANKED_TABLES, BANKED_GAMES, strict=True)):
        request = pb.OpenBankedTableRequest(command_id=pit.command_id(), table=table, game=game, ante_min=5,
                                            ante_max=100)
        pit.call("OpenBankedTable", request)
        dealer = Station(address, dealer_token(len(CIRCLE_TABLES) + offset))
        print(f"== {table}", flush=True)
        devices = Devices.attach(dealer, table, banked=True, seed=rng.randrange(10**6)) if offset == 0 else None
        try:
            banked = play_banked_hand(dealer, director, table, game, rng, devices=devices)
        finally:
            if devices is not None:
                devices.close()
        print(f"   one hand; the house's result {banked.bank_result:+d} chips\n", flush=True)
        summary.append(f"  {table:<22} {banked.hands_started} hand    house result {banked.bank_result:+d}")
        dealer.close()
