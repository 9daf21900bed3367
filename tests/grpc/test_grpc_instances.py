"""Issue 18, item 2 — several instances, one casino: two service instances on one PostgreSQL schema behind one
address, reached by gRPC's own client-side name resolution and round-robin balancing (``ipv4:HOST:PORT,HOST:PORT``
with the ``round_robin`` policy), as docs/scale.md describes. Any table at any instance: consecutive commands of
one table land on alternate instances, every one is acknowledged once, both instances serve, and the log they wrote
together is one chain that verifies."""

from __future__ import annotations

from typing import Any

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.app.application import PokerTables
from service.app.results import Result
from service.store.audit import verify
from tests.support.grpc_support import TOKENS, Client, act, deal, instance, open_circle, seat, start
from tests.support.stores import postgres_store

TABLES = ("Mesa 1", "Mesa 2", "Mesa 3")


class Counting(PokerTables):
    """An instance that counts the commands it applies."""

    name = "pokertable"  # the same events as PokerTables

    def __init__(self, env: dict[str, str]) -> None:
        super().__init__(env=env)
        self.applied = 0
        execute = self.unit.execute

        def counted(*args: Any, **kwargs: Any) -> Result:
            result = execute(*args, **kwargs)
            self.applied += 1
            return result

        self.unit.execute = counted  # type: ignore[method-assign]


def test_round_robin_over_two_instances_any_table_at_any_instance_every_command_once() -> None:
    env = postgres_store()
    first, second = Counting(env), Counting(env)
    with instance(env, first) as (port_a, _), instance(env, second) as (port_b, _):
        pit = Client(0, TOKENS["pit"], target=f"ipv4:127.0.0.1:{port_a},127.0.0.1:{port_b}",
                     options=[("grpc.lb_policy_name", "round_robin")])
        for table in TABLES:
            open_circle(pit, table)
            for number in (1, 2, 3):
                seat(pit, table, number, 500)
        for _ in range(2):
            for table in TABLES:
                start(pit, table)
                deal(pit, table, "As Kd Qh Ac Kc Qs")
                button = pit.GetTable(svc.GetTableRequest(table=table)).view.circle.button_seat
                for folding in (button, button % 3 + 1):  # three-handed: the button, then the small blind
                    act(pit, table, fold=cmd.Fold(seat=folding))
        # open, three seats; two hands of a start, six deals, two folds; and the pit's look at each hand's face-down
        # cards, recorded once (issue 29, item 7: a command too)
        commands = len(TABLES) * (4 + 2 * 9) + len(TABLES) * 2
        assert first.applied + second.applied == commands
        assert first.applied >= commands // 4 and second.applied >= commands // 4  # both served, alternately
        for port in (port_a, port_b):  # either instance answers with the same tables
            at = Client(port, TOKENS["pit"])
            views = [at.GetTable(svc.GetTableRequest(table=table)).view for table in TABLES]
            assert all(sum(view.circle.stacks.values()) == 1500 for view in views)  # R-CIRC-6: chips conserved
            assert all(view.hands_started == 2 and not view.hand_in_progress for view in views)
        verdict = verify(first.recorder)
        assert verdict.finding is None and verdict.events >= commands
