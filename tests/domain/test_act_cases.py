"""Every case of the proto's Command is one action class of the domain for each game that takes it, and every action
a game takes has its case (issue 31): a tenth game's action is a class of :mod:`domain.actions`, a line of its
game's map and a case of commands.proto (docs/architecture.md)."""

from __future__ import annotations

from dataclasses import MISSING, fields

import pytest

from domain.actions import Action
from domain.games import GAMES
from service.api import commands_pb2 as cmd
from service.api import types_pb2 as pb
from service.grpc.act import CASE_OF, CASES, action_kind

PROTO_CASES = [field.name for field in cmd.Command.DESCRIPTOR.oneofs_by_name["command"].fields]


def test_every_case_of_command_has_its_action_classes_and_no_other_case_is_named() -> None:
    assert sorted(CASES) == sorted(PROTO_CASES)


@pytest.mark.parametrize("code", sorted(GAMES))
def test_each_case_is_exactly_one_action_class_for_each_game_that_takes_it(code: str) -> None:
    game = GAMES[code]
    taken = {case: [kind for kind in CASES[case] if kind in game.actions] for case in PROTO_CASES}
    assert all(len(kinds) <= 1 for kinds in taken.values()), taken
    assert any(taken.values())


def test_every_action_class_a_game_takes_has_a_case_of_command() -> None:
    taken = {kind for game in GAMES.values() for kind in game.actions}
    assert taken <= set(CASE_OF), taken - set(CASE_OF)
    assert set(CASE_OF) == taken  # and no case names an action no game takes


@pytest.mark.parametrize("case", PROTO_CASES)
def test_a_case_s_fields_are_its_action_s_fields_by_name(case: str) -> None:
    sent = {field.name for field in getattr(cmd.Command(), case).DESCRIPTOR.fields}
    for kind in CASES[case]:
        declared = {field.name: field for field in fields(kind)}
        assert sent == set(declared), (kind.__name__, sent, set(declared))
        required = {name for name, field in declared.items()
                    if field.default is MISSING and field.default_factory is MISSING}
        assert required <= sent


@pytest.mark.parametrize("kind", sorted(CASE_OF, key=str))
def test_every_action_is_an_action_kind_for_get_legal_actions(kind: type[Action]) -> None:
    assert pb.ActionKind.Name(action_kind(kind)) == f"ACTION_KIND_{CASE_OF[kind].upper()}"
