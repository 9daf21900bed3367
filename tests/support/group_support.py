"""A casino's floor played through the application, for the group's tests and ``benchmarks/group.py``: tables of
several games (a circle game with a rake, R-CIRC-12; both banked games) and random legal hands at each in turn, every
card, bet and decision a command (:mod:`tests.support.app_play`)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.banked.cdp import CdpSettings
from domain.banked.thb import STANDARD_LIMITS, ThbSettings
from domain.circle.settings import BettingStructure, RakePolicy, TableSettings
from service.app.application import PokerTables
from service.app.commands import OpenTable, Sit
from service.store.persistence import environment
from service.store.signer import HeadSigner
from service.store.signing import public_pem
from tests.support.app_play import Ids, play_banked_hand, play_circle_hand, start_banked_hand, start_circle_hand

CIRCLE: dict[str, tuple[TableSettings, list[int]]] = {
    "Holdem": (TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), burn_cards=True,
                                    rake=RakePolicy(5, 3)), [200, 200, 200, 200]),
    "Omaha": (TableSettings.create("omaha", BettingStructure.POT_LIMIT, blinds=(1, 2)), [150, 150, 150]),
    "Stud7": (TableSettings.create("stud7", BettingStructure.FIXED_LIMIT, antes=1, bring_in=2, small_bet=5,
                                   big_bet=10), [120, 120, 120]),
    "Draw": (TableSettings.create("draw", BettingStructure.FIXED_LIMIT, antes=1, small_bet=2, big_bet=4,
                                  rake=RakePolicy(10, 2)), [100, 100, 100]),
}
BANKED: dict[str, tuple[str, ThbSettings | CdpSettings]] = {
    "Bonus": ("holdem-bonus", ThbSettings(STANDARD_LIMITS[5])),
    "CasinoDraw": ("casino-draw", CdpSettings(5, 100)),
}


@dataclass
class Casino:
    """A casino's floor: its tables opened at ``app`` (names prefixed with ``prefix``), dealt in turn."""

    app: PokerTables
    prefix: str
    rng: random.Random
    turn: int = 0

    def __post_init__(self) -> None:
        self.ids = Ids(self.prefix)
        for name, (settings, stacks) in CIRCLE.items():
            self.app.handle(OpenTable(self.ids(), self.name(name), settings))
            for seat, stack in enumerate(stacks, start=1):
                self.app.handle(Sit(self.ids(), self.name(name), seat, stack))
        for name, (_game, banked) in BANKED.items():
            self.app.handle(OpenTable(self.ids(), self.name(name), banked))

    def name(self, table: str) -> str:
        return f"{self.prefix} {table}"

    def play(self, hands: int) -> None:
        """Play ``hands`` more hands, one at each table in turn (a circle hand voided now and then, R-CIRC-14)."""
        tables = [*CIRCLE, *BANKED]
        for _ in range(hands):
            table = tables[self.turn % len(tables)]
            self.turn += 1
            name = self.name(table)
            if table in CIRCLE:
                deck, _ = start_circle_hand(self.app, name, self.ids)
                void = 4 if self.rng.random() < 0.05 else None
                play_circle_hand(self.app, name, deck, self.rng, self.ids, void_after=void)
            else:
                boxes = self.rng.sample(range(1, 6), self.rng.randint(1, 4))
                antes = {box: self.rng.choice((5, 10, 20)) for box in sorted(boxes)}
                bonuses = {box: 5 for box in antes if table == "Bonus" and self.rng.random() < 0.3}
                start_banked_hand(self.app, name, self.ids, antes, bonuses)
                play_banked_hand(self.app, name, self.rng, self.ids)


def floor_counts(app: PokerTables) -> dict[str, dict[str, int]]:
    """A casino's own figures per game from its own queries (not from the group's code): the hands and how they
    ended (its search), the chips bet in hands that ended in play (each hand's pot as its search lists it), and
    the house's result at banked tables (each table's running bank result, R-THB-8, R-CDP-6)."""
    counts: dict[str, dict[str, int]] = {}
    for name in app.table_names():
        record = app.any_table(name)
        game = counts.setdefault(record.game, {"hands": 0, "voided": 0, "bet": 0, "house": 0})
        for summary in app.views.search_hands(name):
            game["hands"] += 1
            game["voided"] += summary.outcome == "voided"
            if summary.outcome in ("showdown", "uncontested", "blank", "settled"):
                game["bet"] += summary.pot
        game["house"] += getattr(record, "bank_result", 0)
    return counts


@dataclass
class Played:
    """A casino's database, its application (signing its chain heads) and the public key file of its key."""

    name: str
    url: str
    app: PokerTables
    casino: Casino
    key_file: Path

    @property
    def head(self) -> int:
        return int(self.app.recorder.max_notification_id() or 0)


def play_casino(name: str, url: str, hands: int, seed: int, *, directory: Path, every: int = 120) -> Played:
    """A casino dealing ``hands`` hands on its own store, its service's key signing the chain head every ``every``
    events."""
    app = PokerTables(env=environment(url))
    key = Ed25519PrivateKey.generate()
    HeadSigner(app, key, every=every).start()
    key_file = directory / f"{name}.pub.pem"
    key_file.write_text(public_pem(key), encoding="utf-8")
    casino = Casino(app, name, random.Random(seed))
    casino.play(hands)
    return Played(name, url, app, casino, key_file)
