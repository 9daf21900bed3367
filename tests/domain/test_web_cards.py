"""Cards drawn as SVG for the pit's web dashboard (issue 16): faces, backs (R-DECK-2) and bad codes (R-CARD-1)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter

import pytest

from service.web.cards import BACK_COLOURS, back_svg, card_svg

SVG = "{http://www.w3.org/2000/svg}"
RANKS = "23456789TJQKA"
SUITS = "cdhs"
CODES = [rank + suit for rank in RANKS for suit in SUITS]
WORDS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king", "ace"]
RANK_WORDS = dict(zip(RANKS, WORDS, strict=True))
SUIT_WORDS = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
RED, BLACK = "#c0392b", "#1b1b1b"


def parse(svg: str) -> ET.Element:
    """The SVG parsed as XML; it must be a standalone <svg> in the SVG namespace."""
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root


def accessible_name(root: ET.Element) -> str:
    """The picture's aria-label, checked to be an image whose <title> says the same."""
    assert root.get("role") == "img"
    label = root.get("aria-label")
    assert label
    title = root.find(f"{SVG}title")
    assert title is not None
    assert title.text == label
    return label


def ids(root: ET.Element) -> list[str]:
    return [element.get("id", "") for element in root.iter() if element.get("id")]


def test_there_are_52_distinct_codes() -> None:
    assert len(set(CODES)) == 52


@pytest.mark.parametrize("code", CODES)
def test_every_card_renders_as_a_named_svg_in_its_suit_colour(code: str) -> None:
    root = parse(card_svg(code))
    assert accessible_name(root) == f"{RANK_WORDS[code[0]]} of {SUIT_WORDS[code[1]]}"
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == ("60", "84", "0 0 100 140")
    colour = RED if code[1] in "dh" else BLACK
    other = BLACK if colour == RED else RED
    # the rank twice (top-left and, turned, bottom-right), in the suit's colour
    texts = list(root.iter(f"{SVG}text"))
    assert [t.text for t in texts] == ["10" if code[0] == "T" else code[0]] * 2
    assert {t.get("fill") for t in texts} == {colour}
    # the suit drawn as paths (two corners and the middle), not as a glyph of some font
    paths = list(root.iter(f"{SVG}path"))
    assert len(paths) == 3
    assert {p.get("fill") for p in paths} == {colour}
    assert all(p.get("d") for p in paths)
    assert other not in card_svg(code)
    assert not any(symbol in card_svg(code) for symbol in "♣♦♥♠♧♢♡♤")
    # a rounded white face with a border
    face = root.find(f"{SVG}rect")
    assert face is not None
    assert face.get("fill") == "#ffffff"
    assert face.get("rx")
    assert face.get("stroke")
    # no ids: any number of faces can share a page
    assert ids(root) == []


def test_the_corner_rank_is_turned_in_the_bottom_right() -> None:
    root = parse(card_svg("Kh"))
    groups = list(root.iter(f"{SVG}g"))
    assert [g.get("transform") for g in groups] == [None, "rotate(180 50 70)"]


def test_each_suit_has_its_own_symbol() -> None:
    middles = {suit: list(parse(card_svg("A" + suit)).iter(f"{SVG}path"))[-1].get("d") for suit in SUITS}
    assert len(set(middles.values())) == 4


@pytest.mark.parametrize(("width", "height"), [(60, 84), (100, 140), (45, 63), (61, 85), (1, 1)])
def test_the_height_is_width_times_1_4(width: int, height: int) -> None:
    for svg in (card_svg("As", width=width), back_svg("red", width=width), card_svg("??", width=width)):
        root = parse(svg)
        assert (root.get("width"), root.get("height")) == (str(width), str(height))


@pytest.mark.parametrize("width", [0, -60])
def test_a_card_needs_a_positive_width(width: int) -> None:
    with pytest.raises(ValueError, match="width"):
        card_svg("As", width=width)
    with pytest.raises(ValueError, match="width"):
        back_svg("blue", width=width)


def test_a_card_the_viewer_may_not_see_is_the_grey_back() -> None:
    root = parse(card_svg("??"))
    assert accessible_name(root) == "card face down"
    assert card_svg("??") == back_svg("")
    assert BACK_COLOURS[""] in card_svg("??")
    assert list(root.iter(f"{SVG}text")) == []


@pytest.mark.parametrize(("colour", "label"), [("red", "red deck back"), ("blue", "blue deck back")])
def test_the_red_and_blue_decks_have_coloured_hatched_backs(colour: str, label: str) -> None:
    root = parse(back_svg(colour))
    assert accessible_name(root) == label
    pattern = root.find(f"{SVG}defs/{SVG}pattern")
    assert pattern is not None
    assert pattern.get("patternTransform") == "rotate(45)"
    assert [r.get("fill") for r in pattern.iter(f"{SVG}rect")] == [BACK_COLOURS[colour]]
    filled = [r for r in root.findall(f"{SVG}rect") if r.get("fill") == f"url(#{pattern.get('id')})"]
    assert len(filled) == 1
    assert list(root.iter(f"{SVG}text")) == []


def test_the_three_backs_differ_in_colour() -> None:
    assert len({BACK_COLOURS[c] for c in ("red", "blue", "")}) == 3
    assert BACK_COLOURS["red"] in back_svg("red")
    assert BACK_COLOURS["blue"] not in back_svg("red")


NOT_CARDS = ["", "?", "???", "A", "1s", "10d", "Xs", "Az", "as", "AS", "A♠", "tD", "T d", " As", "?s", "As\n"]


@pytest.mark.parametrize("code", NOT_CARDS)
def test_a_code_that_is_not_a_card_is_refused_naming_r_card_1(code: str) -> None:
    with pytest.raises(ValueError) as error:
        card_svg(code)
    assert str(error.value) == f"unknown card {code!r} (R-CARD-1)"


@pytest.mark.parametrize("colour", ["green", "Red", "BLUE", "grey", "??", " red", '"/><script>'])
def test_a_colour_that_is_not_a_deck_is_refused_naming_r_card_1(colour: str) -> None:
    with pytest.raises(ValueError, match="R-CARD-1"):
        back_svg(colour)


def test_backs_of_different_colours_in_one_page_have_no_duplicate_ids() -> None:
    page = "<html xmlns='http://www.w3.org/1999/xhtml'><body>{}</body></html>".format(
        "".join([back_svg("red"), back_svg("blue"), card_svg("??"), back_svg("red", width=90), card_svg("As")])
    )
    found = ids(ET.fromstring(page))
    assert len(found) == 4
    assert not [i for i, n in Counter(found).items() if n > 1]
    # every back fills from its own pattern
    for back in ET.fromstring(page).iter(f"{SVG}svg"):
        for rect in back.iter(f"{SVG}rect"):
            fill = rect.get("fill", "")
            if fill.startswith("url(#"):
                assert fill[5:-1] in ids(back)


def test_the_same_call_draws_the_same_picture() -> None:
    assert card_svg("Qd") == card_svg("Qd")
    assert back_svg("blue") == back_svg("blue")
