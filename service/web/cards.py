"""Playing cards drawn as SVG for the pit's web dashboard (R-CARD-1, R-DECK-2).

Pure and standard-library only: no I/O, no card images and no fonts to download.  The suit symbols are the
module's own paths (a heart, a diamond, a club of three circles and a stem, a spade of an inverted heart and a
stem); only the ranks are text, in a generic serif font-family.  Every picture is a standalone ``<svg>`` with
``role="img"``, an ``aria-label`` and a ``<title>`` naming the card, so a browser test can find it by name.

The service sends ``??`` for a card the viewer may not see: it is drawn as a grey back.

>>> card_svg("As").startswith("<svg ")
True
>>> 'aria-label="ace of spades"' in card_svg("As"), 'aria-label="10 of diamonds"' in card_svg("Td")
(True, True)
>>> 'aria-label="card face down"' in card_svg("??")
True
>>> 'width="60" height="84"' in back_svg("red")
True
"""

from __future__ import annotations

from typing import Final

__all__ = ["BACK_COLOURS", "FACE_DOWN", "RANK_NAMES", "SUIT_NAMES", "back_svg", "card_label", "card_svg"]

FACE_DOWN: Final = "??"
"""The code the service sends for a card the viewer may not see."""

RANK_NAMES: Final[dict[str, str]] = {
    "2": "2",
    "3": "3",
    "4": "4",
    "5": "5",
    "6": "6",
    "7": "7",
    "8": "8",
    "9": "9",
    "T": "10",
    "J": "jack",
    "Q": "queen",
    "K": "king",
    "A": "ace",
}
"""Spoken name of each rank symbol (``T`` is the ten, read "10")."""

SUIT_NAMES: Final[dict[str, str]] = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
"""Plural name of each suit letter."""

BACK_COLOURS: Final[dict[str, str]] = {"red": "#a93226", "blue": "#1f4e99", "": "#8a8a8a"}
"""Fill of each card back: the red and the blue deck (R-DECK-2) and the neutral grey of an unknown deck (``""``)."""

_RED: Final = "#c0392b"
_BLACK: Final = "#1b1b1b"
_SUIT_COLOURS: Final[dict[str, str]] = {"c": _BLACK, "d": _RED, "h": _RED, "s": _BLACK}

_SVG_NS: Final = "http://www.w3.org/2000/svg"
_FONT: Final = "Georgia, 'DejaVu Serif', serif"
_FACE: Final = (
    '<rect x="1" y="1" width="98" height="138" rx="8" ry="8" fill="#ffffff" stroke="#9a9a9a" stroke-width="1"/>'
)


def _circle(cx: int, cy: int, r: int) -> str:
    """A circle as a closed subpath (two half arcs), so a club is one path."""
    return f"M{cx - r},{cy}a{r},{r} 0 1 0 {2 * r},0a{r},{r} 0 1 0 {-2 * r},0Z"


# Suit symbols in a 100×100 box centred on the origin (x and y from -50 to 50).
_SUIT_PATHS: Final[dict[str, str]] = {
    "h": (
        "M0,45C-20,28 -48,10 -48,-14C-48,-32 -36,-44 -22,-44C-12,-44 -4,-38 0,-28"
        "C4,-38 12,-44 22,-44C36,-44 48,-32 48,-14C48,10 20,28 0,45Z"
    ),
    "d": "M0,-50L38,0L0,50L-38,0Z",
    "c": (
        _circle(0, -24, 20)
        + _circle(-21, 8, 20)
        + _circle(21, 8, 20)
        + "M0,-24L-21,8L21,8ZM-3,4Q-3,38 -16,48H16Q3,38 3,4Z"
    ),
    "s": (  # the heart turned upside down (scaled by 0.8, raised by 10), on a stem
        "M0,-46C-16,-32.4 -38.4,-18 -38.4,1.2C-38.4,15.6 -28.8,25.2 -17.6,25.2C-9.6,25.2 -3.2,20.4 0,12.4"
        "C3.2,20.4 9.6,25.2 17.6,25.2C28.8,25.2 38.4,15.6 38.4,1.2C38.4,-18 16,-32.4 0,-46Z"
        "M-3,12Q-3,38 -16,48H16Q3,38 3,12Z"
    ),
}


def _height(width: int) -> int:
    """The card's height in pixels: 1.4 times its width, rounded half up."""
    return (width * 14 + 5) // 10


def _open(width: int, label: str) -> str:
    """The ``<svg>`` start tag and its ``<title>``; ``label`` is one of the module's own names, never outside text."""
    if isinstance(width, bool) or not isinstance(width, int) or width < 1:
        raise ValueError(f"card width must be a positive whole number of pixels, not {width!r}")
    return (
        f'<svg xmlns="{_SVG_NS}" width="{width}" height="{_height(width)}" viewBox="0 0 100 140" '
        f'role="img" aria-label="{label}"><title>{label}</title>'
    )


def _suit(suit: str, cx: float, cy: float, scale: float, colour: str) -> str:
    """One suit symbol centred on (cx, cy), ``scale`` times its 100-unit box."""
    return f'<path transform="translate({cx} {cy}) scale({scale})" fill="{colour}" d="{_SUIT_PATHS[suit]}"/>'


def card_label(code: str) -> str:
    """The accessible name of a card code: ``"ace of spades"``, ``"10 of diamonds"``, ``"card face down"`` (``??``).

    >>> card_label("Qh"), card_label("??")
    ('queen of hearts', 'card face down')
    """
    if code == FACE_DOWN:
        return "card face down"
    if not isinstance(code, str) or len(code) != 2 or code[0] not in RANK_NAMES or code[1] not in SUIT_NAMES:
        raise ValueError(f"unknown card {code!r} (R-CARD-1)")
    return f"{RANK_NAMES[code[0]]} of {SUIT_NAMES[code[1]]}"


def card_svg(code: str, *, width: int = 60) -> str:
    """The face of the card ``code`` (rank then suit: ``As``, ``Td``, ``9c``) as a standalone SVG ``width`` pixels wide.

    ``??`` (a card the viewer may not see) gives the grey back; any other code that is not a card is a ``ValueError``
    naming R-CARD-1.  The picture has no ``id``, so any number of faces can be inlined in one page.

    >>> svg = card_svg("9c", width=50)
    >>> svg.startswith('<svg xmlns="http://www.w3.org/2000/svg" width="50" height="70"'), svg.endswith("</svg>")
    (True, True)
    >>> card_svg("1s")
    Traceback (most recent call last):
    ...
    ValueError: unknown card '1s' (R-CARD-1)
    """
    label = card_label(code)
    if code == FACE_DOWN:
        return back_svg("", width=width)
    rank, suit = ("10" if code[0] == "T" else code[0]), code[1]
    colour = _SUIT_COLOURS[suit]
    size = 15 if rank == "10" else 18
    corner = (
        f'<text x="11" y="22" text-anchor="middle" font-family="{_FONT}" font-size="{size}" font-weight="bold" '
        f'fill="{colour}">{rank}</text>' + _suit(suit, 11, 33, 0.12, colour)
    )
    return (
        _open(width, label)
        + _FACE
        + f"<g>{corner}</g>"
        + f'<g transform="rotate(180 50 70)">{corner}</g>'
        + _suit(suit, 50, 70, 0.56, colour)
        + "</svg>"
    )


def back_svg(colour: str, *, width: int = 60) -> str:
    """The back of a face-down card as a standalone SVG ``width`` pixels wide: a diagonal cross-hatch in the deck's
    ``colour``, ``"red"`` or ``"blue"`` (R-DECK-2), or in neutral grey for ``""`` (deck unknown).

    Any other colour is a ``ValueError``.  The hatch pattern's id is made of the colour and the width, so backs of
    different colours never clash when inlined in one page (two of the same colour and width share one definition).

    >>> 'aria-label="blue deck back"' in back_svg("blue"), 'id="pt-back-blue-60"' in back_svg("blue")
    (True, True)
    >>> back_svg("green")
    Traceback (most recent call last):
    ...
    ValueError: unknown deck colour 'green': red, blue or '' (R-CARD-1, R-DECK-2)
    """
    if not isinstance(colour, str) or colour not in BACK_COLOURS:
        raise ValueError(f"unknown deck colour {colour!r}: red, blue or '' (R-CARD-1, R-DECK-2)")
    fill = BACK_COLOURS[colour]
    label = f"{colour} deck back" if colour else "card face down"
    head = _open(width, label)
    pattern_id = f"pt-back-{colour or 'grey'}-{width}"
    return (
        head
        + f'<defs><pattern id="{pattern_id}" width="8" height="8" patternUnits="userSpaceOnUse" '
        + 'patternTransform="rotate(45)">'
        + f'<rect width="8" height="8" fill="{fill}"/>'
        + '<path d="M0,0H8M0,0V8" stroke="#ffffff" stroke-width="1.5" stroke-opacity="0.55"/></pattern></defs>'
        + _FACE
        + f'<rect x="7" y="7" width="86" height="126" rx="5" ry="5" fill="url(#{pattern_id})" '
        + f'stroke="{fill}" stroke-width="2"/>'
        + "</svg>"
    )
