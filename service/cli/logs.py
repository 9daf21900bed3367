r"""The service's log (issue 17, item 1): standard library ``logging`` to standard error, a human line a record by
default, a JSON object a line with ``--log-format json`` (for the casino's log collector); ``--log-level``.

The level applies to the project's loggers (``pokertable.*``: ``pokertable.requests`` the request log,
``pokertable.devices`` device faults, ``pokertable.audit`` the service's audits; and the modules' own, ``service.*``,
``devices.*``); other libraries log their warnings and errors only, whatever the level. ``debug`` turns the request
log on: a line for every RPC answered, which nothing formats otherwise (:mod:`service.grpc.observe`).

A JSON line has ``time`` (UTC, ISO 8601, milliseconds), ``level``, ``logger``, ``message`` and the record's fields
(``event``, ``rpc``, ``table``, ``command_id``, ``code``, ``rule``, ``caller``, ``role``, ``duration_ms``, …); an
error's traceback is in ``exception``. Non-ASCII text is escaped, so a line is one line to any tool.

No text can forge a line of the log (issue 29): a device's words, a station's name, a command id, an alert's detail
come from outside, and a line feed in them must not start a line of its own that reads as the service's.  The human
line escapes, in everything it shows (the message with every value put into it, the logger's name, the level), every
control character — C0, DEL, C1 (NEL among them), the line and paragraph separators U+2028 and U+2029, the bidi
controls and lone surrogates — as ``\n``, ``\r``, ``\t``, ``\x1b``, ``\u2028``, and a backslash as ``\\``, so that
the escaping is unambiguous (:func:`escaped`).  An error's traceback follows its record on lines of its own, each
beginning with :data:`CONTINUATION` (two spaces and a bar, the rest escaped the same way): a line that begins with a
time is always a record's first line, and a collector that joins indented lines to the one before keeps the
traceback with its record.  The JSON line is escaped by ``json.dumps`` (every control and non-ASCII character as
``\uXXXX``, and DEL here).

>>> escaped("jam\n2026-11-27 12:00:00 INFO pokertable.audit audit: the log is intact \x1b[32mOK\x1b[0m")
'jam\\n2026-11-27 12:00:00 INFO pokertable.audit audit: the log is intact \\x1b[32mOK\\x1b[0m'
>>> print(escaped("C:\\dir\u2028next\x85\x7f\tend ♠ Mesa 1"))
C:\\dir\u2028next\x85\x7f\tend ♠ Mesa 1

>>> import json, logging
>>> record = logging.LogRecord("pokertable.requests", logging.WARNING, __file__, 1, "%s refused", ("Act",), None)
>>> record.fields = {"table": "Mesa 1", "rule": "R-CIRC-7"}
>>> line = json.loads(JsonFormatter().format(record))
>>> line["level"], line["logger"], line["message"], line["table"], line["rule"]
('WARNING', 'pokertable.requests', 'Act refused', 'Mesa 1', 'R-CIRC-7')
>>> shown({"db": "postgresql://casino:s3cret@db/pokertable", "port": 50051, "run": print})
{'db': 'postgresql://casino:***@db/pokertable', 'port': 50051}
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from service.store.persistence import masked_url

LEVELS = ("debug", "info", "warning", "error")
FORMATS = ("human", "json")
PROJECT_LOGGERS = ("pokertable", "service", "devices", "domain")
SECRET_WORDS = ("password", "token", "secret", "passphrase")
"""An option whose name has one of these is never shown, whatever its value."""

CONTINUATION = "  | "
"""How each line of an error's traceback (or a stack) begins in the human log, after its record's line: never a
time, so never a record's first line; indented, so a collector that joins indented lines keeps it with its record."""
_UNSAFE = re.compile(r"[\\\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""What the human log escapes: a backslash, C0 controls, DEL, C1 controls (NEL among them), the line and paragraph
separators, the bidi controls (text that shows other than it is) and lone surrogates (which cannot be written)."""
_NAMED = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}

_log = logging.getLogger("pokertable.service")


def _escape(found: re.Match[str]) -> str:
    char = found.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escaped(text: str) -> str:
    """``text`` as one line of the human log that shows what it holds: every control character (C0, DEL, C1), line
    or paragraph separator (U+2028, U+2029), bidi control and lone surrogate as ``\\n``, ``\\r``, ``\\t``,
    ``\\xHH`` or ``\\uHHHH``, and a backslash as ``\\\\`` (so that an escape in the text is told from one made
    here).  Text with none of them is returned as it is (the common case costs one search)."""
    return _UNSAFE.sub(_escape, text) if _UNSAFE.search(text) else text


def add_logging_arguments(parser: argparse.ArgumentParser) -> None:
    """``--log-format`` and ``--log-level``."""
    parser.add_argument("--log-format", choices=FORMATS, default="human",
                        help="the log on standard error: a human line a record (default) or a JSON object a line")
    parser.add_argument("--log-level", choices=LEVELS, default="info",
                        help="the least level logged (default info: start, stop, the configuration, refused and "
                        "failed commands, device faults, store errors, audits); debug adds the request log, a line "
                        "for every RPC")


class JsonFormatter(logging.Formatter):
    """A record as one JSON object: time, level, logger, message, then the record's ``fields``."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as a JSON line."""
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds").replace(
                "+00:00", "Z"),
            "level": record.levelname, "logger": record.name, "message": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            for key, value in fields.items():
                line.setdefault(str(key), value)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        text = json.dumps(line, default=str)  # ASCII: every control, separator and non-ASCII character as \uXXXX
        return text.replace("\x7f", "\\u007f")  # DEL, which is ASCII, too (only a string can hold it)


class HumanFormatter(logging.Formatter):
    """``2026-11-23T21:04:05.123Z WARNING pokertable.requests: …`` (UTC): one line a record, whatever its text
    (:func:`escaped`); an error's traceback and a stack follow on lines that begin with :data:`CONTINUATION`.

    >>> import logging
    >>> record = logging.LogRecord("pokertable.devices", logging.WARNING, __file__, 1, "fault: %s", ("jam\\nOK",),
    ...                            None)
    >>> HumanFormatter().format(record).partition(" ")[2]
    'WARNING pokertable.devices: fault: jam\\\\nOK'
    """

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802 (logging's name)
        """The record's time in UTC, ISO 8601 with milliseconds."""
        return datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def format(self, record: logging.LogRecord) -> str:
        """The record as one line, then its traceback and stack (if any) each line behind :data:`CONTINUATION`."""
        line = f"{self.formatTime(record)} {escaped(record.levelname)} {escaped(record.name)}: " \
               f"{escaped(record.getMessage())}"
        more: list[str] = []
        if record.exc_info:
            more.append(self.formatException(record.exc_info))
        elif record.exc_text:  # formatted by someone else already
            more.append(record.exc_text)
        if record.stack_info:
            more.append(self.formatStack(record.stack_info))
        if not more:
            return line
        return "\n".join([line, *(CONTINUATION + escaped(text) for block in more for text in block.split("\n"))])


class _Handler(logging.StreamHandler):  # type: ignore[type-arg]
    """The service's handler (one: configuring again replaces it), writing to whatever standard error is when a
    record is written (a test's captured stream, once closed, is not written to by a server still running)."""

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        del value  # always the process's standard error of the moment


def shown(options: dict[str, Any]) -> dict[str, Any]:
    """The options as the log shows them: plain values only, a password in a URL masked, secrets left out."""
    out: dict[str, Any] = {}
    for key, given in options.items():
        if any(word in key.lower() for word in SECRET_WORDS):
            continue
        value = str(given) if isinstance(given, Path) else given
        if isinstance(value, str):
            out[key] = masked_url(value) if "://" in value else value
        elif value is None or isinstance(value, (bool, int, float)):
            out[key] = value
    return out


def configure_logging(args: argparse.Namespace) -> None:
    """Log to standard error in ``args.log_format`` from ``args.log_level`` up, then log the configuration in effect
    (every option of the command, a database password masked as ``***``; a stations file's tokens are never read
    here)."""
    handler = _Handler(sys.stderr)
    handler.setFormatter(JsonFormatter() if args.log_format == "json" else HumanFormatter())
    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h, _Handler)]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    level = getattr(logging, str(args.log_level).upper())
    for name in PROJECT_LOGGERS:
        logging.getLogger(name).setLevel(level)
    logging.captureWarnings(True)
    options = shown({key: value for key, value in vars(args).items() if key not in ("run", "hardening")})
    _log.info("configuration in effect: %s", " ".join(f"{key}={value}" for key, value in options.items()),
              extra={"fields": {"event": "configuration", "options": options}})
