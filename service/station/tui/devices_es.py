"""The devices' alerts as a Spanish croupier reads them (issue 33: full Spanish at a Spanish station).

The shoe's and the shuffler's adapters (:mod:`devices.adapters`, :mod:`devices.link`) and the hardware station
(:mod:`service.station.hardware`) say what happened in English: those words are also what the table records in its
device reports, the log's one language.  A Spanish station shows them in Spanish: each message is built from a small
set of phrases, and each phrase has its translation here, so that a message made of several (``shoe: `` + the
irregularity + its rule) reads in Spanish whole.  A refusal of the service shows the rule's own words
(:mod:`.rules_es`).  Words no phrase covers (an operating system's error text) stay as they were.

>>> spanish_device_text("shoe: a card of the blue deck, while the red deck is in play (R-DECK-4)")
'zapato: una carta de la baraja azul, con la baraja roja en juego (R-DECK-4)'
>>> spanish_device_text("shuffler: shuffler fault: jam; the blue deck is not ready (R-DECK-3)")
'barajadora: fallo de la barajadora: atasco; la baraja azul no está lista (R-DECK-3)'
>>> spanish_device_text("shoe: reads 12–13 are missing (shoe read 4) (R-DECK-4)")
'zapato: faltan las lecturas 12–13 (lectura 4 del zapato) (R-DECK-4)'
"""

from __future__ import annotations

import re
from collections.abc import Callable

from service.station.tui.rules_es import spanish_refusal

COLOURS = {"red": "roja", "blue": "azul"}
"""A deck's colour as a Spanish croupier says it ("la baraja roja")."""
_C = r"(red|blue)"

Replacement = str | Callable[[re.Match[str]], str]


def _colours(template: str) -> Callable[[re.Match[str]], str]:
    """A replacement whose ``{1}``, ``{2}`` … are the match's groups, colours in Spanish."""
    return lambda match: template.format(None, *(COLOURS.get(group, group) for group in match.groups()))


PHRASES: list[tuple[re.Pattern[str], Replacement]] = [(re.compile(pattern), replacement) for pattern, replacement in (
    # the service and its connection (service/station/hardware.py)
    (r"^device report refused: [A-Z_]+: ", "informe del dispositivo rechazado: "),
    (r"^service lost \(([A-Z_]+)(: .*?)?\): read (\d+) \((\S+)\) held, not dealt; reads are held until the service "
     r"takes them$", r"servicio perdido (\1\2): lectura \3 (\4) retenida, no dada; las lecturas esperan a que el "
                     r"servicio las tome"),
    (r"^service lost: read (\d+) \((\S+)\) held, not dealt; (\d+) read\(s\) waiting for the service$",
     r"servicio perdido: lectura \1 (\2) retenida, no dada; \3 lectura(s) esperan al servicio"),
    (r"^service lost \(([A-Z_]+)\): device report held: ",
     r"servicio perdido (\1): informe del dispositivo retenido: "),
    (r"^service back: (\d+) held read\(s\) reconciled by sequence number$",
     r"servicio de vuelta: \1 lectura(s) retenida(s) conciliada(s) por número de secuencia"),
    (r"^hand not started: ", "mano no iniciada: "),
    # the ports and the lines (devices/link.py, devices/adapters.py)
    (r"^shoe not connected at (\S+): (.*); waiting for it$", r"zapato no conectado en \1: \2; se le espera"),
    (r"^shuffler not connected at (\S+): (.*); waiting for it$", r"barajadora no conectada en \1: \2; se la espera"),
    (r"^shoe connection lost: ", "conexión con el zapato perdida: "),
    (r"^shoe connection back$", "conexión con el zapato recuperada"),
    (r"^shuffler connection lost: ", "conexión con la barajadora perdida: "),
    (r"^shoe link: ", "línea del zapato: "),
    (r"^shuffler link: ", "línea de la barajadora: "),
    (r"(\d+) corrupt frame\(s\) discarded \(CRC, length or end byte\); the device resends",
     r"\1 trama(s) corrupta(s) descartada(s) (CRC, longitud o byte final); el dispositivo la(s) reenvía"),
    (r"frame (\d+) received twice, taken once", r"trama \1 recibida dos veces, tomada una"),
    (r"frame (\d+) carries no valid message \(type (0x[0-9a-f]+)\); discarded",
     r"la trama \1 no lleva un mensaje válido (tipo \2); descartada"),
    (r"the shuffler is not connected", "la barajadora no está conectada"),
    (r"the shuffler did not answer", "la barajadora no contestó"),
    # the shoe (devices/adapters.py)
    (r"^shoe silent: nothing heard for ([\d.]+) s \(no heartbeat\); cards drawn now are not read: check the shoe",
     r"zapato en silencio: nada oído en \1 s (sin latido); las cartas que salgan ahora no se leen: revise el zapato"),
    (r"^shoe heard again after its silence$", "el zapato vuelve a oírse tras su silencio"),
    (r"^unexpected message from the shoe: ", "mensaje inesperado del zapato: "),
    (r"^shoe restarted \(power cycle\): its reads are numbered from (\d+) again; the station counts on from (\d+)$",
     r"zapato reiniciado (apagado y encendido): numera sus lecturas otra vez desde \1; el puesto sigue contando "
     r"desde \2"),
    (r"shoe fault: unreadable card", "fallo del zapato: carta ilegible"),
    (r"shoe fault: double feed", "fallo del zapato: dos cartas a la vez"),
    (r"shoe fault: shoe empty", "fallo del zapato: zapato vacío"),
    (r"reads (\d+)–(\d+) are missing", r"faltan las lecturas \1–\2"),
    (r"a card read twice", "una carta leída dos veces"),
    (r" \(shoe read (\d+)\)", r" (lectura \1 del zapato)"),
    (r"an unreadable card: key it in by hand", "una carta ilegible: tecléela a mano"),
    (rf"a card of the {_C} deck, while the {_C} deck is in play", _colours("una carta de la baraja {1}, con la "
                                                                              "baraja {2} en juego")),
    (r"a card found face up in the deck", "una carta boca arriba en la baraja"),
    # the shuffler (devices/adapters.py, service/station/hardware.py)
    (r"shuffler fault: jam", "fallo de la barajadora: atasco"),
    (r"shuffler fault: door open", "fallo de la barajadora: puerta abierta"),
    (rf"it delivered the {_C} deck, the hand is dealt from the {_C} one: put the {_C} deck in the shoe",
     _colours("entregó la baraja {1} y la mano se da con la {2}: ponga la baraja {3} en el zapato")),
    (rf"the {_C} deck is incomplete \((\d+) counted\); check it before it is used",
     _colours("la baraja {1} está incompleta ({2} contadas); revísela antes de usarla")),
    (rf"put the {_C} deck in the shoe by hand", _colours("ponga a mano la baraja {1} en el zapato")),
    (rf"the {_C} deck is not ready", _colours("la baraja {1} no está lista")),
    (rf"the deck check answered for the {_C} deck, asked for the {_C} one",
     _colours("el recuento contestó por la baraja {1}; se pidió el de la {2}")),
    # what the table records of a fault (the detail of the hold it raises, R-HOLD-1)
    (r"deck not ready", "baraja no lista"),
    (r"the deck was not delivered", "la baraja no se entregó"),
    (rf"the {_C} deck delivered for a {_C} hand", _colours("la baraja {1} entregada para una mano de la {2}")),
    (r"read (\d+) (\S+) refused by the service: (.*) \((R-[A-Z0-9-]+)\)$", lambda match: (
        f"lectura {match[1]} {match[2]} rechazada por el servicio: "
        f"{spanish_refusal(match[4], match[3])} ({match[4]})")),
    (r"read (\d+) (\S+) refused by the service: ", r"lectura \1 \2 rechazada por el servicio: "),
    (r"\bread (\d+)( [2-9TJQKA][cdhs])?: ", r"lectura \1\2: "),
    (r"^shoe: ", "zapato: "),
    (r"^shuffler: ", "barajadora: "),
)]
"""Each phrase of the devices' messages (an English pattern) and its Spanish, applied in this order."""

REFUSED = re.compile(r"^refused: [A-Z_]+: (?P<message>.*) \((?P<rule>R-[A-Z0-9-]+)\)$")
"""A read or a report the service refused by a rule (``service.station.hardware``: ``refused: CODE: message
(rule)``)."""


def spanish_device_text(message: str) -> str:
    """A device's message in Spanish: a refusal by the rule's own words, anything else phrase by phrase."""
    refused = REFUSED.match(message)
    if refused is not None:
        rule = refused.group("rule")
        return f"RECHAZADO ({rule}): {spanish_refusal(rule, refused.group('message'))}"
    for pattern, replacement in PHRASES:
        message = pattern.sub(replacement, message)
    return message
