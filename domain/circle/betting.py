"""Betting in a circle-poker hand (RULES §2): forced bets, whose turn it is, the legal actions and raise ranges,
the verification and mutation of fold, check, call, bring-in, bet and raise, and the betting intervals."""

from __future__ import annotations

from collections import deque

from domain.cards.cards import Card, Rank
from domain.cards.hand_classes import Category, rank_name
from domain.cards.ranking import HandValue
from domain.circle.core import HandRuleError, HandStateCore, LegalActions, Phase
from domain.circle.settings import AntePot, BettingStructure, MinRaise
from domain.circle.stud import best_exposed, highest_up_card, lowest_up_card, shows_open_pair
from domain.circle.variants import Opening


class CircleBetting(HandStateCore):
    """The betting intervals: forced bets, actors, legal actions, and each action's check and effect."""

    def _require_actor(self, position: int) -> None:
        if self.phase is not Phase.BETTING or not self.queue:
            raise HandRuleError("no betting interval is open", rule="R-CIRC-3")
        if self.queue[0] != position:
            turn = f"it is {self.name(self.queue[0])}'s turn, not {self.name(position)}'s"
            raise HandRuleError(turn, rule="R-CIRC-3")

    def _can_raise_reason(self, position: int) -> str | None:
        """Why the player may not complete, bet or raise now (``None`` if he may)."""
        to_call = self.bet_to - self.bets[position]
        if self.bring_in_pending:
            return None
        reopens = self.settings.min_raise is MinRaise.ANY  # R-CIRC-3b setting: every raise reopens the betting
        if to_call < self.raise_increment and not reopens:
            return "a short all-in cannot be raised by a player who already acted"
        if self.settings.raise_cap is not None and self.raise_count >= self.settings.raise_cap \
                and self.settings.structure is BettingStructure.FIXED_LIMIT and len(self.in_hand) > 2:
            return f"the interval is capped at {self.settings.raise_cap} bets and raises"
        if self.short_all_ins and sum(self.short_all_ins) < self.raise_increment and position in self.acted \
                and not reopens:
            return "an all-in below a full raise does not reopen the betting (R-CIRC-3b, decision: min_raise standard)"
        if self.stacks[position] <= to_call:
            return "the player cannot cover more than a call"
        if not any(i != position and not self.folded[i] and self.stacks[i] + self.bets[i] > self.bet_to
                   for i in range(self.n)):
            return "every other player has folded or is all-in"
        return None

    def _street_min_bet(self) -> int:
        stakes = self.settings.stakes
        if self.settings.structure is BettingStructure.FIXED_LIMIT:
            return stakes.big_bet if self.street.big_bet else stakes.small_bet
        return stakes.min_bet

    def raise_range(self, position: int) -> tuple[int, int]:
        """The smallest and largest legal 'to' amounts of a bet, raise or completion (R-CIRC-5)."""
        cap = self.stacks[position] + self.bets[position]
        increment = max(self.raise_increment, self._street_min_bet())
        if self.settings.min_raise is MinRaise.ANY and self.bet_to and not self.completion_pending and \
                self.settings.structure is not BettingStructure.FIXED_LIMIT:
            increment = 1  # R-CIRC-3b setting ``any``: a raise of at least one chip (the first bet stays the minimum)
        low = increment if self.completion_pending else self.bet_to + increment
        structure = self.settings.structure
        if structure is BettingStructure.FIXED_LIMIT:
            high = low
            if self._big_bet_option():
                high = self.bet_to + self.settings.stakes.big_bet
        elif structure is BettingStructure.POT_LIMIT:
            high = max(low, 2 * self.bet_to - self.bets[position] + self.pot_total)
        else:
            high = cap
        return min(low, cap), min(high, cap)

    def _big_bet_option(self) -> bool:
        """R-STUD7-1: on 4th street, with an open pair showing, the first bet may be a big bet."""
        return (self.variant.open_pair_big_bet and self.street_index == 1 and self.raise_count == 0
                and shows_open_pair([self.up_cards(i) for i in self.in_hand]))

    def legal_actions(self, seats: list[int] | None = None, *, public: bool = False) -> LegalActions | None:
        """The actions open to the player to act, with their amounts; ``None`` outside betting.

        ``seat`` is the seat number from ``seats`` (by position), or the position itself without them.  ``public``:
        as anyone at the table may know them, from no face-down card: the opening bet of five-card draw is offered
        to every player, openers or not (issue 33: what the croupier's keys offer never tells whose cards hold
        openers; a player without them who opens is refused, R-DRAW-2)."""
        position = self.actor
        if position is None:
            return None
        seat = seats[position] if seats is not None else position
        to_call = min(self.bet_to - self.bets[position], self.stacks[position])
        can_raise = self._can_raise_reason(position) is None
        low, high = self.raise_range(position) if can_raise else (None, None)
        if self.bring_in_pending:
            return LegalActions(seat, False, False, None, min(self.settings.stakes.bring_in, self.stacks[position]),
                                low, high)
        can_fold = not (self.street.needs_openers and self.opener is None)
        if low is not None and self.street.needs_openers and self.opener is None and not public \
                and not self.has_openers(self.cards_of(position)):
            low = high = None  # R-DRAW-2: no openers, no opening bet
        return LegalActions(seat, can_fold, to_call == 0, to_call if to_call > 0 else None, None, low, high)

    def verify_fold(self, position: int) -> None:
        """R-CIRC-3: a player folds in turn; the bring-in must be posted first; before anyone opens, one checks."""
        self._require_actor(position)
        if self.bring_in_pending:
            raise HandRuleError("the lowest up card must bring in or complete", rule="R-STUD7-1")
        if self.street.needs_openers and self.opener is None:
            raise HandRuleError("nobody has opened: check (pass) instead of folding", rule="R-DRAW-2")

    def verify_check(self, position: int) -> None:
        """R-CIRC-3: checking only while nobody has bet in this interval."""
        self._require_actor(position)
        if self.bring_in_pending:
            raise HandRuleError("the lowest up card must bring in or complete", rule="R-STUD7-1")
        if self.bets[position] < self.bet_to:
            raise HandRuleError("cannot check: there is a bet to call", rule="R-CIRC-3")

    def verify_call(self, position: int) -> int:
        """R-CIRC-3 / R-CIRC-6: calling what is owed, or all-in for less; returns the chips put in."""
        self._require_actor(position)
        if self.bring_in_pending:
            raise HandRuleError("the lowest up card must bring in or complete", rule="R-STUD7-1")
        owed = self.bet_to - self.bets[position]
        if owed <= 0:
            raise HandRuleError("nothing to call: check instead", rule="R-CIRC-3")
        return min(owed, self.stacks[position])

    def verify_bring_in(self, position: int) -> int:
        """R-STUD7-1: the lowest up card brings in (all-in for less if short); returns the amount."""
        self._require_actor(position)
        if not self.bring_in_pending:
            raise HandRuleError("no bring-in is due", rule="R-STUD7-1")
        return min(self.settings.stakes.bring_in, self.stacks[position])

    def verify_raise_to(self, position: int, amount: int) -> None:
        """R-CIRC-3 / R-CIRC-4 / R-CIRC-5 / R-CIRC-6: bet, raise or complete to ``amount`` in total this interval."""
        self._require_actor(position)
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise HandRuleError("chips are whole numbers", rule="R-CIRC-5")
        reason = self._can_raise_reason(position)
        if reason is not None:
            raise HandRuleError(f"cannot raise: {reason}", rule="R-CIRC-4" if "capped" in reason else "R-CIRC-6")
        low, high = self.raise_range(position)
        if amount > self.stacks[position] + self.bets[position]:
            raise HandRuleError(f"{amount} is more than the player has ({self.stacks[position]} behind)",
                                rule="R-CIRC-6")
        if not low <= amount <= high:
            structure = self.settings.structure.value
            if low == high:
                raise HandRuleError(f"in {structure} the bet here is exactly {low}", rule="R-CIRC-5")
            raise HandRuleError(f"in {structure} the bet here is {low} to {high}, not {amount}", rule="R-CIRC-5")
        if self.settings.structure is BettingStructure.FIXED_LIMIT and high > low and amount not in (low, high):
            raise HandRuleError(f"the bet is {low} or {high}", rule="R-STUD7-1")
        if self.street.needs_openers and self.opener is None and not self.has_openers(self.cards_of(position)):
            raise HandRuleError(f"opening needs a pair of {rank_name(self.openers, plural=True)} or better",
                                rule="R-DRAW-2" if self.openers is Rank.JACK else "R-DRAW-3")

    def has_openers(self, cards: list[Card]) -> bool:
        """Whether five cards hold the openers in force: a pair of ``openers`` or better (R-DRAW-2, R-DRAW-3)."""
        return holds_openers(self.ranking.evaluate(cards), self.openers)

    def forced_bets(self) -> tuple[list[int], list[int]]:
        """The ante and the blind or straddle each position posts (R-CIRC-2, R-FLOP-1): the ante first, then the
        blind from what is left of the stack; a player who cannot cover them is all-in for what he has.  Under the
        decision ``ante_pot = matched`` the part of an ante above every other player's is never matched and stays
        with him (the blind is still the one owed after the whole ante: pokerkit's order, so PHH replays agree)."""
        antes = [min(self.ante_for(p), self.stacks[p]) for p in range(self.n)]
        blinds = [min(self.blind_for(p), self.stacks[p] - antes[p]) for p in range(self.n)]
        if self.settings.ante_pot is AntePot.MATCHED:
            matched = sorted(antes)[-2]
            antes = [min(ante, matched) for ante in antes]
        return antes, blinds

    def apply_forced_bet(self, position: int, amount: int, *, ante: bool) -> None:
        """An ante or a blind/straddle, posted before the deal (R-CIRC-2)."""
        self.stacks[position] -= amount
        self.contributed[position] += amount
        if ante:
            self.antes[position] += amount
        else:
            self.bets[position] += amount

    def apply_fold(self, position: int) -> None:
        """R-CIRC-3: the player forfeits every bet made."""
        self.folded[position] = True
        if self.queue and self.queue[0] == position:
            self.queue.popleft()
        else:
            self.queue = deque(i for i in self.queue if i != position)
        self.acted.add(position)
        self._after_action()

    def apply_check(self, position: int) -> None:
        """R-CIRC-3: check."""
        self.queue.popleft()
        self.acted.add(position)
        self._after_action()

    def apply_call(self, position: int, amount: int) -> None:
        """R-CIRC-3: call (all-in for less when short, R-CIRC-6)."""
        self._move(position, amount)
        self.queue.popleft()
        self.acted.add(position)
        self._after_action()

    def apply_bring_in(self, position: int, amount: int) -> None:
        """R-STUD7-1: the bring-in; the others may call it or complete."""
        self._move(position, amount)
        self.bring_in_pending = False
        self.queue.popleft()
        self.acted.add(position)
        self._after_action()

    def apply_raise_to(self, position: int, amount: int) -> None:
        """A bet, raise or completion to ``amount``; the others must act again."""
        if self.street.needs_openers and self.opener is None:
            self.opener = position  # R-DRAW-2: the first bet opens
        increment = amount - self.bet_to
        self._move(position, amount - self.bets[position])
        self.bring_in_pending = False
        self.completion_pending = False
        self.raise_count += 1
        self.last_aggressor = position  # R-CIRC-13: the last to bet or raise in the last interval shows first
        if increment >= self.raise_increment or self.settings.min_raise is MinRaise.ANY:
            self.acted = {position}
        else:
            self.acted.add(position)
        self.raise_increment = max(self.raise_increment, increment)
        if self.stacks[position]:
            self.short_all_ins.clear()
        else:
            self.short_all_ins.append(increment)
            if sum(self.short_all_ins) >= self.raise_increment:
                self.short_all_ins.clear()
        order = [(position + k) % self.n for k in range(1, self.n)]
        self.queue = deque(i for i in order if not self.folded[i] and self.stacks[i])
        self._after_action()

    def _move(self, position: int, amount: int) -> None:
        self.stacks[position] -= amount
        self.bets[position] += amount
        self.contributed[position] += amount

    def _begin_betting(self) -> None:
        self.raise_increment = 0
        self.last_aggressor = None
        # R-CIRC-4: before the flop the big blind is the interval's first bet
        self.raise_count = 1 if self.street_index == 0 and any(self.bets) else 0
        self.acted.clear()
        self.short_all_ins.clear()
        if self.betting_closed:
            self._end_betting()
            return
        opener = self._opener()
        order = [(opener + k) % self.n for k in range(self.n)]
        self.queue = deque(i for i in order if not self.folded[i] and self.stacks[i] and self._can_be_matched(i))
        first = self.street_index == 0 and self.street.opening in (Opening.BRING_IN, Opening.HIGH_CARD)
        self.bring_in_pending = first and self.settings.stakes.bring_in > 0
        self.completion_pending = self.bring_in_pending
        self.phase = Phase.BETTING
        if not self.queue or (len(self.queue) == 1 and self.bets[self.queue[0]] >= self.bet_to):
            self._end_betting()  # nobody to act, or one player alone who has nobody to bet against

    def _opener(self) -> int:
        players = self.in_hand
        match self.street.opening:
            case Opening.POSITION:
                if self.street_index == 0 and any(self.settings.stakes.blinds):
                    blinds = [self._blind(p) for p in range(self.n)]
                    biggest = max(range(self.n), key=lambda p: (self.bets[p] if blinds[p] else 0, p))
                    return (biggest + 1) % self.n
                return 0
            case Opening.BRING_IN:
                ups = [self.up_cards(p) if not self.folded[p] else [] for p in range(self.n)]
                return lowest_up_card(ups)
            case Opening.HIGH_CARD:
                ups = [self.up_cards(p) if not self.folded[p] else [] for p in range(self.n)]
                if self.settings.stakes.bring_in:  # R-STUD5-3 setting: the lowest up card brings in
                    return lowest_up_card(ups)
                return highest_up_card(ups)
            case Opening.OPENER:  # R-DRAW-6: the opener, or the first player still in after him
                start = self.opener if self.opener is not None else 0
                return next(p for p in ((start + k) % self.n for k in range(self.n)) if not self.folded[p])
            case Opening.BEST_EXPOSED:
                return best_exposed([self.up_cards(p) if p in players else [] for p in range(self.n)])
        raise AssertionError(self.street.opening)  # pragma: no cover

    def ante_for(self, position: int) -> int:
        """The ante this position owes; heads-up the two are swapped like the blinds (a big-blind ante stays with the
        big blind), as PHH and pokerkit list them."""
        stakes = self.settings.stakes
        return stakes.ante(self.n - 1 - position) if self.n == 2 else stakes.ante(position)

    def _blind(self, position: int) -> int:
        """The blind a position posts; heads-up the button posts the small blind (reversed order)."""
        stakes = self.settings.stakes
        return stakes.blind(self.n - 1 - position) if self.n == 2 else stakes.blind(position)

    def blind_for(self, position: int) -> int:
        """The blind or straddle this position must post (R-CIRC-2)."""
        return self._blind(position)

    def _after_action(self) -> None:
        """The interval ends when one player is left or every player due to act has acted: a player who has not
        acted yet keeps his turn even when nobody is left to bet against him (the big blind's option: he checks)."""
        if len(self.in_hand) <= 1 or not self.queue:
            self._end_betting()

    def _can_be_matched(self, position: int) -> bool:
        """Another player still in could put in more than this player's bet: acting can change something for him.
        A player whose bet already covers every other player's chips is not asked to act (pokerkit plays the same)."""
        return any(self.stacks[i] + self.bets[i] > self.bets[position] for i in self.in_hand if i != position)

    def _end_betting(self) -> None:
        matched, top = sorted(self.bets)[-2:]
        if top > matched:  # the part of the last bet nobody matched in this interval goes back to its bettor
            self.uncalled[self.bets.index(top)] += top - matched
        self.queue.clear()
        self.bring_in_pending = self.completion_pending = False
        if self.street.needs_openers and self.opener is None:
            self.phase = Phase.PASSED  # R-DRAW-3: everybody checked, a blank hand
            return
        if len(self.in_hand) <= 1:
            self.phase = Phase.SHOWDOWN
            return
        if sum(1 for p in self.in_hand if self.stacks[p]) <= 1:
            self.betting_closed = True
        if self.street_index + 1 < len(self.variant.streets):
            self.bets = [0] * self.n
            self._begin_street(self.street_index + 1)
        else:
            self.phase = Phase.SHOWDOWN


def holds_openers(value: HandValue, openers: int) -> bool:
    """Whether a five-card hand of this value opens when ``openers`` (a rank: 11 jacks … 14 aces) is the lowest pair
    that does: that pair or a better one, or any better category (R-DRAW-2, R-DRAW-3)."""
    if value.category is Category.PAIR:
        return value.hand_class.ranks[0] >= openers
    return value.category > Category.PAIR
