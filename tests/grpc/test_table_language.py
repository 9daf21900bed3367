"""Issue 15, item 7: a table's stations speak its language — Spanish unless the pit opened it in English — and the
full-screen station takes it from the table's configuration when ``--lang`` is not given (a real server, SQLite and
PostgreSQL; tables stored before the language existed are Spanish: tests/app/test_fixture_before_move.py's database)."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.station.tui.link import table_language
from tests.support import grpc_support
from tests.support.grpc_support import TOKENS, Client, open_circle, violations

port = grpc_support.port


def _language(client: Client, table: str) -> str:
    reply: svc.GetTableResponse = client.GetTable(svc.GetTableRequest(table=table))
    return str(reply.view.language)


def test_a_table_is_spanish_unless_opened_in_english_for_every_game_family(port: int) -> None:
    pit = Client(port, TOKENS["pit"])
    open_circle(pit, "Mesa 1")
    pit.OpenTable(svc.OpenTableRequest(command_id="open-2", table="Mesa 2", game=pb.GAME_STUD7, language="en",
                                       circle=pb.CircleSettings(structure=pb.BETTING_STRUCTURE_FIXED_LIMIT, ante=1,
                                                                bring_in=1, small_bet=2, big_bet=4)))
    pit.OpenTable(svc.OpenTableRequest(command_id="open-3", table="THB 1", game=pb.GAME_HOLDEM_BONUS, language="en",
                                       holdem_bonus=pb.HoldemBonusSettings(ante_min=5)))
    pit.OpenTable(svc.OpenTableRequest(command_id="open-4", table="CDP 1", game=pb.GAME_CASINO_DRAW, language="es",
                                       casino_draw=pb.CasinoDrawSettings(ante_min=5, ante_max=100)))
    observer = Client(port, TOKENS["tv"])
    assert [_language(observer, table) for table in ("Mesa 1", "Mesa 2", "THB 1", "CDP 1")] == ["es", "en", "en", "es"]
    past: svc.GetTableResponse = observer.GetTable(svc.GetTableRequest(table="Mesa 2", position=1_000_000))
    assert past.view.language == "en"  # the table at a past moment speaks it too


def test_a_language_the_stations_do_not_speak_is_refused_and_opens_nothing(port: int) -> None:
    pit = Client(port, TOKENS["pit"])
    for command_id, language in (("bad-1", "fr"), ("bad-2", "ES"), ("bad-3", "es\n")):
        with pytest.raises(grpc.RpcError) as refused:
            pit.OpenTable(svc.OpenTableRequest(command_id=command_id, table="Mesa 9", game=pb.GAME_HOLDEM,
                                               language=language,
                                               circle=pb.CircleSettings(structure=pb.BETTING_STRUCTURE_NO_LIMIT,
                                                                        blinds=[1, 2])))
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert violations(refused.value) == ["language"]
    with pytest.raises(grpc.RpcError) as absent:
        pit.GetTable(svc.GetTableRequest(table="Mesa 9"))
    assert absent.value.code() == grpc.StatusCode.NOT_FOUND


def test_the_full_screen_station_takes_the_tables_language_when_none_is_asked(port: int) -> None:
    pit = Client(port, TOKENS["pit"])
    pit.OpenTable(svc.OpenTableRequest(command_id="open-en", table="Mesa 1", game=pb.GAME_HOLDEM, language="en",
                                       circle=pb.CircleSettings(structure=pb.BETTING_STRUCTURE_NO_LIMIT,
                                                                blinds=[1, 2])))
    open_circle(pit, "Mesa 2")
    address = f"127.0.0.1:{port}"
    assert asyncio.run(table_language(address, TOKENS["dealer"], "Mesa 1")) == "en"
    assert asyncio.run(table_language(address, TOKENS["other"], "Mesa 2")) == "es"
    assert asyncio.run(table_language("127.0.0.1:9", TOKENS["dealer"], "Mesa 1")) == "es"  # no service: Spanish
