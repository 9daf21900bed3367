"""Hand ids are unique per casino (issue 29, item 5): two stores that each open a table of the same name and play its
first hand give the two hands different ids; a table opened before the key existed keeps its hands' ids.

Tier: application (SQLite files) and domain."""

from __future__ import annotations

from pathlib import Path
from uuid import uuid5

import pytest

from domain.banked.table import BankedTable, BankedTableError
from domain.banked.thb import STANDARD_LIMITS, ThbSettings
from domain.cards.decks import BackColour, DeckIdentity
from domain.circle.hand import Hand
from domain.circle.state import HandRuleError
from domain.circle.table import Table
from service.app.application import PokerTables
from service.app.commands import OpenTable, Sit, StartHand
from service.store.persistence import environment
from tests.support.app_tables import RED, SETTINGS, ids

KEY = "0123456789abcdef0123456789abcdef"


def _first_hands(directory: Path) -> tuple[str, str]:
    """A store in ``directory`` with a circle table and a banked one, both named as in every other casino, each
    with its first hand started: the hands' ids."""
    app = PokerTables(env=environment(f"sqlite:///{directory / 'tables.db'}"))
    command = ids()
    app.handle(OpenTable(next(command), "Mesa 1", SETTINGS))
    for seat in (1, 2):
        app.handle(Sit(next(command), "Mesa 1", seat, 100))
    app.handle(StartHand(next(command), "Mesa 1", RED))
    app.handle(OpenTable(next(command), "THB 1", ThbSettings(STANDARD_LIMITS[10])))
    app.handle(StartHand(next(command), "THB 1", DeckIdentity(52, BackColour.RED)))
    circle, banked = app.table("Mesa 1"), app.any_table("THB 1")
    assert circle.hand_in_progress == circle.hand_id(1) and banked.hand_in_progress == banked.hand_id(1)
    return str(circle.hand_id(1)), str(banked.hand_id(1))


def test_r_aud_1_two_casinos_never_give_one_id_to_two_hands(tmp_path: Path) -> None:
    for casino in ("a", "b"):
        (tmp_path / casino).mkdir()
    first, second = _first_hands(tmp_path / "a"), _first_hands(tmp_path / "b")
    assert first[0] != second[0] and first[1] != second[1]
    assert len({*first, *second}) == 4


def test_a_table_opened_before_the_key_keeps_its_hands_ids_and_a_key_makes_them_its_own() -> None:
    old = Table.open("Mesa 1", SETTINGS)  # no key: as a table opened before it
    assert old.hands_namespace == old.id and old.hand_id(3) == uuid5(old.id, "hand/3") == Hand.create_id(old.id, 3)
    keyed = Table.open("Mesa 1", SETTINGS, hands_key=KEY)
    assert keyed.id == old.id  # the table is found by its name, as before
    assert keyed.hands_namespace == uuid5(keyed.id, f"hands/{KEY}") and keyed.hand_id(3) != old.hand_id(3)
    for seat in (1, 2):
        keyed.sit(seat, 100)
    hand = keyed.start_hand(RED)
    assert hand.id == keyed.hand_id(1) == keyed.hand_in_progress
    banked = BankedTable.open("THB 1", "holdem-bonus", ThbSettings(STANDARD_LIMITS[10]), hands_key=KEY)
    assert banked.start_hand(DeckIdentity(52, BackColour.BLUE)).id == banked.hand_id(1) != \
        BankedTable.open("THB 1", "holdem-bonus", ThbSettings(STANDARD_LIMITS[10])).hand_id(1)


@pytest.mark.parametrize("key", ["0123", "0123456789ABCDEF0123456789ABCDEF", "../hand/1" + "0" * 23, KEY + "0"])
def test_a_hands_key_is_32_lower_case_hex_digits_or_the_table_is_not_opened(key: str) -> None:
    with pytest.raises(HandRuleError, match="32 lower-case hex digits") as refused:
        Table.open("Mesa 1", SETTINGS, hands_key=key)
    assert refused.value.rule == "R-AUD-1"
    with pytest.raises(BankedTableError, match="32 lower-case hex digits"):
        BankedTable.open("THB 1", "holdem-bonus", ThbSettings(STANDARD_LIMITS[10]), hands_key=key)
