"""The service's metrics in Prometheus's text format (issue 17, item 2), served at ``/metrics`` on the dashboard's
HTTP port (``pokertable serve --http``; docs/ops/monitoring.md lists them and what they mean).

Each server has its own :class:`prometheus_client.CollectorRegistry` (never the library's global one), so that
several servers in one process (the tests) count apart. Three things feed it:

* the request interceptor (:mod:`service.grpc.observe`): every RPC by method and status code, the latency of the
  stations' unary calls, the refusals and failures by rule, the server streams open;
* the store's group commit (:class:`service.store.group_commit.GroupCommit`'s observer, attached by
  :meth:`ServiceMetrics.attach`): the events stored, the commands each transaction carried, the hands started by
  game, the device reports by kind and the cards dealt from the shoe's reads — counted from the events stored, so a
  retried command (answered from its record, R-AUD-1) is not counted twice;
* the chain-head signer (:class:`service.store.signer.HeadSigner`), read at scrape time: the position and age of
  the last signed head (R-AUD-1);
* the application's alerts, read at scrape time (:class:`AlertGauges`, issue 29): the tables held now (R-HOLD-1), the
  holding alerts nobody acknowledged and the tampering the audit found (R-AUD-1), counted from what the application
  keeps (its tables' cached records, the casino's record of findings: :meth:`service.app.holds.Holds.
  alert_figures`), never from the log — a scrape costs a look at each table, not at each event.

No label carries a table's name, a station's name, a command id or a card: the label values are the API's methods,
status codes, rule ids (``R-…``), games and device report kinds, a fixed set (a scrape shows no secret and its size
does not grow with the floor). A device fault is also logged (``pokertable.devices``), with its table and command id
and the device's words with anything that reads as a card covered (:func:`cover_cards`).
"""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric

from domain.audit_findings import FINDING_KINDS
from domain.device_reports import DEVICE_REPORTS
from domain.games import GAMES, game_of_started
from domain.holds import HOLD_KINDS
from service.app.application import PokerTables, ProcessedCommand
from service.app.clock import ClockWatch, max_error_gauge, synchronised_gauge
from service.app.holds import AlertFigures

LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.5, 5.0)
"""Seconds: a command takes 1-5 ms on SQLite when the floor is calm, hundreds under a flood of commands."""
GROUP_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
"""Commands a transaction carries: 1 alone, up to 256 (the group commit's most)."""
CARD = re.compile(r"(?<![0-9A-Za-z])(?:(?:10|[2-9TJQKA])[shdc])+(?![0-9A-Za-z])|(?:10|[2-9TJQKAtjqka])[♠♥♦♣]")
"""A card as the service and the stations write one (``As``, ``10d``, ``AsKd`` run together, ``a♠``)."""

_faults = logging.getLogger("pokertable.devices")
_log = logging.getLogger(__name__)
_HAND, _DEVICE, _CARD, _OTHER = range(4)


def cover_cards(text: str) -> str:
    """``text`` with anything that reads as a card replaced by ``??`` (a device's words may name the card it read,
    which may be dealt face down).

    >>> cover_cards("read 12 As refused by the service: As is already in this hand (R-CARD-1)")
    'read 12 ?? refused by the service: ?? is already in this hand (R-CARD-1)'
    >>> cover_cards("jam in the shoe; 10d and a♠ and QhJc out")
    'jam in the shoe; ?? and ?? and ?? out'
    >>> cover_cards("deck not ready: 3 cards missing, shuffle again (R-DECK-3)")
    'deck not ready: 3 cards missing, shuffle again (R-DECK-3)'

    It errs on the side of covering: a sentence's first word "As" is covered too.
    """
    return CARD.sub("??", text)


class AlertGauges:
    """R-HOLD-1, R-AUD-1: the floor's alerts as gauges, read from the application at each scrape (a collector of the
    server's registry). Each instance of the service on one PostgreSQL reads the same store and shows the same
    figures: the alert rules take their ``max``, not their ``sum`` (docs/ops/pokertable-alerts.rules.yml).

    Every series is there from the first scrape, at 0 for each kind (so that a rule sees 0 before it sees 1); none
    when no application is attached (the server stopped) or the store does not answer (then the series go stale,
    and the store's own alerts speak)."""

    GAUGES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
        ("pokertable_tables_held", "Open tables held now by an alert nobody acknowledged: no hand starts there "
         "(R-HOLD-1)", ()),
        ("pokertable_table_holds", "Alerts holding the open tables now, by kind (tampering of no table holds every "
         "open table: counted at each)", ("kind",)),
        ("pokertable_alerts_unacknowledged", "Alerts that hold play and that nobody acknowledged yet, by kind, each "
         "once: every table's, open or closed, and the audit's findings (audit)", ("kind",)),
        ("pokertable_audit_findings", "Tampering the service's audit found and recorded, acknowledged or not, by "
         "what it found (R-AUD-1)", ("kind",)),
        ("pokertable_audit_findings_unacknowledged", "Tampering the audit found that the pit boss or the games "
         "director has not acknowledged yet, by what it found (R-AUD-1)", ("kind",)),
        ("pokertable_tables_unreadable", "Tables whose record the service cannot load: an event the hash chain does "
         "not vouch for (R-AUD-1; their commands are answered DATA_LOSS)", ()),
    )

    def __init__(self, metrics: ServiceMetrics) -> None:
        self.metrics = metrics
        self.failing = False
        """The last scrape could not read the figures (logged once, at the first failure)."""

    def describe(self) -> list[Metric]:
        """The gauges' names and help, without samples (the registry checks names with them)."""
        return [self._family(name, text, labels) for name, text, labels in self.GAUGES]

    def collect(self) -> Iterator[Metric]:
        """The gauges now (see the class)."""
        app = self.metrics._app
        figures: AlertFigures | None = None
        if app is not None:
            try:
                figures = app.holds.alert_figures()
            except Exception as error:  # the store does not answer: no figure rather than a wrong one
                if not self.failing:
                    _log.warning("the alerts could not be counted for the metrics: %s", cover_cards(str(error)),
                                 extra={"fields": {"event": "metrics-alerts-failed", "cause": str(error)}})
                self.failing = True
            else:
                self.failing = False
        families = {name: self._family(name, text, labels) for name, text, labels in self.GAUGES}
        if figures is not None:
            families["pokertable_tables_held"].add_metric([], figures.tables_held)
            families["pokertable_tables_unreadable"].add_metric([], figures.tables_unreadable)
            for name, counts in (("pokertable_table_holds", figures.holds),
                                 ("pokertable_alerts_unacknowledged", figures.unacknowledged),
                                 ("pokertable_audit_findings", figures.findings),
                                 ("pokertable_audit_findings_unacknowledged", figures.findings_unacknowledged)):
                known = HOLD_KINDS if name in ("pokertable_table_holds", "pokertable_alerts_unacknowledged") \
                    else FINDING_KINDS
                for kind in sorted(counts):
                    if kind in known:  # a fixed set of label values (a kind stored by a later version: left out)
                        families[name].add_metric([kind], counts[kind])
        yield from families.values()

    @staticmethod
    def _family(name: str, text: str, labels: tuple[str, ...]) -> GaugeMetricFamily:
        return GaugeMetricFamily(name, text, labels=list(labels))


class SignedHeads(Protocol):
    """What the metrics read of the chain-head signer (:class:`service.store.signer.HeadSigner`)."""

    signed: int
    signed_at: float | None


def _kind_of(event: object) -> int:
    """What the metrics count an event of this type as (worked out once a type)."""
    name = type(event).__qualname__.rpartition(".")[2]
    if name == "Started":
        try:
            game_of_started(event)
        except (ValueError, KeyError, TypeError):
            return _OTHER
        return _HAND
    if name == "DeviceReported":
        return _DEVICE
    if name == "CardDealt":
        return _CARD
    return _OTHER


class ServiceMetrics:
    """A server's metrics, in a registry of its own. ``signer``: the chain-head signer whose last head's position
    and age are shown (none: not shown); ``clock``: the host clock's watch whose last check is shown (none: NaN)."""

    def __init__(self, signer: SignedHeads | None = None, *, clock: ClockWatch | None = None) -> None:
        # no ``*_created`` series beside each counter (half the scrape; nothing the dashboard uses)
        disable_created_metrics()  # type: ignore[no-untyped-call]
        self.registry = registry = CollectorRegistry()
        self.signer = signer
        self.rpcs = Counter("pokertable_rpcs", "RPCs answered, by method and gRPC status code (every service: "
                            "pokertable.v1, health, reflection)", ["rpc", "code"], registry=registry)
        self.latency = Histogram("pokertable_rpc_duration_seconds", "Time from a unary RPC's arrival to its answer, "
                                 "by method (the stations' calls: the refusals of unknown tokens, delayed a second "
                                 "on purpose, are left out)", ["rpc"], buckets=LATENCY_BUCKETS, registry=registry)
        self.refusals = Counter("pokertable_rpc_refusals", "RPCs refused or failed, by method, status code and the "
                                "rule the error names (NONE when none)", ["rpc", "code", "rule"], registry=registry)
        self.streams = Gauge("pokertable_streams_open", "Server streams open now (Watch, ReconstructHand, health "
                             "Watch), by method", ["rpc"], registry=registry)
        self.events = Counter("pokertable_events_stored", "Events this instance stored in the log (commands' "
                              "changes, their records, signed chain heads)", registry=registry)
        self.groups = Histogram("pokertable_group_commit_size", "Commands committed in one transaction (group commit "
                                "across tables)", buckets=GROUP_BUCKETS, registry=registry)
        self.device_reports = Counter("pokertable_device_reports", "Device reports recorded at the tables, by kind "
                                      "(shuffle, deck-check, delivery, fault)", ["kind"], registry=registry)
        self.shoe_reads = Counter("pokertable_shoe_reads", "Cards dealt from the card-reading shoe's reads",
                                  registry=registry)
        self.hands = Counter("pokertable_hands_started", "Hands started, by game", ["game"], registry=registry)
        self.position = 0
        """The highest log position this instance stored (concurrent observers may set it late: it never falls)."""
        Gauge("pokertable_log_position", "The highest log position this instance stored since it started (0: none "
              "yet)", registry=registry).set_function(lambda: self.position)
        Gauge("pokertable_signed_head_position", "The chain position of the last head signed with the service's key "
              "(R-AUD-1; NaN: none signed with this key yet, or no signer)",
              registry=registry).set_function(self._signed_position)
        Gauge("pokertable_signed_head_age_seconds", "Seconds since the last chain head was signed, at scrape time "
              "(NaN: none signed with this key yet, or no signer)", registry=registry).set_function(self._head_age)
        self.clock = clock  # the host clock's last check (service.app.clock), read at scrape time
        Gauge("pokertable_clock_synchronised", "1: the host's clock was synchronised at the last check (the kernel's "
              "NTP state), 0: not (NaN: not checked, or unreadable)",
              registry=registry).set_function(lambda: synchronised_gauge(self.clock))
        Gauge("pokertable_clock_max_error_seconds", "The host clock's maximum error at the last check, in seconds "
              "(NaN: not checked, or not known)", registry=registry).set_function(lambda: max_error_gauge(self.clock))
        Gauge("pokertable_snapshots_refused", "Table snapshots refused since the start because their signature did "
              "not verify under the key that signed them: changed in the database (R-AUD-1; the tables are built "
              "from their events instead)", registry=registry).set_function(self._snapshots_refused)
        registry.register(AlertGauges(self))  # R-HOLD-1, R-AUD-1: read from the application at each scrape
        ProcessCollector(registry=registry)
        PlatformCollector(registry=registry)
        # every series there from the start (at 0): rate() and increase() see the first report or hand
        self._hands = {code: self.hands.labels(code) for code in GAMES}
        self._reports = {kind: self.device_reports.labels(kind) for kind in DEVICE_REPORTS}
        self._kinds: dict[type, int] = {}
        self._app: PokerTables | None = None

    def _snapshots_refused(self) -> float:
        return float(getattr(getattr(self._app, "snapshots", None), "refused", 0))

    # -- the store --------------------------------------------------------------------------------

    def attach(self, app: PokerTables) -> None:
        """Count what ``app`` stores from now on (its group commit's observer)."""
        app.unit.group_commit.observer = self.stored  # the application's own writer: there is no other way in
        self._app = app

    def detach(self) -> None:
        """Stop counting what the application stores (the server stopped)."""
        if self._app is not None and self._app.unit.group_commit.observer == self.stored:
            self._app.unit.group_commit.observer = None
        self._app = None

    def stored(self, committed: Sequence[tuple[Sequence[Any], Sequence[Any]]]) -> None:
        """A transaction committed: each of its commands' events and recordings (on the committing thread; cheap:
        a type lookup an event)."""
        events = 0
        kinds = self._kinds
        for writer_events, recordings in committed:
            events += len(writer_events)
            for event in writer_events:
                kind = kinds.get(type(event))
                if kind is None:
                    kind = kinds[type(event)] = _kind_of(event)
                if kind == _OTHER:
                    continue
                if kind == _CARD:
                    if getattr(event, "source", "") == "shoe":
                        self.shoe_reads.inc()
                elif kind == _HAND:
                    game = game_of_started(event).code
                    (self._hands.get(game) or self.hands.labels(game)).inc()
                else:
                    self._device_report(event, writer_events)
            if recordings:
                self.position = max(self.position, int(recordings[-1].notification.id))
        self.events.inc(events)
        self.groups.observe(len(committed))

    def _device_report(self, event: Any, events: Sequence[Any]) -> None:
        kind = str(getattr(event, "kind", ""))
        counter = self._reports.get(kind)
        if counter is None:  # a kind the domain does not know (it refuses them): one series for all of them
            counter = self.device_reports.labels("other")
        counter.inc()
        if kind != "fault":
            return
        record = next((e for e in reversed(events) if isinstance(e, ProcessedCommand.Processed)), None)
        table = str(record.result.get("table", "")) if record is not None else ""
        command_id = str(record.command_id) if record is not None else ""
        device, serial, colour = str(event.device), str(event.serial), str(event.colour)
        said = cover_cards(str(event.result))
        _faults.warning("device fault at table %r: %s (serial %s), %s deck: %s [command %r]", table, device, serial,
                        colour, said, command_id,
                        extra={"fields": {"event": "device-fault", "table": table, "command_id": command_id,
                                          "device": device, "serial": serial, "colour": colour, "result": said}})

    # -- the signer, at scrape time ---------------------------------------------------------------

    def _signed_position(self) -> float:
        signer = self.signer
        return float(signer.signed) if signer is not None and signer.signed_at is not None else math.nan

    def _head_age(self) -> float:
        signed_at = self.signer.signed_at if self.signer is not None else None
        return max(0.0, time.time() - signed_at) if signed_at is not None else math.nan

    # -- the scrape -------------------------------------------------------------------------------

    def render(self) -> tuple[bytes, str]:
        """The metrics in Prometheus's text format, and its content type (``/metrics``)."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST
