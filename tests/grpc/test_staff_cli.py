"""``pokertable staff`` and ``pokertable report access`` (issue 32) against a real server on a free port: the first
administrator enrolled from the IT station, the others by him signed in, a suspension and a reset; the authentication
log printed with names; and no PIN or token ever taken on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.app.credentials import Credentials
from service.bootstrap import open_store
from service.cli.main import main
from tests.grpc.test_staff_shift import ADMIN_TOKEN, STAFF_STATIONS
from tests.support.grpc_support import serving


def test_the_administrator_keeps_the_staff_from_the_command_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'tables.db'}"
    store = open_store(url, writer=True)
    store.app.staff.credentials = Credentials(Credentials.FAST)
    token_file = tmp_path / "it.token"
    token_file.write_text(ADMIN_TOKEN + "\n")
    token_file.chmod(0o600)
    pin_file = tmp_path / "new.pin"
    try:
        with serving(store.app, STAFF_STATIONS) as port:
            server = ["staff", "--server", f"127.0.0.1:{port}", "--token-file", str(token_file)]
            monkeypatch.setenv("POKERTABLE_NEW_PIN", "first-admin-1")
            assert main([*server, "add", "A1", "--name", "Ana Admin", "--role", "administrator"]) == 0
            # from now on the station alone may do nothing
            assert main([*server, "list"]) == 1
            assert "no person is signed in at it" in capsys.readouterr().err
            monkeypatch.setenv("POKERTABLE_PIN", "first-admin-1")
            pin_file.write_text("carlos-pin-1\n")
            pin_file.chmod(0o600)
            assert main([*server, "--as", "A1", "add", "C1", "--name", "Carlos", "--role", "croupier",
                         "--pin-file", str(pin_file)]) == 0
            assert main([*server, "--as", "A1", "suspend", "C1", "--reason", "investigation"]) == 0
            monkeypatch.setenv("POKERTABLE_NEW_PIN", "carlos-pin-2")
            assert main([*server, "--as", "A1", "reset", "C1"]) == 0
            capsys.readouterr()
            assert main([*server, "--as", "A1", "list", "--format", "json"]) == 0
            people = {p["id"]: p for p in json.loads(capsys.readouterr().out)}
            assert (people["C1"]["status"], people["C1"]["roles"]) == ("suspended", ["croupier"])
            monkeypatch.setenv("POKERTABLE_PIN", "a-wrong-pin")
            assert main([*server, "--as", "A1", "list"]) == 1
            err = capsys.readouterr().err
            assert "wrong badge or PIN" in err and "a-wrong-pin" not in err
    finally:
        store.close()
    assert main(["report", "access", "--db", url, "--format", "json"]) == 0
    out = capsys.readouterr().out
    entries = json.loads(out)["entries"]
    kinds = [(e["kind"], e["person"], e["by"]) for e in entries]
    assert ("enrolled", "A1", "") in kinds and ("enrolled", "C1", "A1") in kinds
    assert ("suspended", "C1", "A1") in kinds and ("pin-reset", "C1", "A1") in kinds
    assert ("wrong-pin", "A1", "") in kinds
    assert {e["name"] for e in entries if e["person"] == "C1"} == {"Carlos"}
    assert not any(secret in out for secret in ("first-admin-1", "carlos-pin-1", "carlos-pin-2", "$argon2",
                                                ADMIN_TOKEN))
    assert main(["report", "access", "--db", url]) == 0
    assert capsys.readouterr().out.splitlines()[0].split() == ["time", "kind", "person", "name", "station", "by",
                                                              "detail"]


def test_no_secret_is_taken_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["staff", "--token", "x", "list"])
    with pytest.raises(SystemExit):
        main(["staff", "add", "C1", "--name", "C", "--role", "croupier", "--pin", "123456"])
    capsys.readouterr()


def test_a_croupier_signs_in_at_the_plain_station_with_his_badge_and_his_commands_name_him(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from domain.attribution import BY_PERSON, BY_STATION
    from service.api import table_service_pb2 as svc
    from tests.support.grpc_support import TOKENS, Client, open_circle

    store = open_store(f"sqlite:///{tmp_path / 'tables.db'}", writer=True)
    store.app.staff.credentials = Credentials(Credentials.FAST)
    token_file = tmp_path / "mesa-1.token"
    token_file.write_text(TOKENS["dealer"] + "\n")
    script = tmp_path / "shift.txt"
    script.write_text("sit 1 100\nsit 2 100\n")
    try:
        with serving(store.app, STAFF_STATIONS) as port:
            admin = Client(port, ADMIN_TOKEN)
            for person, name, roles, pin in (("A1", "Ana Admin", ["administrator"], "admin-pin-1"),
                                             ("C1", "Carlos Croupier", ["croupier"], "croupier-1"),
                                             ("P1", "Pedro Pit", ["pit-boss"], "pitboss-1")):
                admin.EnrolPerson(svc.EnrolPersonRequest(command_id=admin.next_id(), person_id=person, name=name,
                                                         roles=roles, pin=pin))
                if person == "A1":
                    admin.sign_in("A1", "admin-pin-1")
            pit = Client(port, TOKENS["pit"])
            pit.sign_in("P1", "pitboss-1")
            open_circle(pit, "Mesa 1")
            plain = ["station", "--plain", "--server", f"127.0.0.1:{port}", "--table", "Mesa 1"]
            token_file.chmod(0o644)  # anyone on the machine may read it: refused
            assert main([*plain, "--token-file", str(token_file), "--script", str(script)]) == 2
            assert "readable by anyone" in capsys.readouterr().err
            token_file.chmod(0o600)
            monkeypatch.setenv("POKERTABLE_PIN", "croupier-1")
            assert main([*plain, "--token-file", str(token_file), "--badge", "C1", "--script", str(script)]) == 0
            assert "Carlos Croupier signed in as croupier" in capsys.readouterr().err
            monkeypatch.delenv("POKERTABLE_PIN")
            assert main([*plain, "--token", TOKENS["dealer"], "--script", str(script)]) in (0, 1)
            err = capsys.readouterr().err
            assert "warning: --token shows the station's token" in err and "no person is signed in" in err
        seated = [store.app.mapper.to_domain_event(n) for n in store.app.recorder.select_notifications(1, 10_000)
                  if n.topic.endswith("PlayerSeated")]
        assert [(vars(e)[BY_PERSON], vars(e)[BY_STATION]) for e in seated] == [("C1", "mesa-1")] * 2
    finally:
        store.close()


def test_no_command_takes_a_secret_as_an_argument() -> None:
    """Issue 32: a token, a PIN or a password given on the command line shows in ``ps`` and the shell's history, to
    everyone on the machine: no option of any command takes one, but the station's deprecated ``--token`` (which
    warns); they come from files, the environment or the terminal."""
    import argparse
    import re

    from service.cli.main import build_parser

    secret = re.compile(r"--(token|pin|password|secret|floor-token|db-password)$")
    taken: list[str] = []

    def walk(parser: argparse.ArgumentParser, path: str) -> None:
        for action in parser._actions:  # argparse keeps no public list of a parser's options
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{path} {name}")
            elif any(secret.fullmatch(option) for option in action.option_strings) and action.nargs != 0:
                taken.append(f"{path} {'/'.join(action.option_strings)}")

    walk(build_parser(), "pokertable")
    assert taken == ["pokertable station --token"]
