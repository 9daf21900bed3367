"""Write ``tests/data/before-the-move.db``: a database as the service wrote it before issue 14's move (one game seam,
classes moved to new modules), so that the moved code is proven to load, verify and play on at what was stored
(``tests/app/test_fixture_before_move.py``).

Run from the repository's root, with the code of before the move:
``.venv/bin/python -m tests.support.make_fixture_before_move``.  It writes, through
:class:`service.app.application.PokerTables` on an SQLite file claimed as its sole writer (as ``pokertable serve`` runs
it), one table of each of the eight games, and at them: hands played with random legal commands (fixed seeds, fixed
command ids), a circle hand voided by the pit (R-CIRC-14), a Casino Draw Poker hand and a Texas Hold'em Bonus whole
play voided by the pit (R-THB-11), two draw hands nobody opened either side of an opened one (R-DRAW-3: the pot
carried, queens to open next), a 1000:1 bonus (A-A against the croupier's A-A) approved and one refused by the games
director (R-THB-10), device reports (shuffles, a deck check, faults; R-DECK-2, R-DECK-3), a card exposed at the cut
and the new shuffle (R-CIRC-2), reconstructions requested by the pit boss (R-THB-13, R-AUD-1), a stack corrected by
the pit boss, players out of chips buying more, and chain heads signed with a key made from a fixed seed (R-AUD-1).
Every table ends between hands.

Beside the database it writes ``before-the-move.json`` (each table's state as the application then reported it, and
the chain head) and ``before-the-move.pub.pem`` (the public key of the signed heads).  Timestamps differ between
runs; everything else is the same.  The committed files were written from a clean export of commit 8c57328
(``git archive 8c57328``, with this script and ``tests/app_play.py`` copied in; both now in tests/support/).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.actions import Reconstruction
from domain.banked.cdp import CdpSettings
from domain.banked.thb import STANDARD_LIMITS, ThbSettings
from domain.cards.cards import parse_cards
from domain.circle.settings import BettingStructure, TableSettings
from domain.device_reports import DeviceReport
from service.app.application import PokerTables
from service.app.commands import (
    Act,
    CorrectStack,
    OpenTable,
    ReconstructHand,
    RecordCutExposure,
    RecordDeviceReport,
    Sit,
)
from service.store.persistence import claim_sole_writer, environment
from service.store.signer import HeadSigner
from service.store.signing import fingerprint, public_pem
from tests.support.app_play import (
    PIT,
    Ids,
    colour_of_hand,
    dealer,
    play_banked_hand,
    play_circle_hand,
    start_banked_hand,
    start_circle_hand,
    table_state,
)
from tests.support.app_tables import banked_table

DATA = Path(__file__).parent.parent / "data"
NAME = "before-the-move"
SEED = 20261123
KEY_SEED = bytes(range(32))
"""The signing key of the fixture: made from a fixed seed, so that its public key is the same at every run (a test
key, never a service's)."""
SHUFFLER = ("shuffler", "SHF-0042")

CIRCLE: dict[str, tuple[TableSettings, list[int]]] = {
    "Holdem": (TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(1, 2), burn_cards=True),
               [200, 200, 200, 200]),
    "Omaha": (TableSettings.create("omaha", BettingStructure.POT_LIMIT, blinds=(1, 2), burn_cards=False),
              [150, 150, 150]),
    "Stud7": (TableSettings.create("stud7", BettingStructure.FIXED_LIMIT, antes=1, bring_in=2, small_bet=5,
                                   big_bet=10, burn_cards=False), [120, 120, 120]),
    "Draw": (TableSettings.create("draw", BettingStructure.FIXED_LIMIT, antes=1, small_bet=2, big_bet=4),
             [100, 100, 100]),
    "Stud5": (TableSettings.create("stud5", BettingStructure.FIXED_LIMIT, antes=1, small_bet=2, big_bet=4),
              [100, 100, 100]),
    "Sintetico": (TableSettings.create("sintetico", BettingStructure.POT_LIMIT, antes=1, min_bet=2),
                  [150, 150, 150, 150, 150]),
}
BANKED: dict[str, tuple[str, ThbSettings | CdpSettings]] = {
    "Bonus": ("holdem-bonus", ThbSettings(STANDARD_LIMITS[5])),
    "CasinoDraw": ("casino-draw", CdpSettings(5, 100)),
}
ACES = parse_cards("As Ac Ad Ah")
"""R-THB-10: one box dealt A-A, the croupier A-A: the bonus pays 1000:1 and waits for the games director."""


def write(directory: Path = DATA) -> dict[str, Any]:
    """Write the fixture into ``directory``; what was recorded of it (also written as JSON) is returned."""
    database = directory / f"{NAME}.db"
    for stale in (database, *(Path(f"{database}{tail}") for tail in ("-wal", "-shm", ".writer"))):
        stale.unlink(missing_ok=True)
    url = f"sqlite:///{database}"
    claim = claim_sole_writer(url)
    app = PokerTables(env=environment(url, sole_writer=claim is not None))
    key = Ed25519PrivateKey.from_private_bytes(KEY_SEED)
    signer = HeadSigner(app, key, every=400)
    signer.start()
    try:
        _play(app, random.Random(SEED))
        signer.sign("the fixture of before the move is written")
        position, chain_hash = signer.recorder.head()
        record = {"seed": SEED, "head": {"position": position, "hash": chain_hash.hex()},
                  "public_key": fingerprint(key.public_key()),
                  "tables": {name: table_state(app, name) for name in (*CIRCLE, *BANKED)}}
    finally:
        app.close()
        if claim is not None:
            claim.release()
            claim.path.unlink(missing_ok=True)
    (directory / f"{NAME}.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    (directory / f"{NAME}.pub.pem").write_text(public_pem(key), encoding="utf-8")
    return record


def _report(app: PokerTables, ids: Ids, table: str, kind: str, *, colour: str, result: str) -> None:
    device, serial = SHUFFLER
    app.handle(RecordDeviceReport(ids(), table, DeviceReport(device, serial, kind, colour, result)), dealer(table))


def _play(app: PokerTables, rng: random.Random) -> None:
    for name, (settings, stacks) in CIRCLE.items():
        ids = Ids(name)
        app.handle(OpenTable(ids(), name, settings))
        for seat, stack in enumerate(stacks, start=1):
            app.handle(Sit(ids(), name, seat, stack))
        _report(app, ids, name, "shuffle", colour="red", result="shuffled")  # R-DECK-2: the decks alternate from now on
        _circle(app, name, ids, rng)
    for name, (game, banked) in BANKED.items():
        ids = Ids(name)
        app.handle(OpenTable(ids(), name, banked))
        _report(app, ids, name, "shuffle", colour="red", result="shuffled")
        (_bonus if game == "holdem-bonus" else _casino_draw)(app, name, ids, rng)


def _circle(app: PokerTables, name: str, ids: Ids, rng: random.Random) -> None:
    """Two or three hands at a circle table, with what befalls each game."""
    if name == "Draw":  # R-DRAW-3: a blank hand (the pot carried, queens to open), an opened one, a blank one
        for passive in (True, False, True):
            deck, _ = start_circle_hand(app, name, ids)
            play_circle_hand(app, name, deck, rng, ids, passive=passive)
        app.handle(ReconstructHand(ids(), name, 1, "a player says the first hand was opened"), PIT)
        return
    for number in (1, 2, 3) if name == "Holdem" else (1, 2):
        if name == "Holdem" and number == 3:  # R-CIRC-2: a card exposed at the cut; the deck is shuffled again
            colour = colour_of_hand(number).value
            app.handle(RecordCutExposure(ids(), name, parse_cards("Kd")[0], colour), dealer(name))
            _report(app, ids, name, "shuffle", colour=colour, result="shuffled again after the cut")
        deck, _ = start_circle_hand(app, name, ids)
        voided = name == "Holdem" and number == 2
        play_circle_hand(app, name, deck, rng, ids, void_after=6 if voided else None)
        _report(app, ids, name, "shuffle", colour=deck.colour.value, result="shuffled")
    if name == "Holdem":
        app.handle(ReconstructHand(ids(), name, 2, "the voided hand, for the incident report"), PIT)
    elif name == "Omaha":
        _report(app, ids, name, "deck-check", colour="blue", result="52 cards, none missing")
    elif name == "Stud7":
        _report(app, ids, name, "fault", colour="red", result="card jam; cleared by the croupier")
    elif name == "Stud5":
        seat = min(app.table(name).stacks)
        app.handle(CorrectStack(ids(), name, seat, app.table(name).stacks[seat] + 5,
                                reason="a red chip found under the "
                          "rack, counted on camera"), PIT)
        app.handle(ReconstructHand(ids(), name, 2, "the stack count before the correction"), PIT)


def _bonus(app: PokerTables, name: str, ids: Ids, rng: random.Random) -> None:
    """Texas Hold'em Bonus: the 1000:1 approved, then refused (R-THB-10); random hands; the whole play voided."""
    for approve in (True, False):
        number = start_banked_hand(app, name, ids, {1: 5}, {1: 2})
        play_banked_hand(app, name, rng, ids, cards=list(ACES), approve=approve)
        app.handle(Act(ids(), name, Reconstruction(director="games-director-1",
                                                   reason="the 1000:1, for the casino's records")), PIT)
        app.handle(ReconstructHand(ids(), name, number, "the 1000:1 before it is paid"), PIT)
    start_banked_hand(app, name, ids, {1: 10, 2: 5, 3: 20}, {1: 5, 3: 1})
    play_banked_hand(app, name, rng, ids)
    start_banked_hand(app, name, ids, {1: 10, 2: 10}, {2: 5})
    play_banked_hand(app, name, rng, ids, void_after=5)  # R-THB-11: the pit voids the whole play
    _reshuffle_if_required(app, name, ids)
    start_banked_hand(app, name, ids, {1: 5, 2: 15}, {1: 1})
    play_banked_hand(app, name, rng, ids)
    _reshuffle_if_required(app, name, ids)
    _report(app, ids, name, "fault", colour="blue", result="the shoe's reader missed a card; read again")


def _casino_draw(app: PokerTables, name: str, ids: Ids, rng: random.Random) -> None:
    """Casino Draw Poker: random hands, one voided by the pit."""
    for number, antes in enumerate(({1: 10, 2: 20}, {1: 5, 2: 5, 3: 50}, {2: 25}), start=1):
        start_banked_hand(app, name, ids, antes)
        play_banked_hand(app, name, rng, ids, void_after=4 if number == 2 else None)
        _reshuffle_if_required(app, name, ids)
    app.handle(ReconstructHand(ids(), name, 2, "the voided hand, for the incident report"), PIT)


def _reshuffle_if_required(app: PokerTables, name: str, ids: Ids) -> None:
    """R-THB-11: after an irregularity the deck is reshuffled in full (the shuffler reports it)."""
    pending = banked_table(app, name).reshuffle_pending
    if pending is not None:
        _report(app, ids, name, "shuffle", colour=pending, result="full reshuffle after the void")


if __name__ == "__main__":
    written = write(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA)
    print(json.dumps(written["head"]))
