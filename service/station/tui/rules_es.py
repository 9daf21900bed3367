"""The rules a refusal names, as a Spanish croupier reads them (issue 33: full Spanish at a Spanish station).

The service refuses a command with the rule it breaks (``ErrorInfo.reason``, ``R-…``) and a message in English; a
Spanish station shows the rule's own words from the regulation (``../shared/seeds/``, RULES.md) instead of the
English message, the rule id beside them, so the croupier can look it up.  A rule not listed here keeps the service's
message.

>>> spanish_refusal("R-DRAW-2", "opening needs a pair of jacks or better")
'para abrir hace falta una pareja de jotas o mejor'
>>> spanish_refusal("R-XYZ-9", "something new")
'something new'
"""

from __future__ import annotations

from collections.abc import Mapping

RULES_ES: Mapping[str, str] = {
    "R-AUD-1": "cada acción queda registrada con quién la hizo: se necesita una persona identificada con permiso para "
               "ello, y los datos completos",
    "R-HOLD-1": "la mesa está retenida por una alerta sin reconocer: el jefe de mesa la reconoce antes de la próxima "
                "mano",
    "R-CARD-1": "baraja francesa de 52 cartas",
    "R-CARD-2": "la baraja no es del tamaño que pide la mesa (52, 48, 44, 40, 36, 32 o 28 cartas)",
    "R-CARD-6": "la mejor jugada se forma con las cartas que el juego permite",
    "R-CIRC-1": "el turno lo marca la mano, que rota en cada reparto",
    "R-CIRC-2": "barajar, cortar y reparto en orden; una carta vista en el corte obliga a barajar de nuevo",
    "R-CIRC-3": "se habla por turno: retirarse, pasar, igualar o subir según la apuesta en curso",
    "R-CIRC-4": "límite de subidas por ronda en límite fijo",
    "R-CIRC-5": "la apuesta no cabe en la estructura de la mesa (límite fijo, límite del bote o sin límite)",
    "R-CIRC-6": "se juega con las fichas de la mesa: sin fichas suficientes, all-in por lo que se tiene",
    "R-CIRC-7": "si todos los demás se retiran, el último gana el bote sin enseñar",
    "R-CIRC-9": "carta expuesta por error: la siguiente carta personal se da descubierta",
    "R-CIRC-10": "jugador ausente en su turno: pierde el ante y las apuestas obligadas y queda fuera de la mano",
    "R-CIRC-12": "la comisión de la casa es un ajuste de la mesa",
    "R-CIRC-13": "en la exposición enseña primero quien apostó o subió el último",
    "R-CIRC-14": "una mano anulada devuelve todas las fichas apostadas en ella",
    "R-DRAW-2": "para abrir hace falta una pareja de jotas o mejor",
    "R-DRAW-3": "tras una mano en blanco hacen falta damas, luego reyes, luego ases para abrir",
    "R-DRAW-4": "cada jugador descarta una vez, de 0 a 4 cartas, empezando por el que abrió",
    "R-DRAW-7": "el que abrió sin tener con qué abrir pierde la mano",
    "R-DRAW-8": "el tamaño de la baraja depende de los jugadores que reciben cartas",
    "R-STUD7-1": "stud de siete: el bring-in lo paga la carta vista más baja y no supera la apuesta pequeña",
    "R-PINE-1": "Crazy Pineapple: cada jugador descarta una carta tras el flop",
    "R-DECK-1": "las barajas se comprueban completas antes de usarse",
    "R-DECK-2": "las barajas roja y azul se alternan: mientras una está en juego la otra se baraja",
    "R-DECK-3": "ante la duda sobre el número de cartas se cuenta la baraja entera",
    "R-DECK-4": "carta fuera de su sitio, leída dos veces o que no es de la baraja en juego: no se da",
    "R-THB-1": "hasta 7 casillas, baraja de 52 cartas",
    "R-THB-2": "la apuesta está fuera de los límites de la mesa",
    "R-THB-3": "la apuesta de bonus solo con ante y antes del «no va más»",
    "R-THB-5": "en su turno cada jugador se retira o apuesta al flop el doble del ante",
    "R-THB-6": "al turn y al river se pasa o se apuesta exactamente el ante",
    "R-THB-8": "el pago se hace según quién tiene la mejor jugada",
    "R-THB-9": "el bonus se paga por las dos cartas del jugador",
    "R-THB-10": "el pago 1000 a 1 lo autoriza el director de juegos, con su motivo",
    "R-THB-11": "error en el reparto: se corrige o se anula según el caso",
    "R-THB-12": "si nadie juega contra el croupier, sus cartas van al descarte",
    "R-THB-13": "la reconstrucción de una mano solo en presencia del jefe de mesa",
    "R-CDP-1": "hasta 6 jugadores; el ante entre el mínimo y el máximo de la mesa",
    "R-CDP-2": "cada jugador puede cambiar 0, 1 o 2 cartas",
    "R-CDP-3": "cada jugador juega (el doble del ante) o se retira",
    "R-CDP-4": "la banca califica con pareja de ochos o mejor, si no cambia cartas",
    "R-CDP-5": "si la banca no califica, paga el ante",
    "R-CDP-6": "si la banca califica, gana la mejor jugada",
    "R-ACC-1": "el turno de la mesa se abre y se cierra entre manos, con el recuento de la bandeja",
    "R-ACC-2": "el recuento es por valor de ficha, cada valor una vez",
    "R-ACC-3": "un relleno o un crédito lo firma la otra parte; un vale solo cuenta firmado",
    "R-ACC-4": "el drop lo registra el jefe de mesa",
    "R-ACC-6": "el resultado del turno fuera de la banda teórica queda señalado",
}
"""Each rule's words as the croupier reads them in Spanish."""


def spanish_refusal(rule: str, message: str) -> str:
    """A refusal's words as a Spanish station shows them: the rule's, or the service's message when the rule is not
    listed (the rule's id is shown beside them)."""
    return RULES_ES.get(rule, message)
