"""Issue 14, item 1 (the service side of one game seam): a Texas Hold'em Bonus and a Casino Draw Poker table are
watched, listed, searched, viewed in history, exported and reconstructed through the same RPCs and commands as a
circle table (a real server on a free port, SQLite and PostgreSQL); and the service tells no game from another by
its name or its hand class (``domain.games`` does)."""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest

from domain.games import GAMES, game_of_started
from service.api import pokertable_pb2 as pb
from service.cli.main import main
from tests import test_grpc_service
from tests.test_grpc_service import TOKENS, Client

port = test_grpc_service.port
"""The server fixture of the gRPC suite: a real server on a free port, on SQLite and on PostgreSQL."""

TABLE = "THB 1"  # the table of the ``thb`` dealer station (a THB or a CDP table, one at a time)


def _command(client: Client, action: str, **fields: Any) -> pb.CommandReply:
    reply: pb.CommandReply = client.BankedCommand(
        pb.BankedCommandRequest(command_id=client.next_id(), table=TABLE, action=action, **fields))
    return reply


def _start(dealer: Client, colour: str) -> pb.CommandReply:
    reply: pb.CommandReply = dealer.StartBankedHand(pb.StartHandRequest(command_id=dealer.next_id(), table=TABLE,
                                                                       deck_colour=colour))
    return reply


def _play_thb(pit: Client, dealer: Client) -> None:
    """Hand 1 settled (box 1 ties the dealer's aces, box 3 folds)."""
    pit.OpenBankedTable(pb.OpenBankedTableRequest(command_id="open-thb", table=TABLE, game="holdem-bonus",
                                                  ante_min=5))
    _start(dealer, "red")
    _command(dealer, "ante", box=1, amount=10)
    _command(dealer, "ante", box=3, amount=20)
    _command(dealer, "close-bets")
    for card in ["As", "9c", "Ac", "Ad", "2d", "Ah"]:  # boxes 1 and 3, dealer left, boxes 1 and 3, dealer right
        _command(dealer, "deal", card=card)
    _command(dealer, "flop-bet", box=1, amount=20)
    _command(dealer, "fold", box=3)
    for card in ["3s", "Kh", "7h", "8s"]:
        _command(dealer, "deal", card=card)
    _command(dealer, "check", box=1)
    for card in ["4s", "5c"]:
        _command(dealer, "deal", card=card)
    _command(dealer, "check", box=1)
    for card in ["6d", "Jc"]:
        reply = _command(dealer, "deal", card=card)
    assert reply.hand_complete


def _play_cdp(pit: Client, dealer: Client) -> None:
    """Hand 1 settled (box 2's four aces against the bank, 20:1)."""
    pit.OpenBankedTable(pb.OpenBankedTableRequest(command_id="open-cdp", table=TABLE, game="casino-draw",
                                                  ante_min=5, ante_max=100))
    _start(dealer, "red")
    _command(dealer, "ante", box=2, amount=10)
    _command(dealer, "close-bets")
    for card in ["Ac", "Ad", "As", "3s", "9c", "8c", "8d", "Kh", "9s", "2s"]:  # box 2's five, then the bank's
        _command(dealer, "deal", card=card)
    _command(dealer, "exchange", box=2, cards=["3s", "9c"])
    _command(dealer, "deal", card="Ah")
    _command(dealer, "deal", card="2c")
    assert _command(dealer, "play", box=2, amount=20).hand_complete


PLAYS: dict[str, tuple[Callable[[Client, Client], None], int]] = {
    "holdem-bonus": (_play_thb, 1),  # the game, and the box dealt in both hands
    "casino-draw": (_play_cdp, 2),
}


def _second_hand(dealer: Client, box: int) -> pb.CommandReply:
    reply = _start(dealer, "blue")  # R-DECK-2: the decks alternate
    _command(dealer, "ante", box=box, amount=10)
    _command(dealer, "close-bets")
    _command(dealer, "deal", card="Qs")
    return reply


@pytest.mark.parametrize("game", sorted(PLAYS))
def test_a_banked_table_is_served_by_the_same_rpcs_as_a_circle_table(
        port: int, game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pit, dealer, tv = Client(port, TOKENS["pit"]), Client(port, TOKENS["thb"]), Client(port, TOKENS["tv"])
    play, box = PLAYS[game]
    play(pit, dealer)
    bank_result = dealer.GetBankedTable(pb.TableRequest(table=TABLE)).bank_result
    stream = tv.Watch(pb.WatchRequest(table=TABLE))  # opened before hand 2: its hand is found as it starts
    second = _second_hand(dealer, box)

    # Watch: the table's events and its hands', in order; face-down cards hidden from an observer.
    changes: list[pb.TableChange] = []
    while not changes or changes[-1].aggregate_id != second.hand_id or changes[-1].event.rpartition(".")[2] != \
            "CardDealt":
        changes.append(next(stream))
    stream.cancel()
    events = [change.event for change in changes]
    assert events[0] == "BankedTable.Opened" and events.count("BankedTable.HandStarted") == 2
    hand_class = GAMES[game].hand_class.__name__
    assert events.count(f"{hand_class}.Started") == 2 and f"{hand_class}.BoxSettled" in events
    dealt = [json.loads(c.payload_json) for c in changes if c.event == f"{hand_class}.CardDealt"]
    hidden = [d for d in dealt if d.get("kind", "box") != "board"]
    assert hidden and all(d["card"] == "??" for d in hidden)
    assert [c.position for c in changes] == sorted({c.position for c in changes})

    # ListHands and SearchHands: the same RPCs, the banked outcomes.
    listed = list(pit.ListHands(pb.TableRequest(table=TABLE)).hand_ids)
    assert len(listed) == 2 and listed[1] == second.hand_id
    found = pit.SearchHands(pb.SearchHandsRequest(table=TABLE)).hands
    assert [(h.number, h.outcome) for h in found] == [(1, "settled"), (2, "in-progress")]
    assert sum(found[0].net.values()) == -bank_result and found[0].pot > 0 and not found[1].net
    assert list(found[0].winners) == sorted(b for b, net in found[0].net.items() if net > 0)
    assert [h.number for h in pit.SearchHands(pb.SearchHandsRequest(table=TABLE, outcome="settled")).hands] == [1]
    assert [h.number for h in pit.SearchHands(pb.SearchHandsRequest(table=TABLE, seat=box)).hands] == [1, 2]
    assert not pit.SearchHands(pb.SearchHandsRequest(table=TABLE, seat=7)).hands
    assert [h.number for h in pit.SearchHands(pb.SearchHandsRequest(table=TABLE, game=game)).hands] == [1, 2]
    assert not pit.SearchHands(pb.SearchHandsRequest(table=TABLE, game="holdem")).hands
    assert not pit.SearchHands(pb.SearchHandsRequest(table=TABLE, outcome="showdown")).hands

    # ReconstructHand: the pit boss's stream, the request recorded at the table.
    steps = list(pit.ReconstructHand(pb.ReconstructRequest(command_id="rc-1", table=TABLE, hand_number=1,
                                                           reason="box 1 disputes")))
    assert steps[0].event == f"{hand_class}.Started" and json.loads(steps[-1].state_json)["game"] == game
    assert json.loads(steps[-1].state_json)["stage"] == "complete"

    db = tmp_path / "tables.db"
    if not db.exists():  # PostgreSQL: the history and export commands are tested on the SQLite file
        return
    url = f"sqlite:///{db}"
    # History: the table at a past position, with the hand in progress then.
    at = next(c.position for c in changes if c.aggregate_id == second.hand_id)
    assert main(["history", TABLE, "--position", str(at), "--db", url]) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["game"] == game and state["hands_started"] == 2 and state["position"] == at
    assert state["bank_result"] == bank_result and state["hand"]["number"] == 2 and state["hand"]["bets"] == {}
    # Export: the pit's copy (every card) and the public copy (face-down cards as ??).
    assert main(["export", listed[0], "--db", url]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["format"] == "pokertable-hand/1" and document["game"] == game and document["complete"]
    assert document["bank_result"] == bank_result and document["hand_id"] == listed[0]
    assert sum(sum(r.values()) for r in document["results"].values()) == -bank_result
    assert "As" in json.dumps(document["events"]) or "Ac" in json.dumps(document["events"])
    assert main(["export", "--table", TABLE, "--public", "--db", url]) == 0
    public = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [d["number"] for d in public] == [1, 2] and public[1]["complete"] is False
    cards = [e["data"] for d in public for e in d["events"] if e["event"] == f"{hand_class}.CardDealt"]
    assert all(c["card"] == "??" for c in cards if c.get("kind", "box") != "board")
    assert main(["export", listed[0], "--format", "phh", "--db", url]) == 1  # PHH has no banked game: said plainly
    assert f"PHH has no form for {game}: export it as JSON" in capsys.readouterr().err
    assert main(["hands", TABLE, "--outcome", "settled", "--db", url]) == 0
    assert "1 hand(s)" in capsys.readouterr().out


def test_a_banked_watch_is_refused_to_no_one_and_an_unknown_table_is_not_found(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["thb"])
    _play_thb(pit, dealer)
    stream = Client(port, TOKENS["other"]).Watch(pb.WatchRequest(table=TABLE))  # another table's dealer reads
    first = next(stream)
    stream.cancel()
    assert first.event == "BankedTable.Opened"
    with pytest.raises(grpc.RpcError) as missing:
        next(pit.Watch(pb.WatchRequest(table="THB 9")))
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND


def test_every_game_code_names_its_hand_and_its_first_event() -> None:
    for code, game in GAMES.items():
        assert game.code == code and game.family in ("circle", "banked")
        assert game.hand_class.__name__ in ("Hand", "ThbHand", "CdpHand")
    assert len([g for g in GAMES.values() if g.family == "circle"]) == 7  # six of the regulation and Pineapple

    class Started:
        def __init__(self) -> None:
            self.settings = {"variant": "pineapple"}

    Started.__qualname__ = "Hand.Started"
    assert game_of_started(Started()).code == "pineapple"
    Started.__qualname__ = "Hand.Folded"
    with pytest.raises(ValueError, match="Started"):
        game_of_started(Started())


SERVICE = Path(__file__).resolve().parent.parent / "service"
HAND_CLASS_NAMES = {"Hand", "ThbHand", "CdpHand", "BankedHand"}
BANKED_CODES = {code for code, game in GAMES.items() if game.family == "banked"}


def _literals_outside_choices(tree: ast.AST) -> list[int]:
    """Lines with a banked game's code as a string, except in an argparse ``choices=`` (the CLI's argument
    choices) or a ``help=`` text."""
    allowed: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in ("choices", "help"):
            allowed.update(id(sub) for sub in ast.walk(node.value))
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in allowed
            and any(code in node.value for code in BANKED_CODES)]


def _isinstance_on_hands(tree: ast.AST) -> list[int]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance":
            named = {sub.id for sub in ast.walk(node.args[1]) if isinstance(sub, ast.Name)}
            if named & HAND_CLASS_NAMES:
                found.append(node.lineno)
    return found


def test_the_service_tells_no_game_by_its_name_or_its_hand_class() -> None:
    """Issue 14: no ``isinstance`` on hand classes and no game-name branch in service/ outside the CLI's argument
    choices; ``domain.games`` resolves a table's game once."""
    offences = {}
    for path in sorted(SERVICE.rglob("*.py")):
        if "api" in path.relative_to(SERVICE).parts:
            continue  # generated from the .proto
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if lines := _literals_outside_choices(tree) + _isinstance_on_hands(tree):
            offences[str(path.relative_to(SERVICE))] = lines
    assert offences == {}
