"""Issue 34, item 7 — the dashboard in Spanish and in English: every text a template writes has its Spanish; a person
who signs in in Spanish gets every page in Spanish (no header, button or label left in English), the words the
floor's script draws too; he switches to English from any page's header and back; a browser that prefers Spanish
is offered the sign-in in Spanish. A real service and dashboard over HTTP."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from service.web.i18n import ROW_WORDS, SPANISH
from tests.support.web_support import NAMES, TOKENS, Pit, holdem_table, pit_service, thb_waiting_for_the_director, until

TEMPLATES = Path(__file__).resolve().parents[2] / "service" / "web" / "templates"
SAID = re.compile(r"""\bt\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')""")
PAGES = ("/", "/approvals", "/alerts", "/disputes", "/disputes?table=Mesa+1", "/accounts", "/reports/shift",
         "/shufflers", "/dealers", "/tables/Mesa%201", "/tables/THB%201")


@pytest.fixture
def pit(tmp_path: Path) -> Iterator[Pit]:
    with pit_service(tmp_path) as running:
        yield running


def test_every_text_a_template_writes_has_its_spanish() -> None:
    missing = []
    for template in sorted(TEMPLATES.glob("*.html")):
        for double, single in SAID.findall(template.read_text(encoding="utf-8")):
            text = (double or single).replace('\\"', '"').replace("\\'", "'")
            if text not in SPANISH:
                missing.append(f"{template.name}: {text!r}")
    assert not missing, missing


def _sign_in(http: httpx.Client, who: str, lang: str) -> str:
    page = http.get("/signin").text
    assert 'name="lang"' in page
    reply = http.post("/signin", data={"station": NAMES[who], "token": TOKENS[who], "lang": lang},
                      follow_redirects=True)
    found = re.search(r'<meta name="csrf" content="([^"]+)">', reply.text)
    assert found is not None, reply.text[:500]
    return found.group(1)


def _english_left(page: str) -> list[str]:
    """The headers, buttons, labels and headings of a page still in English (a text with its own Spanish)."""
    texts = re.findall(r"<(?:th|button|h1|h2|legend|summary)[^>]*>([^<]+)<", page)
    texts += re.findall(r"<label[^>]*>([^<]+)<", page)
    left = []
    for text in (html.unescape(text).strip() for text in texts):
        if text and SPANISH.get(text, text) != text:
            left.append(text)
    return left


def test_a_person_who_signs_in_in_spanish_gets_every_page_in_spanish(pit: Pit) -> None:
    holdem_table(pit)
    thb_waiting_for_the_director(pit, opener=10_000)
    with httpx.Client(base_url=pit.url) as http:
        _sign_in(http, "pit", "es")
        until(lambda: "Mesa 1" in http.get("/").text, "the floor")
        for path in PAGES:
            page = http.get(path)
            assert page.status_code == 200, path
            assert '<html lang="es">' in page.text, path
            assert _english_left(page.text) == [], (path, _english_left(page.text))
        floor = http.get("/").text
        for spanish in ("Sala", "Necesita a la sala", "Sonido y avisos: no", "entre manos", "mano en juego"):
            assert spanish in floor, spanish
        words = json.loads(html.unescape(re.search(r'<script type="application/json" id="words">([^<]*)</script>',
                                                   floor).group(1)))  # type: ignore[union-attr]
        assert words["row"] == dict(ROW_WORDS) and words["text"]["open alerts"] == "alertas abiertas"
        assert "Texas Hold'em Bonus: el bono 1000:1 de la casilla 1 espera al director de juegos" in html.unescape(
            http.get("/approvals").text)


def test_the_language_is_switched_from_any_page_and_a_spanish_browser_is_offered_spanish(pit: Pit) -> None:
    holdem_table(pit)
    with httpx.Client(base_url=pit.url, headers={"Accept-Language": "es-ES,es;q=0.9"}) as http:
        assert '<html lang="es">' in http.get("/signin").text and "Número de empleado" in http.get("/signin").text
        csrf = _sign_in(http, "pit", "es")
        assert "Informe del turno" in http.get("/reports/shift").text
        back = http.post("/language", data={"lang": "en", "csrf": csrf}, follow_redirects=True,
                         headers={"Referer": f"{pit.url}/reports/shift"})
        assert back.url.path == "/reports/shift" and '<html lang="en">' in back.text
        assert "<h1>Shift report" in back.text
        forged = http.post("/language", data={"lang": "es", "csrf": csrf},
                           headers={"Referer": "https://elsewhere.example//evil.example/x"})
        assert forged.status_code == 403  # from another site: refused, the language left as it was
        assert '<html lang="en">' in http.get("/").text
        http.post("/language", data={"lang": "es", "csrf": csrf}, headers={"Referer": f"{pit.url}/"})
        assert '<html lang="es">' in http.get("/").text
    with httpx.Client(base_url=pit.url) as http:  # no preference said: English
        assert '<html lang="en">' in http.get("/signin").text
