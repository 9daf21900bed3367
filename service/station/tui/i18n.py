"""Every label of the full-screen station, in Spanish (the default, for a Spanish casino) and English: one table.

>>> Labels("en")("seat", seat=3)
'seat 3'
>>> Labels("es")("seat", seat=3)
'asiento 3'
>>> Labels("fr")
Traceback (most recent call last):
...
ValueError: no language 'fr' (es, en)
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from service.station.tui.devices_es import spanish_device_text
from service.station.tui.rules_es import spanish_refusal
from service.station.tui.shift_labels import SHIFT_TEXTS

LANGUAGES = ("es", "en")
"""The station's languages; the first is the default."""

_STATION_TEXTS: Mapping[str, tuple[str, str]] = {
    # the table
    "title": ("Puesto de croupier", "Dealer station"),
    "hand": ("mano {number}", "hand {number}"),
    "no_hand": ("entre manos", "between hands"),
    "deck": ("baraja {colour}", "{colour} deck"),
    "red": ("roja", "red"),
    "blue": ("azul", "blue"),
    "reshuffle": ("BARAJAR de nuevo la baraja {colour} antes de la próxima mano ({rule})",
                  "RESHUFFLE the {colour} deck before the next hand ({rule})"),
    "closed": ("mesa cerrada", "table closed"),
    "table_held": ("MESA RETENIDA por una alerta sin reconocer: {detail} ({rule}); el jefe de mesa la reconoce "
                   "antes de la próxima mano",
                   "TABLE HELD by an alert not acknowledged: {detail} ({rule}); the pit boss acknowledges it "
                   "before the next hand"),
    "deck_out": ("baraja {colour} FUERA DE JUEGO hasta que se registre una completa (R-DECK-3)",
                 "the {colour} deck is OUT OF PLAY until a complete one is checked in (R-DECK-3)"),
    "seat": ("asiento {seat}", "seat {seat}"),
    "box": ("caja {seat}", "box {seat}"),
    "col_seat": ("Asiento", "Seat"),
    "col_box": ("Caja", "Box"),
    "col_stack": ("Fichas", "Stack"),
    "col_bet": ("Apuesta", "Bet"),
    "col_in": ("En bote", "In pot"),
    "col_cards": ("Cartas", "Cards"),
    "col_state": ("Estado", "State"),
    "col_bets": ("Apuestas", "Bets"),
    "col_result": ("Resultado", "Result"),
    "button": ("botón", "button"),
    "folded": ("retirado", "folded"),
    "all_in": ("all-in", "all-in"),
    "board": ("Comunes", "Board"),
    "pot": ("Bote", "Pot"),
    "main_pot": ("bote principal {amount}", "main pot {amount}"),
    "side_pot": ("bote lateral {index}: {amount}", "side pot {index}: {amount}"),
    "house": ("Croupier", "Dealer"),
    "bank": ("Banca", "Bank"),
    "bank_result": ("resultado de la casa {amount:+}", "house result {amount:+}"),
    # what is due
    "next_card": ("Siguiente carta: {where}", "Next card: {where}"),
    "no_card": ("ninguna carta pendiente", "no card due"),
    "target_burn": ("quemar", "burn"),
    "target_hole": ("asiento {seat}", "seat {seat}"),
    "target_board": ("mesa (comunitaria)", "board (community)"),
    "target_box": ("caja {seat}", "box {seat}"),
    "target_dealer_left": ("croupier, izquierda", "dealer, left"),
    "target_dealer_right": ("croupier, derecha", "dealer, right"),
    "target_bank": ("banca", "bank"),
    "to_act": ("Habla {who}:", "{who} to act:"),
    "nobody": ("Nadie habla", "Nobody to act"),
    "card_prompt": ("carta (p. ej. As) + Intro", "card (e.g. As) + Enter"),
    # actions (the keys)
    "fold": ("no ir", "fold"),
    "check": ("pasar", "check"),
    "call": ("igualar {amount}", "call {amount}"),
    "bet": ("apostar {low}–{high}", "bet {low}–{high}"),
    "raise": ("subir {low}–{high}", "raise {low}–{high}"),
    "all_in_key": ("all-in", "all-in"),
    "bring_in": ("apuesta obligada", "bring-in"),
    "show": ("enseñar", "show"),
    "muck": ("tirar", "muck"),
    "deal": ("dar carta", "deal"),
    "key_check_call": ("pasar/igualar", "check/call"),
    "key_bet": ("apostar/subir", "bet/raise"),
    "key_play": ("jugar", "play"),
    "new_hand": ("nueva mano", "new hand"),
    "help": ("ayuda", "help"),
    "quit": ("salir", "quit"),
    "ante": ("ante", "ante"),
    "bonus": ("bonus", "bonus"),
    "close_bets": ("no va más", "no more bets"),
    "flop_bet": ("jugar (flop {amount})", "play (flop {amount})"),
    "banked_bet": ("apostar {amount}", "bet {amount}"),
    "exchange": ("cambiar cartas", "exchange cards"),
    "discard": ("descartar", "discard"),
    "play": ("jugar {amount}", "play {amount}"),
    "bets_open": ("Apuestas abiertas: [e] ante, [o] bonus, [v] no va más",
                  "Bets open: [e] ante, [o] bonus, [v] no more bets"),
    "approval": ("PENDIENTE: el director de juego aprueba el pago 1000:1 ({boxes})",
                 "PENDING: the games director approves the 1000:1 payment ({boxes})"),
    # stages and phases
    "phase_dealing": ("reparto", "dealing"),
    "phase_betting": ("apuestas", "betting"),
    "phase_drawing": ("descarte", "drawing"),
    "phase_showdown": ("enseñar", "showdown"),
    "phase_passed": ("mano en blanco", "blank hand"),
    "phase_complete": ("terminada", "complete"),
    "phase_void": ("anulada", "void"),
    "stage_betting": ("apuestas", "betting"),
    "stage_dealing": ("reparto", "dealing"),
    "stage_preflop": ("decisión antes del flop", "preflop decision"),
    "stage_turn": ("decisión del turn", "turn decision"),
    "stage_river": ("decisión del river", "river decision"),
    "stage_approval": ("aprobación pendiente", "approval pending"),
    "stage_exchange": ("cambio de cartas", "exchange"),
    "stage_decision": ("jugar o no ir", "play or fold"),
    "stage_bank": ("cartas de la banca", "bank's cards"),
    "stage_complete": ("liquidada", "settled"),
    "stage_void": ("anulada", "void"),
    # results
    "result": ("Resultado de la mano {number}", "Result of hand {number}"),
    "pays": ("pagar {amount} al {who}", "pay {amount} to {who}"),
    "rake": ("comisión {amount}", "rake {amount}"),
    "shown": ("{who} enseña {cards}", "{who} shows {cards}"),
    "voided": ("mano anulada ({rule})", "hand void ({rule})"),
    "passed": ("nadie abre: {amount} pasan a la próxima mano", "nobody opened: {amount} carry to the next hand"),
    "box_result": ("{who}: {spots} → total {total:+}", "{who}: {spots} → total {total:+}"),
    "bonus_class": ("bonus {name}", "bonus {name}"),
    # the showdown as the croupier calls it (service/station/tui/showdown.py)
    "called": ("{shown}: {hand}", "{shown}: {hand}"),
    "mucked": ("{who} tira sus cartas", "{who} mucks"),
    "seats": ("asientos {seats}", "seats {seats}"),
    "and": ("y", "and"),
    "won": ("gana el {who}{hand}", "{who} wins{hand}"),
    "split": ("reparten los {whom}{hand}: {share} cada uno", "{whom} split it{hand}: {share} each"),
    "with_hand": (" con {hand}", " ({hand})"),
    "unshown": (" sin enseñar", " without showing"),
    "odd_chip": ("la ficha impar al {who} (R-CIRC-11)", "the odd chip to {who} (R-CIRC-11)"),
    "odd_chips": ("las fichas impares a los {whom} (R-CIRC-11)", "the odd chips to {whom} (R-CIRC-11)"),
    "uncalled": ("apuesta no igualada: {amount} vuelven al {who}", "uncalled bet: {amount} back to {who}"),
    "carried": ("{amount} de manos en blanco", "{amount} carried from blank hands"),
    "payments": ("Pagos", "Payments"),
    "from_main": ("del bote principal", "from the main pot"),
    "from_side": ("del bote lateral {index}", "from side pot {index}"),
    "from_uncalled": ("(su apuesta no igualada)", "(his uncalled bet)"),
    "rake_total": ("comisión para la casa: {amount}", "rake to the house: {amount}"),
    "no_qualify": ("la banca no califica (R-CDP-5)", "the bank does not qualify (R-CDP-5)"),
    "qualifies": ("la banca califica: pareja de ochos o mejor (R-CDP-4)",
                  "the bank qualifies: a pair of eights or better (R-CDP-4)"),
    "house_way": ("forma de la casa (R-CDP-4): la banca guarda {kept} y cambia {changed}",
                  "house way (R-CDP-4): the bank keeps {kept} and changes {changed}"),
    "bank_draws": ("la banca recibe {card}", "the bank draws {card}"),
    "bank_now": ("la banca queda con {cards}", "the bank now holds {cards}"),
    "box_pays": ("pagar {amount} a la {who} ({spots})", "pay {amount} to {who} ({spots})"),
    "box_takes": ("retirar {amount} de la {who} ({spots})", "take {amount} from {who} ({spots})"),
    "box_returns": ("devolver a la {who}: {spots}", "give back to {who}: {spots}"),
    # prompts and messages
    "amount_title": ("{what} — importe ({low} a {high})", "{what} — amount ({low} to {high})"),
    "box_amount_title": ("{what} — caja e importe ({low} a {high}), p. ej. «1 {low}»",
                         "{what} — box and amount ({low} to {high}), e.g. \"1 {low}\""),
    "cards_title": ("{what} — cartas que devuelve {who} (0 a {most}), Intro",
                    "{what} — cards {who} gives back (0 to {most}), Enter"),
    "bad_card": ("«{text}» no es una carta (rango 2-9 T J Q K A y palo c d h s)",
                 "\"{text}\" is not a card (rank 2-9 T J Q K A and suit c d h s)"),
    "bad_amount": ("el importe va de {low} a {high}", "the amount is {low} to {high}"),
    "bad_box_amount": ("escriba la caja y el importe: «1 10»", "type the box and the amount: \"1 10\""),
    "refused": ("RECHAZADO ({rule}): {message}", "REFUSED ({rule}): {message}"),
    "unavailable": ("sin conexión con el servicio: {message}", "no connection to the service: {message}"),
    "connected": ("conectado a {address}", "connected to {address}"),
    "dealt": ("carta dada: {where}", "card dealt: {where}"),
    "help_title": ("Ayuda del puesto de croupier", "Dealer station help"),
    "help_body": (
        "Una tecla por acción; el asiento lo da el turno.\n"
        "  f  no ir          c  pasar / igualar    b  apostar / subir (importe)   a  all-in\n"
        "  i  apuesta obligada (stud)    x  descarte (póquer cubierto)    s  enseñar    m  tirar\n"
        "  Intro / d  dar la carta escrita (con zapato: d la teclea a mano)    n  nueva mano\n"
        "  k  enterado de las alertas de los dispositivos (zapato, barajadora)\n"
        "  r  corregir la última acción (el jefe de mesa aprueba desde su puesto con r)\n"
        "Mesas de banca (Hold'em Bonus, Póquer de Casino):\n"
        "  e  ante de una caja    o  bonus    v  no va más\n"
        "  f  no ir    p  jugar (flop o jugada)    c  pasar    b  apostar    x  cambiar cartas\n"
        "  ?  esta ayuda    ctrl+p  paleta de órdenes    q  salir\n"
        "Sólo se ofrecen las acciones que el servicio permite ahora.",
        "One key per action; the seat is the one whose turn it is.\n"
        "  f  fold          c  check / call        b  bet / raise (amount)        a  all-in\n"
        "  i  bring-in (stud)    x  discard (five-card draw)    s  show       m  muck\n"
        "  Enter / d  deal the typed card (with a shoe: d keys one by hand)    n  new hand\n"
        "  k  acknowledge the device alerts (shoe, shuffler)\n"
        "  r  correct the last action (the pit boss approves it from his station with r)\n"
        "Banked tables (Hold'em Bonus, Casino Draw Poker):\n"
        "  e  a box's ante        o  bonus    v  no more bets\n"
        "  f  fold     p  play (flop or play bet)    c  check    b  bet    x  exchange cards\n"
        "  ?  this help     ctrl+p  command palette      q  quit\n"
        "Only the actions the service allows now are offered.",
    ),
    "close": ("cerrar", "close"),
    "key_correction": ("corregir la última acción", "correct the last action"),
    "correction_title": ("Corregir la última acción del asiento {seat}: lo que ocurrió en la mesa, y el motivo",
                         "Correct seat {seat}'s last action: what happened at the table, and why"),
    "correction_what": ("f no ir · k pasar · c igualar · a all-in · i obligada · b 40 apostar o subir a 40",
                        "f fold · k check · c call · a all-in · i bring-in · b 40 bet or raise to 40"),
    "reason_what": ("motivo (queda registrado)", "reason (recorded)"),
    "bad_replacement": ("escriba f, k, c, a, i o b y el importe", "type f, k, c, a, i, or b and the amount"),
    "bad_reason": ("escriba el motivo (1 a {most} caracteres)", "type the reason (1 to {most} characters)"),
    "decision_title": ("{pending} — ¿aprobar o rechazar?", "{pending} — approve or refuse?"),
    "decision_what": ("a aprobar · r rechazar", "a approve · r refuse"),
    "bad_decision": ("escriba a (aprobar) o r (rechazar)", "type a (approve) or r (refuse)"),
    "correction_pending": ("corrección pendiente del asiento {seat}: {what} («{reason}») — espera al jefe de mesa",
                           "correction pending for seat {seat}: {what} (\"{reason}\") — waiting for the pit boss"),
    # the devices (--shoe, --shuffler)
    "card_from_shoe": ("la da el zapato   (d: teclearla a mano)", "from the shoe   (d: key it by hand)"),
    "card_by_hand": ("Carta tecleada a mano (el zapato no la leyó)", "A card keyed by hand (the shoe did not read it)"),
    "acknowledge": ("enterado de las alertas", "acknowledge the alerts"),
    "alerts_title": ("ALERTAS DE LOS DISPOSITIVOS: {count} sin confirmar — k: enterado (no se empieza mano antes)",
                     "DEVICE ALERTS: {count} not acknowledged — k: acknowledge (no new hand before)"),
    "devices_opening": ("abriendo los puertos del zapato y la barajadora…", "opening the shoe's and shuffler's ports…"),
    "shoe": ("Zapato", "Shoe"),
    "shuffler": ("Barajadora", "Shuffler"),
    "unidentified": ("sin identificar", "not identified"),
    "connected_device": ("conectado", "connected"),
    "not_connected": ("NO CONECTADO ({port}): se espera", "NOT CONNECTED ({port}): waiting for it"),
    "in_shoe": ("en el zapato: baraja {colour}", "in the shoe: the {colour} deck"),
    "shuffling": ("barajando la {colour}", "shuffling the {colour} deck"),
    "deck_check": ("{colour}: {counted} contadas, {state}", "{colour}: {counted} counted, {state}"),
    "complete": ("completa", "complete"),
    "incomplete": ("INCOMPLETA", "INCOMPLETE"),
    "reads": ("Lecturas: {dealt} dadas, {irregular} irregulares, {refused} rechazadas por el servicio",
              "Reads: {dealt} dealt, {irregular} irregular, {refused} refused by the service"),
    "held": ("SERVICIO PERDIDO: {count} lecturas retenidas, se envían al volver",
             "SERVICE LOST: {count} reads held, sent when it is back"),
    "keys_bar": ("?  ayuda     t  mesa y turno     ctrl+p  paleta de órdenes     q  salir",
                 "?  help     t  table and shift     ctrl+p  command palette     q  quit"),
}
"""Each label's Spanish and English text, in the order of :data:`LANGUAGES`; ``{name}`` fields are filled in."""
TEXTS: Mapping[str, tuple[str, str]] = {**_STATION_TEXTS, **SHIFT_TEXTS}
"""The station's labels and its shift's (:mod:`.shift_labels`)."""

GAMES: Mapping[str, tuple[str, str]] = {
    "holdem": ("Texas Hold'em", "Texas Hold'em"),
    "omaha": ("Omaha", "Omaha"),
    "stud7": ("Stud de siete cartas", "Seven-card stud"),
    "draw": ("Póquer cubierto", "Five-card draw"),
    "stud5": ("Stud de cinco cartas", "Five-card stud"),
    "sintetico": ("Póquer sintético", "Póquer sintético"),
    "pineapple": ("Crazy Pineapple", "Crazy Pineapple"),
    "holdem_bonus": ("Texas Hold'em Bonus", "Texas Hold'em Bonus"),
    "casino_draw": ("Póquer de Casino", "Casino Draw Poker"),
}
"""The games' names as the croupier calls them."""


_SUIT_LETTERS = {"s": "p", "h": "c", "d": "d", "c": "t"}
"""Each suit's code and its Spanish letter (picas, corazones, diamantes, tréboles)."""
CARD_CODE = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][cdhspt](?![A-Za-z0-9])")
"""A card's code inside a text (a device's alert, a refusal's message, a result), its suit in English or Spanish
letters: the station's one reading of it."""


class Labels:
    """The labels of one language: ``labels("call", amount=2)``."""

    def __init__(self, lang: str = LANGUAGES[0]) -> None:
        if lang not in LANGUAGES:
            raise ValueError(f"no language {lang!r} ({', '.join(LANGUAGES)})")
        self.lang = lang
        self.index = LANGUAGES.index(lang)

    def __call__(self, key: str, **fields: object) -> str:
        return TEXTS[key][self.index].format(**fields)

    def knows(self, key: str) -> bool:
        """Whether a label of this name exists."""
        return key in TEXTS

    def refusal(self, rule: str, message: str) -> str:
        """A refusal of the service with its rule: in Spanish, the rule's own words (:mod:`.rules_es`), the
        service's English message where the rule has none.

        >>> Labels("es").refusal("R-CIRC-3", "cannot check: there is a bet to call")
        'RECHAZADO (R-CIRC-3): se habla por turno: retirarse, pasar, igualar o subir según la apuesta en curso'
        """
        shown = spanish_refusal(rule, message) if self.lang == "es" else message
        return self("refused", rule=rule, message=shown)

    def card(self, code: str) -> str:
        """A card's code as this language writes it: in Spanish the suits are p, c, d, t (picas, corazones,
        diamantes, tréboles): ``Ah`` → ``Ac``, ``Tc`` → ``Tt``; a face-down card (``▒▒``, ``??``) as it is.

        >>> Labels("es").card("Ah"), Labels("es").card("Tc"), Labels("en").card("Ah"), Labels("es").card("??")
        ('Ac', 'Tt', 'Ah', '??')
        """
        if self.lang != "es" or len(code) != 2 or code[1] not in _SUIT_LETTERS:
            return code
        return code[0] + _SUIT_LETTERS[code[1]]

    def device(self, text: str) -> str:
        """A device's alert in this language: in Spanish phrase by phrase, a refusal by its rule's own words
        (:mod:`.devices_es`); the devices' and the station's English otherwise."""
        return spanish_device_text(text) if self.lang == "es" else text

    def cards_in(self, text: str) -> str:
        """Every card code in a text as this language writes it (:meth:`card`)."""
        if self.lang != "es":
            return text
        return CARD_CODE.sub(lambda match: self.card(match.group(0)), text)

    def game(self, code: str) -> str:
        """A game's name from its code (``stud7``; a hyphen read as an underscore)."""
        names = GAMES.get(code.replace("-", "_"))
        return names[self.index] if names else code
