"""Issue 17, item 5 — configuration: one TOML file, ``POKERTABLE_*`` variables and flags (flags over environment over
file over defaults); every bad value refused naming its key and where it came from; secrets from files or the
environment, never echoed; station tokens kept as digests and made by ``pokertable tokens add``."""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path

import pytest

from service.cli.main import main
from service.cli.settings import KEYS, SettingsError, settings
from service.grpc.stations import StationConfigError, Stations, digest
from service.store.persistence import masked_url


def test_flags_over_environment_over_file_over_defaults() -> None:
    file = {"service": {"port": 5000, "host": "0.0.0.0", "tz": "Atlantic/Canary", "audit_every": 60}}
    environ = {"POKERTABLE_PORT": "6000", "POKERTABLE_HOST": "10.0.0.5"}
    chosen = settings({"port": 7000}, environ, file)
    assert (chosen.port, chosen.origin["port"]) == (7000, "--port")
    assert (chosen.host, chosen.origin["host"]) == ("10.0.0.5", "environment POKERTABLE_HOST")
    assert (chosen.tz, chosen.origin["tz"]) == ("Atlantic/Canary", "config [service] tz")
    assert chosen.audit_every == 60.0
    assert (chosen.log_format, chosen.origin["log_format"]) == ("human", "default")
    assert settings({}, {}, {}).values == {name: key.default for name, key in KEYS.items()}


@pytest.mark.parametrize(("flags", "environ", "file", "named"), [
    ({"port": "http"}, {}, {}, "--port: a port from 0 to 65535"),
    ({}, {"POKERTABLE_PORT": "70000"}, {}, "environment POKERTABLE_PORT: a port from 0 to 65535"),
    ({}, {}, {"service": {"port": True}}, "config cfg.toml [service] port:"),
    ({}, {}, {"service": {"sign_every": 0}}, "[service] sign_every: a whole number from 1"),
    ({}, {}, {"service": {"tz": "Mars/Olympus"}}, "[service] tz: a time zone such as Europe/Madrid"),
    ({}, {}, {"service": {"log_format": "xml"}}, "[service] log_format: one of human, json"),
    ({}, {}, {"service": {"db": "mysql://x/y"}}, "[service] db:"),
    ({}, {}, {"service": {"http": "8080"}}, "[service] http: HOST:PORT"),
    ({}, {}, {"service": {"prot": 1}}, "[service] prot: no such setting"),
    ({}, {"POKERTABLE_PROT": "1"}, {}, "environment POKERTABLE_PROT: no such setting"),
    ({}, {}, {"service": {"db_password": "x"}}, "db_password: a password is not written in the file"),
    ({}, {}, {"service": {"tls_cert": "a.pem"}}, "tls_cert and tls_key go together"),
    ({}, {}, {"service": []}, "[service] is a table"),
])
def test_a_bad_setting_is_refused_naming_its_key(flags: dict[str, object], environ: dict[str, str],
                                                 file: dict[str, object], named: str) -> None:
    with pytest.raises(SettingsError) as refused:
        settings(flags, environ, file, Path("cfg.toml"))
    assert named in str(refused.value)


def test_the_database_password_comes_from_a_secret_and_is_never_described(tmp_path: Path) -> None:
    secret = tmp_path / "db-password"
    secret.write_text("Tr1cky:p@ss/word\n", encoding="utf-8")
    chosen = settings({}, {}, {"service": {"db": "postgresql://casino@db.lan:5433/tables?schema=s1",
                                           "db_password_file": str(secret)}})
    assert chosen.db == "postgresql://casino:Tr1cky%3Ap%40ss%2Fword@db.lan:5433/tables?schema=s1"
    described = chosen.described()
    assert described["db"] == "postgresql://casino:***@db.lan:5433/tables?schema=s1"
    assert "Tr1cky" not in repr(described) and "p%40ss" not in repr(described)
    from_environment = settings({}, {"POKERTABLE_DB": "postgresql://casino@db/t", "POKERTABLE_DB_PASSWORD": "pw0"}, {})
    assert from_environment.db == "postgresql://casino:pw0@db/t"
    assert from_environment.described()["db_password"] == "***"
    assert "pw0" not in repr(from_environment.described())
    with pytest.raises(SettingsError, match="db_password_file: cannot read the secret file"):
        settings({}, {}, {"service": {"db_password_file": str(tmp_path / "missing")}})
    assert masked_url("postgresql://u:pw0@h/d") == "postgresql://u:***@h/d"


@pytest.mark.parametrize("password", ["pa#ss", "pa?ss", "pa/ss", "#?/@:", "p@ss#1", "?"])
def test_a_password_written_unencoded_is_never_shown_whole(password: str) -> None:
    """Issue 32: a password with an unencoded ``#``, ``?``, ``/`` or ``@`` (a URL parser takes the rest for a fragment,
    a query or a path) is masked all the same in every message."""
    shown = masked_url(f"postgresql://casino:{password}@db.lan:5432/tables?schema=s1")
    assert shown == "postgresql://casino:***@db.lan:5432/tables?schema=s1"


def test_a_password_given_as_a_flag_is_not_taken() -> None:
    """A flag is in the process list for every user of the machine: the password is read from the environment only."""
    chosen = settings({"db_password": "seen-by-ps"}, {}, {})
    assert chosen.values["db_password"] is None


def test_stations_keep_digests_and_refuse_what_they_cannot_use(tmp_path: Path) -> None:
    token_file = tmp_path / "tv.token"
    token_file.write_text("observer-token-from-a-file\n", encoding="utf-8")
    token_file.chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    stations = Stations.from_mapping({
        "pit": {"token_sha256": digest("pit-boss-token-0123456789"), "role": "pit-boss"},
        "tv": {"token_file": "tv.token", "role": "observer"},
        "old": {"token": "a-clear-token-of-before", "role": "games-director"},
    }, tmp_path)
    assert stations.by_token.get("observer-token-from-a-file") is not None
    assert stations.by_token.get("a-clear-token-of-before") is not None
    assert stations.by_token.get(digest("pit-boss-token-0123456789")) is None  # the digest is not the token
    for entry, named in [
        ({"role": "pit-boss"}, "one of token_sha256"),
        ({"token": "short", "role": "pit-boss"}, "token: a token of at least 16"),
        ({"token_sha256": "abc", "role": "pit-boss"}, "token_sha256: 64 hexadecimal digits"),
        ({"token_file": "none.token", "role": "pit-boss"}, "token_file: cannot read"),
        ({"token": "x" * 20, "role": "boss"}, "role: unknown role 'boss'"),
        ({"token": "x" * 20, "role": "dealer"}, "table: a dealer station names its table"),
        ({"token": "x" * 20, "role": "observer", "colour": "red"}, "colour: no such key"),
    ]:
        with pytest.raises(StationConfigError) as refused:
            Stations.from_mapping({"s": entry}, tmp_path)
        assert named in str(refused.value) and "[stations.s]" in str(refused.value)


@pytest.mark.skipif(os.geteuid() != 0, reason="keeping another user's ownership needs root, as an install does")
def test_tokens_add_and_remove_keep_the_installed_file_s_owner_group_and_mode(tmp_path: Path) -> None:
    """Issue 32, item 5: docs/ops/install.md installs the configuration root-owned, group pokertable, mode 0640, for
    the service's user to read; ``tokens add`` and ``tokens remove`` rewrite it as it was installed, and the service
    can still start."""
    config = tmp_path / "pokertable.toml"
    config.write_text("[service]\nport = 50051\n", encoding="utf-8")
    os.chown(config, 0, 65534)  # root, and a group the service's user is in (nogroup here)
    config.chmod(0o640)
    assert main(["tokens", "add", "--config", str(config), "--role", "pit-boss", "--name", "boss"]) == 0
    kept = config.stat()
    assert (kept.st_uid, kept.st_gid, stat.S_IMODE(kept.st_mode)) == (0, 65534, 0o640)
    assert main(["tokens", "remove", "--config", str(config), "--name", "boss"]) == 0
    kept = config.stat()
    assert (kept.st_uid, kept.st_gid, stat.S_IMODE(kept.st_mode)) == (0, 65534, 0o640)
    os.chown(config, 65534, 65534)  # another user's file: root rewrites it as that user's
    assert main(["tokens", "add", "--config", str(config), "--role", "observer", "--name", "tv"]) == 0
    assert (config.stat().st_uid, config.stat().st_gid) == (65534, 65534)
    assert set(tomllib.loads(config.read_text(encoding="utf-8"))["stations"]) == {"tv"}
    Stations.load(config)  # the service reads it as it starts


def test_tokens_add_prints_the_token_once_and_the_file_keeps_its_digest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    config = tmp_path / "pokertable.toml"
    config.write_text('# the casino\'s configuration\n[service]\nport = 50051\n', encoding="utf-8")
    assert main(["tokens", "add", "--config", str(config), "--role", "croupier", "--table", "Mesa 1"]) == 0
    out, err = capsys.readouterr()
    token = out.strip()
    assert len(token) >= 40 and "\n" not in token
    assert "mesa-1-dealer" in err and token not in err
    text = config.read_text(encoding="utf-8")
    assert token not in text and digest(token) in text and text.startswith("# the casino's configuration")
    assert stat.S_IMODE(config.stat().st_mode) == 0o640  # its mode kept, less the access others had (it was 0644)
    stations = Stations.load(config)
    viewer = stations.by_token.get(token)
    assert viewer is not None and (viewer.station, viewer.role.value, viewer.table) == ("mesa-1-dealer", "dealer",
                                                                                          "Mesa 1")
    assert main(["tokens", "add", "--config", str(config), "--role", "pit-boss", "--name", "Sala \"A\" boss"]) == 0
    boss = capsys.readouterr().out.strip()
    assert Stations.load(config).authenticate('Sala "A" boss', boss) == ("pit-boss", None)
    assert tomllib.loads(config.read_text(encoding="utf-8"))["service"] == {"port": 50051}

    assert main(["tokens", "add", "--config", str(config), "--role", "pit-boss", "--name", "mesa-1-dealer"]) == 1
    assert main(["tokens", "add", "--config", str(config), "--role", "device"]) == 2
    assert capsys.readouterr().out == ""  # refusals print no token
    assert main(["tokens", "list", "--config", str(config)]) == 0
    listed = capsys.readouterr()
    assert "mesa-1-dealer\tdealer\tMesa 1" in listed.out and token not in listed.out and boss not in listed.out
    assert main(["tokens", "remove", "--config", str(config), "--name", "mesa-1-dealer"]) == 0
    assert Stations.load(config).by_token.get(token) is None
    assert Stations.load(config).by_token.get(boss) is not None
    assert main(["tokens", "remove", "--config", str(config), "--name", "mesa-1-dealer"]) == 1


def test_the_documented_example_configuration_is_valid(tmp_path: Path) -> None:
    """docs/ops/pokertable.toml, with its paths moved under a temporary folder: every setting and station reads."""
    example = (Path(__file__).parent.parent.parent / "docs" / "ops" / "pokertable.toml").read_text(encoding="utf-8")
    text = example.replace("/etc/pokertable/", f"{tmp_path}/").replace("/var/lib/pokertable-key/", f"{tmp_path}/")
    (tmp_path / "db-password").write_text("casino-db-password\n", encoding="utf-8")
    (tmp_path / "tokens").mkdir()
    (tmp_path / "tokens" / "mesa-1-shoe").write_text("shoe-token-0123456789abcdef\n", encoding="utf-8")
    (tmp_path / "tokens" / "mesa-1-shoe").chmod(0o600)  # a file of secrets is its owner's only (issue 32)
    file = tomllib.loads(text)
    chosen = settings({}, {}, file, tmp_path / "pokertable.toml")
    assert chosen.port == 50051 and chosen.http == "0.0.0.0:8080" and chosen.log_format == "json"
    assert chosen.db == "postgresql://pokertable:casino-db-password@db.casino.lan:5432/pokertable"
    assert "casino-db-password" not in repr(chosen.described())
    stations = Stations.from_mapping(chosen.stations, tmp_path)
    shoe = stations.by_token.get("shoe-token-0123456789abcdef")
    assert shoe is not None and (shoe.role.value, shoe.table) == ("device", "Mesa 1")
    assert len(stations.by_token) == 4
