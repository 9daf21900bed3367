"""Crash safety: an acknowledged command is durable; after ``kill -9`` and a restart the hand goes on."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from service.api import commands_pb2 as cmd
from service.api import table_service_pb2 as svc
from service.api import table_service_pb2_grpc as svc_grpc
from service.api import types_pb2 as pb
from tests.support.serve_process import SCRIPT, STATIONS, start


def test_a_server_killed_mid_hand_continues_exactly_where_it_was(tmp_path: Path) -> None:
    db, config = tmp_path / "tables.db", tmp_path / "stations.toml"
    config.write_text(STATIONS, encoding="utf-8")
    config.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    process, port = start(db, config)
    ids = iter(range(1000))

    def stub(port: int) -> tuple[svc_grpc.TableServiceStub, list[tuple[str, str]], list[tuple[str, str]]]:
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        return (svc_grpc.TableServiceStub(channel),  # type: ignore[no-untyped-call]
                [("authorization", "Bearer pit-boss-token-0123456789")],
                [("authorization", "Bearer dealer-token-0123456789")])

    table, pit, dealer = stub(port)
    settings = pb.CircleSettings(structure=pb.BETTING_STRUCTURE_NO_LIMIT, blinds=[1, 2], no_burns=True)
    table.OpenTable(svc.OpenTableRequest(command_id="open", table="Mesa 1", game=pb.GAME_HOLDEM, circle=settings),
                    metadata=pit, timeout=10)
    for seat in (1, 2, 3):
        table.SeatPlayer(svc.SeatPlayerRequest(command_id=f"sit-{seat}", table="Mesa 1", seat=seat, chips=100),
                         metadata=dealer, timeout=10)
    table.StartHand(svc.StartHandRequest(command_id="hand-1", table="Mesa 1"), metadata=dealer, timeout=10)
    for card in ["As", "Kd", "Qh", "Ac", "Kc", "Qs"]:
        table.Act(svc.ActRequest(command_id=f"c{next(ids)}", table="Mesa 1", command=cmd.Command(
            deal=cmd.Deal(card=card))), metadata=dealer, timeout=10)
    table.Act(svc.ActRequest(command_id="bet", table="Mesa 1", command=cmd.Command(bet=cmd.Bet(seat=1, amount=10))),
              metadata=dealer, timeout=10)  # acknowledged
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=10)

    process, port = start(db, config)
    try:
        table, pit, dealer = stub(port)
        legal = table.GetLegalActions(svc.GetLegalActionsRequest(table="Mesa 1"), metadata=dealer, timeout=10)
        assert legal.seat == 2 and legal.call == 9  # the bet survived: the small blind owes 9 more
        for seat in (2, 3):
            table.Act(svc.ActRequest(command_id=f"fold-{seat}", table="Mesa 1", command=cmd.Command(
                fold=cmd.Fold(seat=seat))), metadata=dealer, timeout=10)
        view = table.GetTable(svc.GetTableRequest(table="Mesa 1"), metadata=dealer, timeout=10).view
        assert dict(view.circle.stacks) == {1: 103, 2: 99, 3: 98}
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_the_service_serves_over_tls_when_given_a_certificate(tmp_path: Path) -> None:
    cert, key, config = tmp_path / "cert.pem", tmp_path / "key.pem", tmp_path / "stations.toml"
    config.write_text(STATIONS, encoding="utf-8")
    config.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   check=True, capture_output=True)
    process, port = start(tmp_path / "tables.db", config, "--tls-cert", str(cert), "--tls-key", str(key))
    metadata = [("authorization", "Bearer pit-boss-token-0123456789")]
    try:
        credentials = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
        secure = svc_grpc.TableServiceStub(grpc.secure_channel(f"127.0.0.1:{port}", credentials))  # type: ignore[no-untyped-call]
        with pytest.raises(grpc.RpcError) as answered:
            secure.ListHands(svc.ListHandsRequest(table="none"), timeout=10, metadata=metadata)
        assert answered.value.code() == grpc.StatusCode.NOT_FOUND  # the service answered, over TLS
        plain = svc_grpc.TableServiceStub(grpc.insecure_channel(f"127.0.0.1:{port}"))  # type: ignore[no-untyped-call]
        with pytest.raises(grpc.RpcError) as refused:
            plain.ListHands(svc.ListHandsRequest(table="none"), timeout=5, metadata=metadata)
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE  # no plaintext on a TLS port
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_the_reference_station_runs_a_script_and_reports_refusals_with_their_rule(tmp_path: Path) -> None:
    config = tmp_path / "stations.toml"
    config.write_text(STATIONS, encoding="utf-8")
    config.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    process, port = start(tmp_path / "tables.db", config)
    pit_script, dealer_script = tmp_path / "pit.txt", tmp_path / "dealer.txt"
    pit_script.write_text("open holdem no-limit 1/2\n", encoding="utf-8")
    dealer_script.write_text("\n".join([
        "sit 1 100", "sit 2 100", "sit 3 100", "start blue",
        "deal As 1", "deal Kd 2", "deal Qh 3", "deal Ac 4", "deal Kc 5", "deal Qs 6",
        "legal", "check 1   # refused: there is a bet to call", "bet 1 10", "fold 2", "fold 3", "table",
    ]) + "\n", encoding="utf-8")
    try:
        server = f"127.0.0.1:{port}"
        opened = subprocess.run([SCRIPT, "station", "--server", server, "--table", "Mesa 1", "--token",
                                 "pit-boss-token-0123456789", "--script", str(pit_script)],
                                capture_output=True, text=True, timeout=60, check=False)
        assert opened.returncode == 0, opened.stdout + opened.stderr
        played = subprocess.run([SCRIPT, "station", "--server", server, "--table", "Mesa 1", "--token",
                                 "dealer-token-0123456789", "--script", str(dealer_script)],
                                capture_output=True, text=True, timeout=60, check=False)
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert played.returncode == 1  # one command was refused
    assert "seat 1: fold · call 2 · bet 4–100" in played.stdout
    refusal = "refused: FAILED_PRECONDITION: cannot check: there is a bet to call (R-CIRC-3)"
    assert refusal in played.stderr and refusal not in played.stdout  # the table on stdout, the refusal on stderr
    assert "seat 1: 103  seat 2: 99  seat 3: 98" in played.stdout


def test_one_service_writes_an_sqlite_file_and_a_killed_one_gives_it_up(tmp_path: Path) -> None:
    """The embedded default has one writer: a second service (or a console command that records) on the same file is
    refused with a clear message, and the claim dies with the process, even by ``kill -9``."""
    db, config = tmp_path / "tables.db", tmp_path / "stations.toml"
    config.write_text(STATIONS, encoding="utf-8")
    config.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    first, _ = start(db, config)
    try:
        second = subprocess.run([SCRIPT, "serve", "--db", f"sqlite:///{db}", "--port", "0", "--config", str(config)],
                                check=False, capture_output=True, text=True, timeout=60)
        assert second.returncode == 2
        assert f"{db} is being written by pokertable process {first.pid}" in second.stderr
        # a console command that writes (reconstruct only reads now and records through the service, R-THB-13)
        recorded = subprocess.run([SCRIPT, "audit", "sign", "--db", f"sqlite:///{db}", "--signing-key",
                                   str(tmp_path / "signing.key"), "--reason", "end of shift"],
                                  check=False, capture_output=True, text=True, timeout=60)
        assert recorded.returncode == 2 and "one service per SQLite file" in recorded.stderr and not recorded.stdout
    finally:
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
    again, port = start(db, config)
    try:
        # health says NOT_SERVING until the service is ready (it has read the store): a client waits for SERVING,
        # as a load balancer does; one Check at "serving on" once came before the readiness (CI)
        health = health_pb2_grpc.HealthStub(grpc.insecure_channel(f"127.0.0.1:{port}"))
        watch = health.Watch(health_pb2.HealthCheckRequest(), timeout=30)  # type: ignore[attr-defined]
        assert any(status.status == health_pb2.HealthCheckResponse.SERVING for status in watch)
        watch.cancel()  # the stop below gives calls still open its grace
    finally:
        again.terminate()
        again.wait(timeout=10)
