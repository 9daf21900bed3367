"""Issue 33, items 1 and 4: the table menu (``t``) at the full-screen station, against a real server on a free port.
A form checks every field before anything is sent; Escape sends nothing; what cannot be taken back is asked a second
time and ``n`` sends nothing; a refusal names its rule (in Spanish in the rule's own words) and records nothing; the
menu offers only what the station's role may do now."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import Input

from service.api import table_service_pb2 as svc
from service.station.tui import StationApp
from service.station.tui.forms import MENU_KEYS, ConfirmScreen, FormScreen, MenuScreen
from tests.support import grpc_support
from tests.support.grpc_support import TOKENS, Client, get_table
from tests.support.station_tui_support import SQLITE, focus_on, open_holdem, run, station, until

port = grpc_support.port
"""The server fixture of the gRPC suite (SQLite, the sole writer)."""


def pit_station(port: int) -> StationApp:
    """The pit's station (``--pit``): the pit boss's role, face-down cards in view."""
    return StationApp(f"127.0.0.1:{port}", TOKENS["pit"], "Mesa 1", lang="en", sees_down_cards=True)


def position(client: Client, table: str = "Mesa 1") -> int:
    """The table's last position: what it has recorded so far."""
    return get_table(client, table).position


async def choose(pilot: Pilot[None], app: StationApp, name: str) -> list[str]:
    """``t``, then the line of ``name``; the names the menu offered."""
    await pilot.press("t")
    await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the table menu")
    menu = app.screen
    assert isinstance(menu, MenuScreen)
    names = [entry for entry, _ in menu.entries]
    assert name in names, names
    await pilot.press(MENU_KEYS[names.index(name)])
    await until(pilot, lambda: isinstance(app.screen, FormScreen | ConfirmScreen), f"{name}'s form")
    return names


async def type_into(pilot: Pilot[None], app: StationApp, field: str, text: str) -> None:
    """Clear a form's field and type ``text`` into it (Enter not pressed)."""
    await focus_on(pilot, app, f"field-{field}")
    widget = app.screen.query_one(f"#field-{field}", Input)
    widget.value = ""
    await pilot.press(*text)


@SQLITE
def test_a_form_checks_every_field_before_sending_and_escape_sends_nothing(port: int) -> None:
    pit, _ = open_holdem(port)
    recorded = position(pit)
    app = pit_station(port)

    async def body(pilot: Pilot[None], app: StationApp) -> None:
        names = await choose(pilot, app, "op_add_chips")
        assert {"op_correct_stack", "op_close_table"} <= set(names) and "op_void" not in names  # between hands
        form = app.screen
        await type_into(pilot, app, "seat", "2")
        await pilot.press("enter")
        await type_into(pilot, app, "chips", "lots")
        await pilot.press("enter")
        await until(pilot, lambda: "chips: type a whole number" in app.screen_text(), "the field's reason")
        assert app.screen is form and position(pit) == recorded  # nothing sent
        await type_into(pilot, app, "chips", "0")
        await pilot.press("enter")
        await until(pilot, lambda: "chips: the number is too small" in app.screen_text(), "the field's reason")
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, FormScreen), "the form closed")
        assert position(pit) == recorded and get_table(pit).circle.stacks[2] == 100  # Escape sent nothing
        await choose(pilot, app, "op_add_chips")
        await type_into(pilot, app, "seat", "2")
        await pilot.press("enter")
        await type_into(pilot, app, "chips", "50")
        await pilot.press("enter")
        await until(pilot, lambda: app.answer is not None, "the answer")
        assert get_table(pit).circle.stacks[2] == 150 and position(pit) > recorded

    run(app, body)


@SQLITE
def test_closing_the_table_is_asked_a_second_time_and_no_sends_nothing(port: int) -> None:
    pit, _ = open_holdem(port)
    recorded = position(pit)
    app = pit_station(port)

    async def body(pilot: Pilot[None], app: StationApp) -> None:
        await choose(pilot, app, "op_close_table")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await until(pilot, lambda: not isinstance(app.screen, ConfirmScreen), "the question closed")
        assert position(pit) == recorded and not get_table(pit).circle.closed
        await choose(pilot, app, "op_close_table")
        await pilot.press("y")
        await until(pilot, lambda: app.answer is not None, "the answer")
        assert get_table(pit).circle.closed
        await until(pilot, lambda: app.view.circle.closed and "closed" in app.screen_text().lower(), "closed shown")
        await pilot.press("t")  # a closed table: no seat, no chips, no hand operation is offered any more
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the table menu")
        assert isinstance(app.screen, MenuScreen)
        left = {entry for entry, _ in app.screen.entries}
        assert not left & {"op_seat", "op_add_chips", "op_close_table", "op_leave"}, left

    run(app, body)


@SQLITE
def test_a_refusal_names_its_rule_in_the_stations_language_and_records_nothing(port: int) -> None:
    """A croupier seats a player at a taken seat: the service refuses by its rule, shown in Spanish at a Spanish
    station; nothing is recorded."""
    pit, _ = open_holdem(port)
    recorded = position(pit)
    app = station(port, TOKENS["dealer"], "Mesa 1", lang="es")

    async def body(pilot: Pilot[None], app: StationApp) -> None:
        names = await choose(pilot, app, "op_seat")
        assert "op_correct_stack" not in names and "op_close_table" not in names  # the pit's, not a croupier's
        await type_into(pilot, app, "seat", "3")
        await pilot.press("enter")
        await type_into(pilot, app, "chips", "40")
        await pilot.press("enter")
        await until(pilot, lambda: app.answer is not None, "the answer")
        assert app.answer is not None and app.answer.startswith("RECHAZADO (R-"), app.answer
        assert position(pit) == recorded and get_table(pit).circle.stacks[3] == 100
        listed = pit.ListTables(svc.ListTablesRequest()).tables
        assert [t.seats for t in listed if t.table == "Mesa 1"] == [4]

    run(app, body)
