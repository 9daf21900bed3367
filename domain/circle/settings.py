"""Table settings as data: variant, betting structure, stakes, raise cap and rake (R-CIRC-4, R-CIRC-5, R-CIRC-12).

Settings travel inside events, so they convert to and from plain dictionaries.

>>> settings = TableSettings.create("holdem", BettingStructure.NO_LIMIT, blinds=(5, 10))
>>> TableSettings.from_dict(settings.to_dict()) == settings
True
>>> settings.stakes.min_bet, settings.raise_cap
(10, None)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from itertools import pairwise
from typing import Any

from domain.cards.decks import DECK_SIZES
from domain.circle.variants import VARIANTS, Opening, Variant, draw_deck_size
from domain.errors import RuleError

MAX_SEATS = 10
"""The most players a circle table deals in (R-SYNTH-1 allows up to 10)."""


class InvalidSettingsError(RuleError):
    """Table settings that contradict the rules."""


def _verify_new_stakes(antes: tuple[int, ...], blinds: tuple[int, ...], deck_size: int | None) -> None:
    """What new settings may not have (issue 13); settings stored before these checks load as they were.

    Forced bets for more positions than a table has seats (60,000 blinds in one request once made every command of
    their table slower by 25 ms: the settings travel in events and views), blinds that decrease (R-CIRC-5: the small
    blind, the big blind, then any straddle; a position without a blind may be 0), a deck R-CARD-2 does not have."""
    if len(antes) > MAX_SEATS or len(blinds) > MAX_SEATS:
        raise InvalidSettingsError(f"antes and blinds are set for at most {MAX_SEATS} positions", rule="R-CIRC-5")
    posted = [blind for blind in blinds if blind]
    if any(later < earlier for earlier, later in pairwise(posted)):
        raise InvalidSettingsError(f"each blind is at least the one before it, not {'/'.join(map(str, blinds))}",
                                   rule="R-CIRC-5")
    if deck_size is not None and deck_size not in DECK_SIZES:
        sizes = ", ".join(map(str, DECK_SIZES))
        raise InvalidSettingsError(f"a deck has {sizes} cards, not {deck_size}", rule="R-CARD-2")


class AntePot(Enum):
    """Decision (setting ``ante_pot``): which pot the antes are in when they are not all equal or a player cannot
    post his whole ante.  With equal antes every player posts in full, the two readings agree."""

    MATCHED = "matched"
    """An ante is the player's chips in the pot like a bet (R-CIRC-6): a player short of the ante wins from each
    other player only as much as he put in, and the part of an ante above every other player's ante comes back to
    him at once (PHH ``ante_trimming_status = true``)."""
    MAIN = "main"
    """The antes are dead money in the main pot: every player still in contests all of them, even one all-in for his
    ante alone, and a big-blind ante stays in the main pot (PHH ``ante_trimming_status = false``, PHH's default)."""


class ShowdownOrder(Enum):
    """R-CIRC-13 (decision, setting ``showdown_order``): who shows first at the showdown."""

    LAST_AGGRESSOR = "last-aggressor"
    """The last to bet or raise in the last interval shows first, then clockwise; with no bet in it, the player still
    in who would speak first in that interval."""
    ANY = "any"
    """Players show or muck in any order (a replayed history keeps the order it recorded)."""


class MinRaise(Enum):
    """R-CIRC-3b (decision, setting ``min_raise``): how small a raise may be in pot- and no-limit."""

    STANDARD = "standard"
    """A raise is at least the last full bet or raise of the interval; a short all-in does not reopen the betting."""
    ANY = "any"
    """Any raise of at least one chip, and every raise reopens the betting."""


class BettingStructure(Enum):
    """How much may be bet (R-CIRC-5)."""

    FIXED_LIMIT = "fixed-limit"
    POT_LIMIT = "pot-limit"
    NO_LIMIT = "no-limit"


@dataclass(frozen=True, slots=True)
class Stakes:
    """Forced bets and bet sizes, in chips (integers).

    ``antes`` and ``blinds`` are per position, starting with the player left of the button (the small blind);
    heads-up the button posts the first blind (the small blind) and the other player the second.
    ``small_bet``/``big_bet`` are the fixed-limit sizes; ``min_bet`` the smallest bet in pot- and no-limit.
    """

    antes: tuple[int, ...] = ()
    blinds: tuple[int, ...] = ()
    bring_in: int = 0
    small_bet: int = 0
    big_bet: int = 0
    min_bet: int = 0

    def ante(self, position: int) -> int:
        """The ante of a position (0 when not set)."""
        return self.antes[position] if position < len(self.antes) else 0

    def blind(self, position: int) -> int:
        """The blind or straddle of a position (0 when not set)."""
        return self.blinds[position] if position < len(self.blinds) else 0


@dataclass(frozen=True, slots=True)
class RakePolicy:
    """House commission (R-CIRC-12): ``percent`` of each pot, at most ``cap`` chips a hand; default none."""

    percent: int = 0
    cap: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.percent <= 100 or self.cap < 0:
            raise InvalidSettingsError("rake is a percentage 0–100 with a non-negative cap", rule="R-CIRC-12")


@dataclass(frozen=True, slots=True)
class TableSettings:
    """Everything a hand needs to know about its table, as data."""

    variant: str
    structure: BettingStructure
    stakes: Stakes
    raise_cap: int | None = None
    rake: RakePolicy = field(default_factory=RakePolicy)
    deck_size: int = 52
    flush_beats_full_house: bool | None = None
    burn_cards: bool = True
    deck_by_players: bool = False
    """Five-card draw: the deck follows the number of players dealt in (R-DRAW-8) instead of ``deck_size``."""
    min_raise: MinRaise = MinRaise.STANDARD
    """R-CIRC-3b (decision): the smallest raise in pot- and no-limit, and whether a short all-in reopens."""
    ante_pot: AntePot = AntePot.MATCHED
    """Decision: the antes as matched chips (default) or as dead money in the main pot (a big-blind ante)."""
    showdown_order: ShowdownOrder = ShowdownOrder.LAST_AGGRESSOR
    """R-CIRC-13 (decision): the order in which players show at the showdown."""
    mano_speaks_first: bool = True
    """R-CIRC-1 (decision): at a table without blinds the holder of "la mano" (the round marker) speaks first;
    ``False``: the marker is a dealer button and the player on its left speaks first."""

    def deck_for(self, players: int) -> int:
        """The deck size of a hand dealt to ``players`` players."""
        return draw_deck_size(players) if self.deck_by_players else self.deck_size

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise InvalidSettingsError(f"unknown variant {self.variant!r}", rule="R-CIRC-5")
        stakes = self.stakes
        amounts = (*stakes.antes, *stakes.blinds, stakes.bring_in, stakes.small_bet, stakes.big_bet, stakes.min_bet)
        if any(amount < 0 for amount in amounts):
            raise InvalidSettingsError("stakes are never negative", rule="R-CIRC-5")
        if self.structure is BettingStructure.FIXED_LIMIT and not 0 < stakes.small_bet <= stakes.big_bet:
            raise InvalidSettingsError("fixed-limit needs a small and a big bet", rule="R-CIRC-5")
        if self.structure is not BettingStructure.FIXED_LIMIT and stakes.min_bet <= 0:
            raise InvalidSettingsError("pot- and no-limit need a minimum bet", rule="R-CIRC-5")
        if self.raise_cap is not None and self.raise_cap < 1:
            raise InvalidSettingsError("a raise cap allows at least the bet", rule="R-CIRC-4")
        if stakes.bring_in and self.variant_rules.streets[0].opening not in (Opening.BRING_IN, Opening.HIGH_CARD):
            raise InvalidSettingsError(f"{self.variant} has no bring-in", rule="R-STUD7-1")
        if self.deck_by_players and not self.variant_rules.deck_by_players:
            raise InvalidSettingsError(f"{self.variant} is not dealt with a deck by players", rule="R-DRAW-8")

    @property
    def marker_speaks_first(self) -> bool:
        """R-CIRC-1: whether the round marker's holder ("la mano") speaks first: a table without blinds whose
        setting ``mano_speaks_first`` is on.  Stud has no marker (dealt from the croupier's left, R-STUD5-2)."""
        return self.mano_speaks_first and self.variant_rules.button and not any(self.stakes.blinds)

    @property
    def variant_rules(self) -> Variant:
        """The variant's streets and hand rule."""
        return VARIANTS[self.variant]

    @classmethod
    def create(
        cls,
        variant: str,
        structure: BettingStructure,
        *,
        antes: int | tuple[int, ...] = 0,
        blinds: tuple[int, ...] = (),
        bring_in: int = 0,
        small_bet: int = 0,
        big_bet: int = 0,
        min_bet: int | None = None,
        raise_cap: int | str | None = "default",
        rake: RakePolicy | None = None,
        deck_size: int | None = None,
        burn_cards: bool = True,
        flush_beats_full_house: bool | None = None,
        min_raise: MinRaise = MinRaise.STANDARD,
        mano_speaks_first: bool = True,
        showdown_order: ShowdownOrder = ShowdownOrder.LAST_AGGRESSOR,
        ante_pot: AntePot = AntePot.MATCHED,
    ) -> TableSettings:
        """Settings with the defaults of RULES.md: a uniform ante, ``min_bet`` the big blind, and the
        fixed-limit cap of one bet and three raises (R-CIRC-4) unless ``raise_cap`` is given."""
        rules = VARIANTS.get(variant)
        if rules is None:
            raise InvalidSettingsError(f"unknown variant {variant!r}", rule="R-CIRC-5")
        ante_tuple = antes if isinstance(antes, tuple) else (antes,) * MAX_SEATS if antes else ()
        _verify_new_stakes(ante_tuple, blinds, deck_size)
        stakes = Stakes(
            antes=ante_tuple,
            blinds=blinds,
            bring_in=bring_in,
            small_bet=small_bet,
            big_bet=big_bet,
            min_bet=min_bet if min_bet is not None else max(blinds, default=0) or small_bet,
        )
        ceiling = small_bet if structure is BettingStructure.FIXED_LIMIT else stakes.min_bet
        if bring_in and bring_in > ceiling:  # new settings only: a table stored before this check loads as it was
            raise InvalidSettingsError(f"the bring-in ({bring_in}) is at most the "
                                       f"{'small bet' if structure is BettingStructure.FIXED_LIMIT else 'minimum bet'} "
                                       f"({ceiling}): the player who brings in may complete it to a bet, not post "
                                       "more (issue 33)", rule="R-STUD7-1")
        cap: int | None
        if raise_cap == "default":
            cap = 4 if structure is BettingStructure.FIXED_LIMIT else None
        else:
            cap = raise_cap if isinstance(raise_cap, int) else None
        return cls(
            variant=variant,
            structure=structure,
            stakes=stakes,
            raise_cap=cap,
            rake=rake or RakePolicy(),
            deck_size=deck_size or rules.deck_size,
            flush_beats_full_house=flush_beats_full_house,
            burn_cards=burn_cards,
            deck_by_players=rules.deck_by_players and deck_size is None,
            min_raise=min_raise,
            mano_speaks_first=mano_speaks_first,
            showdown_order=showdown_order,
            ante_pot=ante_pot,
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain data, for events."""
        s = self.stakes
        return {
            "variant": self.variant,
            "structure": self.structure.value,
            "stakes": {"antes": list(s.antes), "blinds": list(s.blinds), "bring_in": s.bring_in,
                       "small_bet": s.small_bet, "big_bet": s.big_bet, "min_bet": s.min_bet},
            "raise_cap": self.raise_cap,
            "rake": {"percent": self.rake.percent, "cap": self.rake.cap},
            "deck_size": self.deck_size,
            "flush_beats_full_house": self.flush_beats_full_house,
            "burn_cards": self.burn_cards,
            "deck_by_players": self.deck_by_players,
            "min_raise": self.min_raise.value,
            "mano_speaks_first": self.mano_speaks_first,
            "showdown_order": self.showdown_order.value,
            "ante_pot": self.ante_pot.value,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableSettings:
        """Settings from :meth:`to_dict`'s form."""
        stakes = data["stakes"]
        return cls(
            variant=data["variant"],
            structure=BettingStructure(data["structure"]),
            stakes=Stakes(tuple(stakes["antes"]), tuple(stakes["blinds"]), stakes["bring_in"], stakes["small_bet"],
                          stakes["big_bet"], stakes["min_bet"]),
            raise_cap=data["raise_cap"],
            rake=RakePolicy(**data["rake"]),
            deck_size=data["deck_size"],
            flush_beats_full_house=data["flush_beats_full_house"],
            burn_cards=data["burn_cards"],
            deck_by_players=data["deck_by_players"],
            # settings stored before these decisions were settings take their defaults
            min_raise=MinRaise(data.get("min_raise", MinRaise.STANDARD.value)),
            mano_speaks_first=data.get("mano_speaks_first", True),
            showdown_order=ShowdownOrder(data.get("showdown_order", ShowdownOrder.LAST_AGGRESSOR.value)),
            ante_pot=AntePot(data.get("ante_pot", AntePot.MATCHED.value)),
        )
