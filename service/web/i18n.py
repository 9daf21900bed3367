"""The dashboard in Spanish and in English (issue 34, item 7): every text a page, a panel, a message or the floor's
script shows, written in English in the templates (``{{ t("Floor") }}``, ``{{ t("Hand {n} in progress", n=7) }}``)
and said in the session's language. Spanish is the casino's and the regulation's (the seeds' words: *mesa*,
*crupier*, *jefe de sala*, *bandeja*, *relleno*); a person chooses at sign-in, and switches at any page's header.

What the service itself says (a refusal's words) is the service's, in English, with its rule's id: the rules'
digest (docs/rules) says each in both languages. Card codes (``As``) and game codes are the same in both.

>>> words("es")("Hand {n} in progress", n=7), words("en")("Hand {n} in progress", n=7)
('Mano 7 en juego', 'Hand 7 in progress')
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

LANGUAGES = ("en", "es")
Words = Callable[..., str]

SPANISH: Mapping[str, str] = {
    # the header and the pages' names
    "Floor": "Sala", "Approvals": "Aprobaciones", "Alerts": "Alertas", "Disputes": "Reclamaciones",
    "Shift report": "Informe del turno", "Shufflers": "Barajadoras", "Dealers": "Crupieres", "Staff": "Personal",
    "Access log": "Registro de accesos", "Accounts": "Cuentas", "Sign out": "Salir", "Sign in": "Entrar",
    "Refused": "Rechazado", "Back to the floor": "Volver a la sala", "Español": "Español", "English": "English",
    "every time on these pages is the casino's": "todas las horas de estas páginas son las del casino",
    "pit-boss": "jefe de sala", "games-director": "director de juegos", "observer": "observador",
    "auditor": "auditor", "administrator": "administrador",
    # sign-in
    "Your employee number and password (the pit boss, the games director, an auditor, an observer, the "
    "administrator). Before the casino's staff are enrolled: the pit station's name and token, as in the stations "
    "file.": "Su número de empleado y su contraseña (jefe de sala, director de juegos, auditor, observador, "
             "administrador). Antes de dar de alta al personal del casino: el nombre y la clave de la estación de "
             "sala, como en el fichero de estaciones.",
    "Employee number": "Número de empleado", "Password": "Contraseña", "Language": "Idioma",
    "Sign-in refused.": "Entrada rechazada.",
    "Unknown station or token, or not a pit station.":
        "Estación o clave desconocida, o no es una estación de sala.",
    "Too many failed sign-ins from here: try again in {wait} s.":
        "Demasiados intentos fallidos desde aquí: vuelva a intentarlo en {wait} s.",
    # the floor
    "open alert": "alerta abierta", "open alerts": "alertas abiertas", "tables": "mesas", "dealing": "en juego",
    "held": "retenidas", "waiting for the pit": "esperan a la sala", "chips in play": "fichas en juego",
    "Table": "Mesa", "Game": "Juego", "Status": "Estado", "Needs the pit": "Necesita a la sala", "Since": "Desde",
    "Dealer": "Crupier", "Seats": "Asientos", "Hand": "Mano", "Hands": "Manos", "In play": "En juego",
    "Hands/h": "Manos/h", "Deck": "Baraja", "Shuffler": "Barajadora", "Waiting for": "Espera",
    "Thresholds": "Umbrales", "Result so far": "Resultado hasta ahora", "name": "nombre",
    "every game": "todos los juegos", "only the tables that need the pit": "solo las mesas que necesitan a la sala",
    "Compact": "Compacta", "every table as a tile: a floor of 200 on one screen":
        "cada mesa como una ficha: una sala de 200 en una pantalla",
    "Sound and notifications: off": "Sonido y avisos: no", "Sound and notifications: on": "Sonido y avisos: sí",
    "a sound and a desktop notification when a table is held, an alert is raised or escalated":
        "un sonido y un aviso en el escritorio cuando una mesa queda retenida o se abre o escala una alerta",
    # the floor's sentences the script draws too
    "HELD by {n} alert": "RETENIDA por {n} alerta", "HELD by {n} alerts": "RETENIDA por {n} alertas",
    "outside the band": "fuera de la banda", "outside the band now": "ya fuera de la banda",
    "{kind} {slip} ({value}) asked by the {side}": "{kind} {slip} ({value}) pedido por {side}",
    "fill": "relleno", "credit": "crédito", "croupier": "el crupier", "pit": "la sala",
    "{table}: held until the pit acknowledges its alert":
        "{table}: retenida hasta que la sala reconozca su alerta",
    "{table}: a new alert": "{table}: una alerta nueva",
    "{table}: an alert waits past its time: the games director's too":
        "{table}: una alerta espera más de lo debido: también la del director de juegos",
    # the table
    "Hand {n} in progress": "Mano {n} en juego", "Between hands ({n} dealt)": "Entre manos ({n} repartidas)",
    "dealer {id}": "crupier {id}", "Seat": "Asiento", "Stack": "Fichas", "Bet": "Apuesta", "In pot": "En el bote",
    "Cards": "Cartas", "State": "Estado", "folded": "retirado", "Board": "Mesa", "Pot": "Bote",
    "House result {n}": "Resultado de la banca {n}", "stage": "fase", "Box": "Casilla", "Bets": "Apuestas",
    "Result": "Resultado", "House": "Banca", "This table's hands": "Las manos de esta mesa",
    "open alerts of the table": "alertas abiertas de la mesa", "the table": "la mesa",
    "la mano (R-CIRC-1)": "la mano (R-CIRC-1)", "the dealer button": "el botón del crupier", "to act": "le toca",
    "all in": "all in", "The hand's last actions": "Las últimas acciones de la mano",
    "Run the table": "Llevar la mesa", "Rule": "Regla", "Void the hand": "Anular la mano",
    "Close the table": "Cerrar la mesa", "void the hand at {table}": "anular la mano en {table}",
    "close {table}": "cerrar {table}", "the hand is voided ({rule})": "la mano queda anulada ({rule})",
    "the table is closed": "la mesa queda cerrada",
    "a void names its rule and its reason (R-AUD-1)": "una anulación nombra su regla y su motivo (R-AUD-1)",
    "ante": "ante", "flop": "flop", "turn": "turn", "river": "river", "play": "juego",
    # approvals
    "Reason": "Motivo", "Approve": "Aprobar", "Refuse": "Rechazar",
    "The games director decides it (R-THB-10).": "Lo decide el director de juegos (R-THB-10).",
    "Texas Hold'em Bonus: the 1000:1 bonus of box {box} waits for the games director (R-THB-10).":
        "Texas Hold'em Bonus: el bono 1000:1 de la casilla {box} espera al director de juegos (R-THB-10).",
    "Box {box}:": "Casilla {box}:", "the croupier:": "el crupier:", "the board:": "la mesa:",
    "Bonus bet": "Apuesta de bono", "at 1000 to 1 it pays": "a 1000 por 1 paga",
    "Correction asked: {what} (R-AUD-1).": "Corrección pedida: {what} (R-AUD-1).",
    "a correction of the last action": "una corrección de la última acción",
    "Nothing waits for the pit.": "Nada espera a la sala.",
    # alerts
    "When ({zone})": "Cuándo ({zone})", "Kind": "Tipo", "What": "Qué", "Escalated": "Escalada",
    "Acknowledge": "Reconocer", "No open alert.": "Ninguna alerta abierta.", "casino log": "registro del casino",
    "open more than {n} min: escalated to the games director":
        "abierta más de {n} min: escalada al director de juegos",
    "Acknowledged this shift": "Reconocidas en este turno", "Raised ({zone})": "Abierta ({zone})",
    "Acknowledged by, and why": "Reconocida por, y por qué",
    "None acknowledged yet this shift.": "Ninguna reconocida aún en este turno.",
    "device-fault": "fallo de dispositivo", "void": "anulación", "deck-count": "recuento de baraja",
    "shuffler-integrity": "integridad de barajadora", "tampering": "manipulación",
    "software-integrity": "integridad del programa",
    # disputes and reconstruction
    "any table": "cualquier mesa", "any game": "cualquier juego", "From": "Desde", "To": "Hasta",
    "Outcome": "Resultado", "any": "cualquiera", "Search": "Buscar", "Started ({zone})": "Empezó ({zone})",
    "Winners": "Ganadores", "Reconstruct": "Reconstruir", "Export": "Exportar", "No hand found.": "Ninguna mano.",
    "reason (recorded, R-THB-13)": "motivo (queda registrado, R-THB-13)",
    "the pit boss or the games director (R-THB-13)": "el jefe de sala o el director de juegos (R-THB-13)",
    "showdown": "descubierta", "uncontested": "sin oposición", "voided": "anulada", "blank": "en blanco",
    "in-progress": "en juego", "settled": "liquidada",
    "hand {n}": "mano {n}", "reconstructed: \"{reason}\" (recorded, R-THB-13)":
        "reconstruida: «{reason}» (queda registrado, R-THB-13)",
    "◀ Previous": "◀ Anterior", "Next ▶": "Siguiente ▶", "Event 1 of {n}": "Evento 1 de {n}",
    "Event {at} of {n}": "Evento {at} de {n}", "version {n}": "versión {n}",
    # the shift report and the accounts
    "Show": "Mostrar", "Download CSV": "Descargar CSV", "Rake": "Comisión", "Bank result": "Resultado de la banca",
    "Voids": "Anulaciones", "Irregularities": "Irregularidades",
    "Accounts: each table's open or last shift": "Cuentas: el turno abierto o el último de cada mesa",
    "Shift": "Turno", "Opener": "Apertura", "Closer": "Cierre", "Fills": "Rellenos", "Credits": "Créditos",
    "Drop": "Caja (drop)", "Win": "Ganancia", "Hold %": "Retención %", "Theoretical win": "Ganancia teórica",
    "99 % band": "Banda del 99 %", "Theoretical hold %": "Retención teórica %", "Flag": "Aviso",
    "open": "abierto", "closed": "cerrado", "{low} to {high}": "{low} a {high}",
    "{table}: the bank's result, hand by hand": "{table}: el resultado de la banca, mano a mano",
    "the casino's current shift": "el turno actual del casino",
    "The tables' accounts are the pit's to read (R-ACC-5).":
        "Las cuentas de las mesas solo las lee la sala (R-ACC-5).",
    "Slips waiting for a signature": "Vales pendientes de firma", "Slip": "Vale", "Chips": "Fichas",
    "Asked by": "Pedido por", "Signs it": "Lo firma", "the pit": "la sala",
    "the croupier, at the station": "el crupier, en su estación", "Sign": "Firmar", "Withdraw": "Retirar",
    "No slip waits.": "Ningún vale pendiente.", "Each table's open or last shift": "El turno abierto o el último "
                                                                             "de cada mesa",
    "Opened by": "Abierto por", "The pit's side": "La parte de la sala",
    "Chips by value, each value once: {example} (R-ACC-2). The croupier's side is done at the station.":
        "Fichas por valor, cada valor una vez: {example} (R-ACC-2). La parte del crupier se hace en su estación.",
    "shift open": "turno abierto", "Ask": "Pedir", "Record": "Registrar", "Close the shift": "Cerrar el turno",
    "Open a shift": "Abrir un turno",
    # shufflers, dealers, staff, access
    "The current shift": "El turno actual", "the current shift's start": "el inicio del turno actual", "now": "ahora",
    "Time dealt": "Tiempo de juego", "Hands per hour": "Manos por hora", "Corrections": "Correcciones",
    "Exposed cards": "Cartas expuestas", "No dealer dealt in this range.": "Ningún crupier repartió en este "
                                                                           "intervalo.",
    "Rotations": "Relevos", "Time ({zone})": "Hora ({zone})", "Replaced": "Relevó a",
    "No sign-in or sign-out in this range.": "Ninguna entrada ni salida en este intervalo.",
    "Verdict": "Veredicto", "Serial": "Número de serie", "Model": "Modelo", "Tables": "Mesas",
    "Shuffles": "Barajados", "Cards compared": "Cartas comparadas", "seen": "visto", "if fair": "si es justa",
    "Alarm": "Alarma", "No shuffle seen in this range.": "Ningún barajado en este intervalo.",
    "No shuffler deck failed.": "Ninguna baraja de barajadora ha fallado.",
    "Name": "Nombre", "Roles": "Funciones", "Wrong PINs": "PIN erróneos", "Change": "Cambiar", "Apply": "Aplicar",
    "Enrol a person": "Dar de alta a una persona", "First PIN": "Primer PIN", "Enrol": "Dar de alta",
    "Reason or new PIN": "Motivo o PIN nuevo", "Who": "Quién", "Station": "Estación", "By": "Por",
    "Detail": "Detalle", "Nothing in this range.": "Nada en este intervalo.", "24 hours ago": "hace 24 horas",
    "Sign-ins, sign-outs, refused sign-ins, wrong PINs, lockouts and the staff's changes, from the log "
    "(docs/staff.md). No PIN or hash is ever shown.":
        "Entradas, salidas, entradas rechazadas, PIN erróneos, bloqueos y los cambios del personal, según el registro "
        "(docs/staff.md). Nunca se muestra un PIN ni su resumen.",
    "A dealer deals at a table from his sign-in until he signs out, the next dealer signs in or the table "
    "closes; the hands started meanwhile and the voids, corrections and exposed cards are his. Only what "
    "happened in the range counts, and his time is clipped to it (docs/alerts.md).":
        "Un crupier reparte en una mesa desde su entrada hasta que sale, entra el siguiente o la mesa cierra; las "
        "manos empezadas entretanto y las anulaciones, correcciones y cartas expuestas son suyas. Solo cuenta lo "
        "ocurrido en el intervalo, y su tiempo se recorta a él (docs/alerts.md).",
    "Every change is an event of the log in your name (docs/staff.md). A PIN is kept only as its Argon2id "
    "hash; ten wrong PINs in a row lock a badge until a new PIN is set.":
        "Cada cambio es un evento del registro a su nombre (docs/staff.md). Un PIN se guarda solo como su resumen "
        "Argon2id; diez PIN erróneos seguidos bloquean una tarjeta hasta que se fija un PIN nuevo.",
    "Each test at each look is held to {test}: the level {level} for the whole floor in a shift, shared by {decks} "
    "shuffler deck(s), {looks} looks a shift, gathering {gathering}; a deck passes after {least} shuffles seen "
    "without alarm (docs/integrity.md).":
        "Cada prueba en cada mirada se mide a {test}: el nivel {level} para toda la sala en un turno, repartido entre "
        "{decks} baraja(s) de barajadora, {looks} miradas por turno, recogida {gathering}; una baraja pasa tras "
        "{least} barajados vistos sin alarma (docs/integrity.md).",
    "{n} shuffler deck failed: take it out of play and call the technician.":
        "{n} baraja de barajadora ha fallado: sáquela del juego y llame al técnico.",
    "{n} shuffler decks failed: take them out of play and call the technician.":
        "{n} barajas de barajadora han fallado: sáquelas del juego y llame al técnico.",
    "suspend (reason)": "suspender (motivo)", "reinstate (reason)": "rehabilitar (motivo)", "new PIN": "PIN nuevo",
    "remove (reason)": "dar de baja (motivo)",
    # what the pit's forms say back
    "slip {slip} signed": "vale {slip} firmado", "slip {slip} withdrawn": "vale {slip} retirado",
    "drop of {n} recorded": "caja (drop) de {n} registrada", "no such operation: {action}": "no existe la operación: "
                                                                                           "{action}",
    "{kind} {slip} asked for: the croupier signs it at the station":
        "{kind} {slip} pedido: lo firma el crupier en su estación",
    "shift {n} opened": "turno {n} abierto", "shift {n} closed, win {win}": "turno {n} cerrado, ganancia {win}",
    " — outside the band of its theoretical win (R-ACC-6)": " — fuera de la banda de su ganancia teórica (R-ACC-6)",
    "a slip is named by its id, as written on it (R-ACC-3)":
        "un vale se nombra por su número, como está escrito en él (R-ACC-3)",
    "a slip withdrawn needs its reason (R-ACC-3)": "un vale retirado necesita su motivo (R-ACC-3)",
    "the drop is a whole number of chips, 1 or more (R-ACC-4)":
        "la caja (drop) es un número entero de fichas, 1 o más (R-ACC-4)",
    "chips by value: 100x20 25x40, each value once (R-ACC-2)":
        "fichas por valor: 100x20 25x40, cada valor una vez (R-ACC-2)",
    "a slip is a fill or a credit (R-ACC-3)": "un vale es un relleno o un crédito (R-ACC-3)",
    "the games director alone decides a 1000:1 bonus (R-THB-10)":
        "solo el director de juegos decide un bono 1000:1 (R-THB-10)",
    "a decision needs its reason (R-AUD-1)": "una decisión necesita su motivo (R-AUD-1)",
    "approved": "aprobado", "refused": "rechazado",
    "an acknowledgement needs its reason (R-AUD-1)": "un reconocimiento necesita su motivo (R-AUD-1)",
    "alert at {n} acknowledged": "alerta en {n} reconocida",
}
"""Each English text of the dashboard, in Spanish."""

ROW_WORDS: Mapping[str, str] = {
    "hand-in-progress": "mano en juego", "between-hands": "entre manos", "closed": "cerrada", "held": "retenida",
    "alert": "alerta", "waiting": "espera", "threshold": "umbral", "bonus": "bono", "correction": "corrección",
    "red": "roja", "blue": "azul",
}
"""The words a row of the floor is drawn with (its status, what needs the pit, what waits, the deck's colour), in
Spanish: the service's codes in English."""
HELD = re.compile(r"^HELD by (\d+) alerts?$")

SCRIPT_WORDS = (
    "HELD by {n} alert", "HELD by {n} alerts", "open alert", "open alerts", "tables",
    "dealing", "held", "waiting for the pit", "chips in play", "Sound and notifications: off",
    "Sound and notifications: on", "outside the band", "{kind} {slip} ({value}) asked by the {side}", "fill",
    "credit", "croupier", "pit", "{table}: held until the pit acknowledges its alert", "{table}: a new alert",
    "{table}: an alert waits past its time: the games director's too", "Event {at} of {n}", "device-fault", "void")
"""The words the floor's script draws itself (a row's status, what needs the pit, the totals, the signals)."""


def words(lang: str) -> Words:
    """The session's ``t``: a text of the dashboard in ``lang``, its ``{names}`` filled in."""
    table = SPANISH if lang == "es" else {}

    def t(text: str, **values: object) -> str:
        said = table.get(text, text)
        return said.format(**values) if values else said

    return t


def script_words(lang: str) -> dict[str, dict[str, str]]:
    """What the floor's script is given to say its words in ``lang`` (nothing: English): its texts and a row's
    words."""
    if lang != "es":
        return {}
    return {"text": {text: SPANISH[text] for text in SCRIPT_WORDS}, "row": dict(ROW_WORDS)}


def row_word(lang: str) -> Callable[[str], str]:
    """A row's word (:data:`ROW_WORDS`) in ``lang``."""
    return (lambda word: ROW_WORDS.get(word, word)) if lang == "es" else (lambda word: word)


def status_of(lang: str) -> Callable[[str], str]:
    """A table's status on the floor in ``lang``: its state, then how many alerts hold it.

    >>> status_of("es")("between-hands, HELD by 2 alerts"), status_of("en")("between-hands, HELD by 1 alert")
    ('entre manos, RETENIDA por 2 alertas', 'between-hands, HELD by 1 alert')
    """
    if lang != "es":
        return lambda status: status
    t, w = words(lang), row_word(lang)

    def said(status: str) -> str:
        parts = []
        for part in status.split(", "):
            held = HELD.match(part)
            parts.append(t("HELD by {n} alert" if held.group(1) == "1" else "HELD by {n} alerts", n=held.group(1))
                         if held else w(part))
        return ", ".join(parts)

    return said


def chosen(accept_language: str, asked: str = "") -> str:
    """The language a page is drawn in before anyone signs in: the one asked for, else the browser's first choice
    of the two, else English.

    >>> chosen("es-ES,es;q=0.9,en;q=0.8"), chosen("en-GB"), chosen("", "es"), chosen("fr")
    ('es', 'en', 'es', 'en')
    """
    if asked in LANGUAGES:
        return asked
    for part in accept_language.split(","):
        code = part.split(";")[0].strip().lower()[:2]
        if code in LANGUAGES:
            return code
    return "en"
