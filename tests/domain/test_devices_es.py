"""Issue 33, item 4: full Spanish at a Spanish station, the devices' alerts included.  Every message the shoe's and
the shuffler's adapters, their lines and the hardware station raise (as they word them, with sample values) reads in
Spanish, no English word left; a refusal reads in its rule's own words; an English station reads them unchanged."""

from __future__ import annotations

import re

import pytest

from service.station.tui.devices_es import spanish_device_text
from service.station.tui.i18n import Labels

MESSAGES = [
    # devices/adapters.py: the shoe's irregularities, as the hardware station raises them ("shoe: … (rule)")
    "shoe: reads 12–13 are missing (R-DECK-4)",
    "shoe: reads 12–13 are missing (shoe read 4) (R-DECK-4)",
    "shoe: a card read twice (R-DECK-4)",
    "shoe: an unreadable card: key it in by hand (R-DECK-4)",
    "shoe: a card of the blue deck, while the red deck is in play (R-DECK-4)",
    "shoe: a card found face up in the deck (R-THB-11)",
    "shoe: shoe fault: unreadable card (R-DECK-4)",
    "shoe: shoe fault: double feed (R-DECK-4)",
    "shoe: shoe fault: shoe empty (R-DECK-4)",
    # devices/adapters.py and devices/link.py: the shoe's state
    "shoe connection lost: [Errno 5] Input/output error",
    "shoe link: 3 corrupt frame(s) discarded (CRC, length or end byte); the device resends",
    "shoe link: frame 7 received twice, taken once",
    "shoe link: frame 9 carries no valid message (type 0x7f); discarded",
    "shoe silent: nothing heard for 3.2 s (no heartbeat); cards drawn now are not read: check the shoe (R-AUD-1)",
    "shoe restarted (power cycle): its reads are numbered from 1 again; the station counts on from 45",
    # the shuffler (devices/adapters.py, service/station/hardware.py)
    "shuffler: shuffler fault: jam; the blue deck is not ready (R-DECK-3)",
    "shuffler: shuffler fault: door open; put the red deck in the shoe by hand",
    "shuffler: the shuffler did not answer; the red deck is not ready (R-DECK-3)",
    "shuffler: the shuffler is not connected; put the blue deck in the shoe by hand",
    "shuffler: the deck check answered for the red deck, asked for the blue one (R-DECK-3); the blue deck is not "
    "ready (R-DECK-3)",
    "shuffler: it delivered the blue deck, the hand is dealt from the red one: put the red deck in the shoe (R-DECK-2)",
    "shuffler: the red deck is incomplete (51 counted); check it before it is used (R-DECK-3)",
    "shuffler connection lost: [Errno 5] Input/output error",
    "shuffler link: 2 corrupt frame(s) discarded (CRC, length or end byte); the device resends",
    # service/station/hardware.py: the ports, the service
    "shoe not connected at /dev/ttyUSB0: [Errno 2] No such file or directory; waiting for it",
    "shuffler not connected at socket://127.0.0.1:9: [Errno 111] Connection refused; waiting for it",
    "service lost (UNAVAILABLE: failed to connect to all addresses): read 44 (Qh) held, not dealt; reads are held "
    "until the service takes them",
    "service lost (DEADLINE_EXCEEDED): device report held: shuffler fault: jam; deck not ready",
    # what the table records (a hold's detail)
    "PT-SIM-SHUFFLER SHUF-0001: shuffler fault: jam; deck not ready",
    "PT-SIM-SHOE SHOE-0001: read 12 Qh: a card read twice (R-DECK-4)",
    "PT-SIM-SHOE SHOE-0001: read 12 Qh refused by the service: the card was dealt already (R-DECK-4)",
    "PT-SIM-SHUFFLER SHUF-0001: the blue deck delivered for a red hand (R-DECK-2)",
    "PT-SIM-SHUFFLER SHUF-0001: shuffler fault: jam; the deck was not delivered",
]
ENGLISH = re.compile(r"\b(the|shoe|shuffler|deck|read|reads|card|held|lost|fault|frame|not|is|of|and|put|hand|"
                     r"connection|waiting|missing|twice|corrupt|silent|restarted|jam|door|delivered|incomplete|"
                     r"counted|check|service|report|refused|answer|answered|connected|ready)\b")
"""English words the Spanish must not keep (an operating system's error text is taken out first)."""
OS_ERRORS = re.compile(r"\[Errno \d+\][^;]*|failed to connect to all addresses|Input/output error")


@pytest.mark.parametrize("message", MESSAGES)
def test_every_device_alert_reads_in_spanish_at_a_spanish_station(message: str) -> None:
    spanish = Labels("es").device(message)
    assert spanish != message
    left = ENGLISH.findall(OS_ERRORS.sub("", spanish))
    assert not left, f"{message!r} → {spanish!r} keeps {left}"
    assert re.findall(r"R-[A-Z0-9-]+", spanish) == re.findall(r"R-[A-Z0-9-]+", message)  # the rules stay
    assert Labels("en").device(message) == message


def test_a_refusal_of_the_service_reads_in_its_rules_own_words() -> None:
    refused = "refused: FAILED_PRECONDITION: cannot check: there is a bet to call (R-CIRC-3)"
    assert spanish_device_text(refused) == ("RECHAZADO (R-CIRC-3): se habla por turno: retirarse, pasar, igualar o "
                                            "subir según la apuesta en curso")


def test_the_colours_are_said_as_a_spanish_croupier_says_them() -> None:
    assert spanish_device_text("shuffler: it delivered the blue deck, the hand is dealt from the red one: put the "
                               "red deck in the shoe (R-DECK-2)") == (
        "barajadora: entregó la baraja azul y la mano se da con la roja: ponga la baraja roja en el zapato (R-DECK-2)")
