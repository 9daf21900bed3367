"""Where the group's follower finds its store and its casinos (issue 18, item 3): the configuration file's
``[group]`` table and the flags; a bad value is refused naming where it came from. And the module examples of the
group's figures and settings."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

import service.cli.group_settings
import service.group.figures
from service.cli.group_settings import group_config
from service.cli.main import main
from service.cli.settings import SettingsError


def test_the_module_examples_run() -> None:
    for module in (service.group.figures, service.cli.group_settings):
        result = doctest.testmod(module)
        assert result.attempted and not result.failed, module.__name__


def test_flags_add_to_the_file_and_override_its_casinos() -> None:
    file = {"group": {"db": "postgresql://g@h/group", "interval": 2,
                      "casinos": {"A": {"db": "postgresql://a@h/a", "public_key": ["a1.pem", "a2.pem"]}}}}
    config = group_config(file, casinos=["A=postgresql://a@other/a"], keys=["A=a3.pem"], interval=0.5)
    assert config.casinos["A"].url == "postgresql://a@other/a"
    assert config.casinos["A"].keys == (Path("a1.pem"), Path("a2.pem"), Path("a3.pem"))
    assert config.interval == 0.5 and config.db == "postgresql://g@h/group"


@pytest.mark.parametrize(("file", "flags", "message"), [
    ({"group": {"dbs": "x"}}, {}, "[group] dbs: no such setting"),
    ({"group": {"interval": 0}}, {}, "[group] interval: seconds above 0"),
    ({"group": {"casinos": {"A": {"db": "ftp://x"}}}}, {}, "[group.casinos.A] db: unsupported database URL"),
    ({"group": {"casinos": {"A": {"db": "postgresql://a@h/a", "key": "k"}}}}, {}, "a table of db and public_key"),
    ({}, {"keys": ["B=b.pem"]}, "--public-key B: no casino 'B'"),
    ({}, {"interval": -1.0}, "--interval: seconds above 0"),
])
def test_a_bad_setting_is_refused_naming_where_it_came_from(file: dict[str, object], flags: dict[str, object],
                                                            message: str) -> None:
    with pytest.raises(SettingsError, match=message.replace("[", r"\[").replace("]", r"\]")):
        group_config(file, **flags)  # type: ignore[arg-type]


def test_without_a_group_store_the_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["group", "report"]) == 2
    assert "pokertable group: no group store" in capsys.readouterr().err
    assert main(["group", "report", "--group-db", "sqlite:///group.db"]) == 2
    assert "is a PostgreSQL database" in capsys.readouterr().err
