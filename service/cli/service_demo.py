"""The service demo: a simulated dealer station plays every game against the table service over gRPC.

Hold'em and Texas Hold'em Bonus are dealt from a simulated shoe over a pseudo-terminal, with a simulated shuffler
preparing the other deck (red and blue alternate); the other tables' station supplies seeded cards as a shoe would.
The station follows what the service says is due, chooses legal actions, and shows the table as the hands go.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import grpc

from devices.simulators import ShoeSimulator, ShufflerSimulator
from domain.banked.cdp import CdpHand
from domain.banked.thb import ThbHand
from domain.cards.cards import Card
from domain.cards.decks import composition
from domain.games import GAMES
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.cli import station_demo
from service.station.client import card_due, refusing_rule, value, word
from service.station.hardware import HardwareStation
from service.station.reference import Station, render

PIT, DIRECTOR = "demo-pit-boss-token-000001", "demo-director-token-000002"
STATION_TOKEN = "demo-full-screen-station-token-000003"
"""The croupier's token of the full-screen station's table (service.cli.station_demo)."""

CIRCLE_TABLES: tuple[tuple[str, pb.Game, pb.CircleSettings, int], ...] = (
    ("Hold'em", pb.GAME_HOLDEM, pb.CircleSettings(structure=pb.BETTING_STRUCTURE_NO_LIMIT, blinds=[5, 10]), 2),
    ("Omaha", pb.GAME_OMAHA, pb.CircleSettings(structure=pb.BETTING_STRUCTURE_POT_LIMIT, blinds=[5, 10]), 1),
    ("Seven-card stud", pb.GAME_STUD7, pb.CircleSettings(structure=pb.BETTING_STRUCTURE_FIXED_LIMIT, ante=1,
                                                         bring_in=2, small_bet=5, big_bet=10), 1),
    ("Five-card draw", pb.GAME_DRAW, pb.CircleSettings(structure=pb.BETTING_STRUCTURE_FIXED_LIMIT, ante=2,
                                                       small_bet=5, big_bet=10), 3),
    ("Five-card stud", pb.GAME_STUD5, pb.CircleSettings(structure=pb.BETTING_STRUCTURE_FIXED_LIMIT, ante=2,
                                                        small_bet=5, big_bet=10), 1),
    ("Sintético", pb.GAME_SINTETICO, pb.CircleSettings(structure=pb.BETTING_STRUCTURE_POT_LIMIT, ante=2, min_bet=5),
     1),
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
    for i, table in enumerate([t for t, _, _, _ in CIRCLE_TABLES] + list(BANKED_TABLES)):
        lines += [f"[stations.dealer-{i}]", f'token = "{dealer_token(i)}"', 'role = "dealer"', f'table = "{table}"', ""]
    lines += ["[stations.full-screen]", f'token = "{STATION_TOKEN}"', 'role = "dealer"',
              f'table = "{station_demo.TABLE}"']
    path = directory / "stations.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    path.chmod(0o600)  # station tokens in clear: the service refuses a file anyone may read (issue 32)
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
        deadline = time.monotonic() + 5  # each device says HELLO as the station opens its port, unasked
        while time.monotonic() < deadline and (hardware.shoe.identity is None or hardware.shuffler is None
                                               or hardware.shuffler.identity is None):
            time.sleep(0.02)
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
                     devices: Devices | None = None, *, owners: Station | None = None) -> pb.TableView:
    """One hand, following what the service says is due; returns the table as it stood at the end of play.
    ``owners``: the station through which the players' own cards are read for their draws (the pit's: the
    croupier's station is never shown a face-down card)."""
    if devices is not None:
        devices.start_hand()
    else:
        station.start(table, colour)
    view = station.table(table)
    game = word(pb.Game, view.game)
    size = DECKS.get(game, 52)
    if game == "draw":
        players = len(view.circle.players)
        size = {5: 36, 6: 40, 7: 44, 8: 48}.get(players, 32 if players <= 4 else 52)
    shoe = Shoe(rng, size)
    last_street, final = "", view
    while view.hand_in_progress:
        circle = view.circle
        if circle.street != last_street and not card_due(view):
            print(render(view), flush=True)
            last_street = circle.street
        final = view
        if card_due(view) and devices is not None:
            devices.draw()
        elif card_due(view):
            card, sequence = shoe.draw()
            station.act(table, "deal", card=card, source=pb.CARD_SOURCE_SHOE, sequence=sequence)
        elif circle.HasField("drawer_seat"):
            _draw(station, table, (owners or station).table(table))
        elif (legal := station.legal(table)).HasField("seat") and legal.allowed:
            _act(station, table, legal, rng)
        else:
            seat = circle.next_to_show_seat if circle.HasField("next_to_show_seat") else next(
                p.seat for p in circle.players if not p.folded and not all(p.face_up))
            station.act(table, "show", seat=seat)  # at the showdown in the order of R-CIRC-13
        view = station.table(table)
    return final


def _act(station: Station, table: str, legal: svc.GetLegalActionsResponse, rng: random.Random) -> None:
    roll, allowed, seat = rng.random(), set(legal.allowed), legal.seat
    if pb.ACTION_KIND_BRING_IN in allowed:
        station.act(table, "bring-in", seat=seat)
    elif pb.ACTION_KIND_BET in allowed and legal.HasField("raise_min") and roll < 0.25 and \
            _opened(station, table, seat, legal.raise_min):
        return
    elif {pb.ACTION_KIND_CALL, pb.ACTION_KIND_FOLD} <= allowed and roll < 0.35:
        station.act(table, "fold", seat=seat)
    elif pb.ACTION_KIND_CHECK in allowed:
        station.act(table, "check", seat=seat)
    elif pb.ACTION_KIND_CALL in allowed:
        station.act(table, "call", seat=seat)
    else:
        station.act(table, "show", seat=seat)  # the showdown, in the order of R-CIRC-13


def _opened(station: Station, table: str, seat: int, amount: int) -> bool:
    """The seat bets; False when it may not open there (R-DRAW-2, R-DRAW-3: the opening bet is offered to every
    player, and refused without openers): the player checks instead."""
    try:
        station.act(table, "bet", seat=seat, amount=amount)
    except grpc.RpcError as error:
        if refusing_rule(error) not in ("R-DRAW-2", "R-DRAW-3"):
            raise
        return False
    return True


def _draw(station: Station, table: str, view: pb.TableView) -> None:
    """Keep pairs and better; change up to three of the lowest unpaired cards."""
    circle = view.circle
    player = next(p for p in circle.players if p.seat == circle.drawer_seat)
    cards = [Card.parse(c) for c in player.cards]
    ranks = [c.rank for c in cards]
    singles = sorted((c for c in cards if ranks.count(c.rank) == 1), key=lambda c: c.rank)
    station.act(table, "discard", seat=player.seat, cards=[str(c) for c in singles[:3]])


def play_banked_hand(station: Station, director: Station, table: str, game: str,
                     rng: random.Random, *, devices: Devices | None = None) -> pb.TableView:
    """One banked hand: Texas Hold'em Bonus with three boxes, or Casino Draw Poker with two."""
    if devices is not None:
        devices.start_hand()
    else:
        station.start(table)
    antes, bonuses = DEMO_BETS[GAMES[game].hand_class]
    for box, ante in antes:
        station.act(table, "ante", seat=box, amount=ante)
    for box, bonus in bonuses:
        station.act(table, "bonus", seat=box, amount=bonus)
    station.act(table, "close-bets")
    shoe = Shoe(rng, 52)
    view = station.table(table)
    while view.hand_in_progress:
        if card_due(view) and devices is not None:
            devices.draw()
        elif card_due(view):
            station.act(table, "deal", card=shoe.draw()[0])
        elif view.banked.stage == pb.BANKED_STAGE_APPROVAL:  # R-THB-10: the games director approves the 1000:1
            director.act(table, "approve-bonus", seat=_awaiting_approval(director.legal(table), view.banked))
        else:
            _decide(station, table, director.table(table).banked, rng)  # a box's own cards, as its player knows them
        view = station.table(table)
    return view


def _awaiting_approval(legal: svc.GetLegalActionsResponse, banked: pb.BankedTableView) -> int:
    """The box whose 1000:1 bonus waits for the games director (R-THB-10)."""
    if legal.HasField("seat"):
        return legal.seat
    won = [b.seat for b in banked.boxes if b.result.HasField("bonus") and b.result.bonus > 0]
    return (won or [b.seat for b in banked.boxes if b.bets.HasField("bonus")])[0]


def _decide(station: Station, table: str, banked: pb.BankedTableView, rng: random.Random) -> None:
    box = next(b for b in banked.boxes if b.seat == banked.to_decide)
    ante = box.bets.ante
    if banked.stage == pb.BANKED_STAGE_PREFLOP:
        station.act(table, "flop-bet", seat=box.seat, amount=2 * ante)
    elif banked.stage in (pb.BANKED_STAGE_TURN, pb.BANKED_STAGE_RIVER):
        if rng.random() < 0.5:
            station.act(table, "bet", seat=box.seat, amount=ante)
        else:
            station.act(table, "check", seat=box.seat)
    elif banked.stage == pb.BANKED_STAGE_EXCHANGE:
        lowest = sorted((Card.parse(c) for c in box.cards), key=lambda c: c.rank)[:2]
        station.act(table, "exchange", seat=box.seat, cards=[str(c) for c in lowest])
    else:
        station.act(table, "play", seat=box.seat, amount=2 * ante)


def run_service_demo(rng: random.Random, directory: Path, db: str, lang: str = "en") -> None:
    """Start ``pokertable serve`` on ``db``, play every game through a station, print what happened."""
    import re
    import subprocess
    import sys
    import time

    config = stations_file(directory)
    started = time.perf_counter()
    server = subprocess.Popen([sys.executable, "-m", "pokertable", "serve", "--db", db, "--port", "0", "--config",
                               str(config), "--http", "127.0.0.1:0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    assert server.stdout is not None
    line = server.stdout.readline()
    match = re.search(r"serving on [^:\s]+:(\d+)", line)
    if match is None:
        raise RuntimeError(f"the service did not start: {line}{server.stderr.read() if server.stderr else ''}")
    address = f"127.0.0.1:{match.group(1)}"
    print(f"== {line.strip()}")
    while "pit dashboard on" not in (dashboard := server.stdout.readline()):  # after the tables are warm
        if not dashboard:
            raise RuntimeError(f"the dashboard did not start: {server.stderr.read() if server.stderr else ''}")
    pit_url = dashboard.split(" on ", 1)[1].strip()
    print(f"== {dashboard.strip()}\n")
    pit, director = Station(address, PIT), Station(address, DIRECTOR)
    summary: list[str] = []
    try:
        _play_circle_tables(address, pit, rng, summary)
        _play_banked_tables(address, pit, director, rng, summary)
        summary.append(station_demo.run_station_demo(address, PIT, STATION_TOKEN, rng, lang))
        summary.append(floor_seen_by_the_pit(pit_url))
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


def floor_seen_by_the_pit(url: str) -> str:
    """The pit boss signs in to the dashboard as a browser does and reads the floor: one line a table."""
    import html
    import http.cookiejar
    import re
    import time
    import urllib.parse
    import urllib.request

    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    form = urllib.parse.urlencode({"station": "pit", "token": PIT}).encode()
    opener.open(urllib.request.Request(f"{url}signin", data=form), timeout=10).read()
    deadline, page = time.monotonic() + 10, ""
    while time.monotonic() < deadline:  # the floor follows every table's stream; the last ones may lag a moment
        page = opener.open(f"{url}", timeout=10).read().decode()
        if page.count('<tr id="row-') >= len(CIRCLE_TABLES) + len(BANKED_TABLES):
            break
        time.sleep(0.2)
    rows = re.findall(r'<tr id="row-[^"]*" data-table="([^"]*)">.*?data-key="status">([^<]*)<.*?'
                      r'data-key="hands">([^<]*)<', page, re.S)
    lines = [f"  the pit's dashboard ({url}), signed in as the pit boss, lists {len(rows)} tables on its floor:"]
    lines += [f"    {html.unescape(table):<22} {status:<17} {hands} hands" for table, status, hands in rows]
    return "\n".join(lines)


def _play_circle_tables(address: str, pit: Station, rng: random.Random, summary: list[str]) -> None:
    """Open every circle table, seat players and play its hands; the first table deals from the simulated shoe."""
    colours = ("red", "blue")
    for index, (table, game, settings, hands) in enumerate(CIRCLE_TABLES):
        pit.call("OpenTable", svc.OpenTableRequest(command_id=pit.command_id(), table=table, game=game,
                                                   circle=settings))
        dealer = Station(address, dealer_token(index))
        for seat in (1, 2, 3, 4) if game == pb.GAME_SINTETICO else (1, 2, 3):
            dealer.call("SeatPlayer", svc.SeatPlayerRequest(command_id=dealer.command_id(), table=table, seat=seat,
                                                            chips=500))
        print(f"== {table}: {hands} hand{'s' if hands > 1 else ''}")
        devices = Devices.attach(dealer, table, banked=False, seed=rng.randrange(10**6)) if index == 0 else None
        try:
            for number in range(hands):
                play_circle_hand(dealer, table, rng, colours[number % 2], devices, owners=pit)
        finally:
            if devices is not None:
                devices.close()
        view = dealer.table(table)
        print(render(view) + "\n", flush=True)
        summary.append(f"  {table:<22} {view.hands_started} hands   stacks "
                       + "  ".join(f"{s}: {c}" for s, c in sorted(view.circle.stacks.items())))
        dealer.close()


def _play_banked_tables(address: str, pit: Station, director: Station, rng: random.Random,
                        summary: list[str]) -> None:
    """Open the banked tables and play a hand at each; Texas Hold'em Bonus deals from the simulated shoe."""
    for offset, (table, game) in enumerate(zip(BANKED_TABLES, BANKED_GAMES, strict=True)):
        request = svc.OpenTableRequest(command_id=pit.command_id(), table=table,
                                       game=cast("pb.Game", value(pb.Game, game)))
        if request.game == pb.GAME_HOLDEM_BONUS:
            request.holdem_bonus.ante_min = 5
        else:
            request.casino_draw.CopyFrom(pb.CasinoDrawSettings(ante_min=5, ante_max=100))
        pit.call("OpenTable", request)
        dealer = Station(address, dealer_token(len(CIRCLE_TABLES) + offset))
        print(f"== {table}", flush=True)
        devices = Devices.attach(dealer, table, banked=True, seed=rng.randrange(10**6)) if offset == 0 else None
        try:
            view = play_banked_hand(dealer, director, table, game, rng, devices=devices)
        finally:
            if devices is not None:
                devices.close()
        result = view.banked.bank_result
        print(f"   one hand; the house's result {result:+d} chips\n", flush=True)
        summary.append(f"  {table:<22} {view.hands_started} hand    house result {result:+d}")
        dealer.close()
