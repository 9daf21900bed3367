"""Issue 14, item 1 (the service side of one game seam): a Texas Hold'em Bonus and a Casino Draw Poker table are
watched, listed, searched, viewed in history, exported and reconstructed through the same RPCs and commands as a
circle table (a real server on a free port, SQLite and PostgreSQL); and the service tells no game from another by
its name or its hand class (``domain.games`` does)."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import grpc
import pytest
from google.protobuf import json_format

from domain.games import GAMES, game_of_started
from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import types_pb2 as pb
from service.cli.main import main
from tests.support import grpc_support
from tests.support.grpc_support import TOKENS, Client, act, rule_of

port = grpc_support.port
"""The server fixture of the gRPC suite: a real server on a free port, on SQLite and on PostgreSQL."""

TABLE = "THB 1"  # the table of the ``thb`` dealer station (a THB or a CDP table, one at a time)


def _command(client: Client, **one_command: Any) -> svc.ActResponse:
    return act(client, TABLE, **one_command)


def _deal(dealer: Client, cards: list[str]) -> svc.ActResponse:
    reply = svc.ActResponse()
    for card in cards:
        reply = _command(dealer, deal=cmd.Deal(card=card))
    return reply


def _start(dealer: Client, colour: pb.DeckColour) -> svc.StartHandResponse:
    return grpc_support.start(dealer, TABLE, colour)


def _banked(client: Client, **moment: Any) -> pb.TableView:
    reply: svc.GetTableResponse = client.GetTable(svc.GetTableRequest(table=TABLE, **moment))
    assert reply.view.WhichOneof("detail") == "banked", reply.view
    return reply.view


def _play_thb(pit: Client, dealer: Client) -> None:
    """Hand 1 settled (box 1 ties the dealer's aces, box 3 folds)."""
    grpc_support.open_banked(pit, TABLE, pb.GAME_HOLDEM_BONUS, ante_min=5)
    _start(dealer, pb.DECK_COLOUR_RED)
    _command(dealer, ante=cmd.Ante(seat=1, amount=10))
    _command(dealer, ante=cmd.Ante(seat=3, amount=20))
    _command(dealer, close_bets=cmd.CloseBets())
    _deal(dealer, ["As", "9c", "Ac", "Ad", "2d", "Ah"])  # boxes 1 and 3, dealer left, boxes 1 and 3, dealer right
    _command(dealer, flop_bet=cmd.FlopBet(seat=1, amount=20))
    _command(dealer, fold=cmd.Fold(seat=3))
    _deal(dealer, ["3s", "Kh", "7h", "8s"])
    _command(dealer, check=cmd.Check(seat=1))
    _deal(dealer, ["4s", "5c"])
    _command(dealer, check=cmd.Check(seat=1))
    assert _deal(dealer, ["6d", "Jc"]).result.hand_complete


def _play_cdp(pit: Client, dealer: Client) -> None:
    """Hand 1 settled (box 2's four aces against the bank, 20:1)."""
    grpc_support.open_banked(pit, TABLE, pb.GAME_CASINO_DRAW, ante_min=5, ante_max=100)
    _start(dealer, pb.DECK_COLOUR_RED)
    _command(dealer, ante=cmd.Ante(seat=2, amount=10))
    _command(dealer, close_bets=cmd.CloseBets())
    _deal(dealer, ["Ac", "Ad", "As", "3s", "9c", "8c", "8d", "Kh", "9s", "2s"])  # box 2's five, then the bank's
    _command(dealer, exchange=cmd.Exchange(seat=2, cards=["3s", "9c"]))
    _deal(dealer, ["Ah", "2c"])
    assert _command(dealer, play=cmd.Play(seat=2, amount=20)).result.hand_complete


PLAYS: dict[str, tuple[Callable[[Client, Client], None], int]] = {
    "holdem-bonus": (_play_thb, 1),  # the game, and the box dealt in both hands
    "casino-draw": (_play_cdp, 2),
}


def game_enum(code: str) -> pb.Game:
    """The pokertable.v1 Game of a domain game code (the generic mapping of the contract)."""
    return cast(pb.Game, pb.Game.Value("GAME_" + code.upper().replace("-", "_")))


def case_prefix(hand_class: str) -> str:
    """The TableEvent case prefix of a hand class's events (ThbHand.Started -> thb_hand_started)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", hand_class).lower()


def _second_hand(dealer: Client, box: int) -> svc.StartHandResponse:
    reply = _start(dealer, pb.DECK_COLOUR_BLUE)  # R-DECK-2: the decks alternate
    _command(dealer, ante=cmd.Ante(seat=box, amount=10))
    _command(dealer, close_bets=cmd.CloseBets())
    _command(dealer, deal=cmd.Deal(card="Qs"))
    return reply


def _search(pit: Client, **filters: Any) -> list[pb.HandSummary]:
    reply: svc.SearchHandsResponse = pit.SearchHands(svc.SearchHandsRequest(table=TABLE, **filters))
    return list(reply.hands)


@pytest.mark.parametrize("game", sorted(PLAYS))
def test_a_banked_table_is_served_by_the_same_rpcs_as_a_circle_table(
        port: int, game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pit, dealer, tv = Client(port, TOKENS["pit"]), Client(port, TOKENS["thb"]), Client(port, TOKENS["tv"])
    play, box = PLAYS[game]
    play(pit, dealer)
    after_first = _banked(dealer)
    assert after_first.game == game_enum(game) and after_first.family == pb.GAME_FAMILY_BANKED
    bank_result = after_first.banked.bank_result
    stream = tv.Watch(svc.WatchRequest(table=TABLE))  # opened before hand 2: its hand is found as it starts
    second = _second_hand(dealer, box).result
    prefix = case_prefix(GAMES[game].hand_class.__name__)

    # Watch: the table's events and its hands', in order; face-down cards hidden from an observer.
    changes: list[svc.WatchResponse] = []
    while not changes or changes[-1].aggregate_id != second.hand_id or \
            changes[-1].event.WhichOneof("event") != f"{prefix}_card_dealt":
        changes.append(next(stream))
    stream.cancel()
    events = [str(change.event.WhichOneof("event")) for change in changes]
    assert events[0] == "banked_table_opened" and events.count("banked_table_hand_started") == 2
    assert events.count(f"{prefix}_started") == 2 and f"{prefix}_box_settled" in events
    dealt = [getattr(c.event, f"{prefix}_card_dealt") for c, e in zip(changes, events, strict=True)
             if e == f"{prefix}_card_dealt"]
    hidden = [d for d in dealt if getattr(d, "kind", "box") != "board"]
    assert hidden and all(d.card == "??" for d in hidden)
    assert [c.position for c in changes] == sorted({c.position for c in changes})

    # ListHands and SearchHands: the same RPCs, the banked outcomes.
    listed = list(pit.ListHands(svc.ListHandsRequest(table=TABLE)).hands)
    assert [h.number for h in listed] == [1, 2] and listed[1].hand_id == second.hand_id
    found = _search(pit)
    assert [(h.number, h.outcome) for h in found] == [(1, pb.HAND_OUTCOME_SETTLED), (2, pb.HAND_OUTCOME_IN_PROGRESS)]
    assert sum(found[0].net.values()) == -bank_result and found[0].pot > 0 and not found[1].net
    assert list(found[0].winners) == sorted(b for b, net in found[0].net.items() if net > 0)
    assert [h.number for h in _search(pit, outcome=pb.HAND_OUTCOME_SETTLED)] == [1]
    assert [h.number for h in _search(pit, seat=box)] == [1, 2]
    assert not _search(pit, seat=7)
    assert [h.number for h in _search(pit, game=game_enum(game))] == [1, 2]
    assert not _search(pit, game=pb.GAME_HOLDEM)
    assert not _search(pit, outcome=pb.HAND_OUTCOME_SHOWDOWN)

    # ReconstructHand: the pit boss's stream, the request recorded at the table.
    steps = list(pit.ReconstructHand(svc.ReconstructHandRequest(command_id="rc-1", table=TABLE, hand_number=1,
                                                                reason="box 1 disputes")))
    assert steps[0].event.WhichOneof("event") == f"{prefix}_started"
    last = json_format.MessageToDict(steps[-1].state)
    assert last["game"] == game and last["stage"] == "complete"

    # History: the table at a past position (GetTable), with the hand in progress then.
    at = next(c.position for c in changes if c.aggregate_id == second.hand_id)
    then = _banked(pit, position=at)
    assert then.hands_started == 2 and then.position == at and then.hand_in_progress
    assert then.hand_number == 2 and then.banked.bank_result == bank_result and not then.banked.boxes

    # ExportHand: the pit's copy (every card) and the public copy (face-down cards as ??); no PHH for a banked game.
    document = json.loads(_export(pit, 1, pb.EXPORT_FORMAT_JSON).content)
    assert document["game"] == game and document["complete"] and document["hand_id"] == listed[0].hand_id
    assert document["bank_result"] == bank_result
    assert "As" in json.dumps(document["events"]) or "Ac" in json.dumps(document["events"])
    public = json.loads(_export(tv, 1, pb.EXPORT_FORMAT_JSON).content)
    cards = [e["data"] for e in public["events"] if e["event"].endswith(".CardDealt")]
    assert cards and all(c["card"] == "??" for c in cards if c.get("kind", "box") != "board")
    with pytest.raises(grpc.RpcError) as no_phh:
        _export(pit, 1, pb.EXPORT_FORMAT_PHH)
    assert no_phh.value.code() == grpc.StatusCode.FAILED_PRECONDITION

    db = tmp_path / "tables.db"
    if not db.exists():  # PostgreSQL: the history and export commands are tested on the SQLite file
        return
    url = f"sqlite:///{db}"
    hand_ids = [h.hand_id for h in listed]
    # The CLI's history: the same table at the same position.
    assert main(["history", TABLE, "--position", str(at), "--db", url]) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["game"] == game and state["hands_started"] == 2 and state["position"] == at
    assert state["bank_result"] == bank_result and state["hand"]["number"] == 2 and state["hand"]["bets"] == {}
    # The CLI's export: the pit's copy (every card) and the public copy (face-down cards as ??).
    assert main(["export", hand_ids[0], "--db", url]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["format"] == "pokertable-hand/1" and document["game"] == game and document["complete"]
    assert document["bank_result"] == bank_result and document["hand_id"] == hand_ids[0]
    assert sum(sum(r.values()) for r in document["results"].values()) == -bank_result
    assert "As" in json.dumps(document["events"]) or "Ac" in json.dumps(document["events"])
    assert main(["export", "--table", TABLE, "--public", "--db", url]) == 0
    public_lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [d["number"] for d in public_lines] == [1, 2] and public_lines[1]["complete"] is False
    hand_class = GAMES[game].hand_class.__name__
    cards = [e["data"] for d in public_lines for e in d["events"] if e["event"] == f"{hand_class}.CardDealt"]
    assert all(c["card"] == "??" for c in cards if c.get("kind", "box") != "board")
    assert main(["export", hand_ids[0], "--format", "phh", "--db", url]) == 1  # PHH has no banked game: said plainly
    assert f"PHH has no form for {game}: export it as JSON" in capsys.readouterr().err
    assert main(["hands", TABLE, "--outcome", "settled", "--db", url]) == 0
    searched = capsys.readouterr()
    assert hand_ids[0] in searched.out and searched.err == "1 hand(s) found\n"  # hands on stdout, the count on stderr


def _export(client: Client, number: int, form: pb.ExportFormat) -> svc.ExportHandResponse:
    reply: svc.ExportHandResponse = client.ExportHand(svc.ExportHandRequest(table=TABLE, hand_number=number,
                                                                            format=form))
    return reply


def test_a_banked_watch_is_refused_to_no_one_and_an_unknown_table_is_not_found(port: int) -> None:
    pit, dealer = Client(port, TOKENS["pit"]), Client(port, TOKENS["thb"])
    _play_thb(pit, dealer)
    stream = Client(port, TOKENS["other"]).Watch(svc.WatchRequest(table=TABLE))  # another table's dealer reads
    first = next(stream)
    stream.cancel()
    assert first.event.WhichOneof("event") == "banked_table_opened"
    assert first.event.banked_table_opened.game == "holdem-bonus"
    with pytest.raises(grpc.RpcError) as missing:
        next(pit.Watch(svc.WatchRequest(table="THB 9")))
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND
    assert rule_of(missing.value)  # a NOT_FOUND carries its ErrorInfo too


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


SERVICE = Path(__file__).resolve().parents[2] / "service"
HAND_CLASS_NAMES = {"Hand", "ThbHand", "CdpHand", "BankedHand"}
BANKED_CODES = {code for code, game in GAMES.items() if game.family == "banked"}


def _literals_outside_choices(tree: ast.Module) -> list[int]:
    """Lines with a banked game's code as a string, except in an argparse ``choices=`` (the CLI's argument
    choices) or a ``help=`` or ``description=`` text (the module's docstring when it is ``description=__doc__``)."""
    allowed: set[int] = set()
    docstring = tree.body[0] if tree.body and isinstance(tree.body[0], ast.Expr) else None
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in ("choices", "help", "description"):
            value: ast.AST = node.value
            if isinstance(value, ast.Name) and value.id == "__doc__" and docstring is not None:
                value = docstring
            allowed.update(id(sub) for sub in ast.walk(value))
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
