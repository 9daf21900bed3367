"""The service checks its own software (issue 29, item 3; docs/ops/install.md): at start and every
``verify_install_every`` seconds, each check on a thread, the installed files are hashed and compared with the release
manifest (:func:`pokertable.release.verify_installation`, what ``pokertable verify-install`` runs).

A difference -- a file changed, missing or added, or the manifest itself gone from an installation of the wheel -- is
logged as an ERROR (``pokertable.install``) and raised as a ``software-integrity`` alert at every open table, which
holds it (R-HOLD-1: no hand starts) until the pit boss or the games director acknowledges it (``AcknowledgeAlert``,
the pit's dashboard), as any alert the service raises.  The alert's words name the release and a digest of what was
found, so the command id made of them (:meth:`service.app.holds.Holds.raise_alert`) records the same finding
once per table: the next check, or another instance on the same installation, records nothing more, and a new
difference is a new alert.

A development install (``pip install -e .``) has no manifest: it is said once at INFO and never checked again, never
an alert.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from domain.errors import RuleError
from domain.holds import MAX_ALERT_DETAIL
from pokertable.release import Installation, verify_installation
from service.app import significant
from service.app.access import ServiceError
from service.app.holds import RaisedAlert

if TYPE_CHECKING:
    from service.app.application import PokerTables

__all__ = ["DEFAULT_VERIFY_INSTALL_EVERY", "KIND", "alert_words", "check_installation", "watch_installation"]

KIND = "software-integrity"
"""The alert's kind (domain.holds.HOLD_KINDS)."""
DEFAULT_VERIFY_INSTALL_EVERY = 3600.0
"""Seconds between two checks of the installation (``pokertable serve --verify-install-every``)."""
_log = logging.getLogger("pokertable.install")


def alert_words(found: Installation) -> str:
    """What the alert says (at most 200 characters), the same words for the same finding: the counts, the first file
    named, the release, and a digest of every line found (``pokertable verify-install`` lists them)."""
    lines = found.findings()
    finding = hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()[:12]
    release = found.release.removeprefix("sha256:")[:12] or "none"
    if found.problem:
        head = "no usable release manifest"
    else:
        head = f"{len(found.changed)} changed, {len(found.missing)} missing, {len(found.added)} added"
    first = lines[0].split(": ", 1)[-1] if lines else ""
    tail = f" (release {release}, finding {finding}; pokertable verify-install)"
    words = f"installed files differ from the release: {head}: {first}"
    room = MAX_ALERT_DETAIL - len(tail)
    return (words if len(words) <= room else words[:room - 1] + "…") + tail


def check_installation(app: PokerTables, package: Path | None = None) -> tuple[Installation, list[RaisedAlert]]:
    """Check the installation (``package``: the installed ``pokertable`` package directory, default the running
    program's) and, on a difference, raise the alert at every open table (once per finding and table): what was
    found, and the alerts (each result names the table, its version and the alert's log position, the same as before
    for one raised already)."""
    found = verify_installation(package)
    if found.development:
        _log.info("installation: %s (%s); not checked", found.summary(), found.root)
        return found, []
    if found.intact:
        _log.info("installation: %s under %s", found.summary(), found.root)
        return found, []
    _log.error("installation: SOFTWARE CHANGED under %s: %s: %s", found.root, found.summary(),
               "; ".join(found.findings()[:20]))
    words = alert_words(found)
    raised = []
    for table in app.table_names():
        try:
            if getattr(app.any_table(table), "closed", False):
                continue
            raised.append(app.holds.raise_alert(table, KIND, words))
        except (RuleError, ServiceError) as error:  # a table that cannot take it now: the next check tries again
            _log.warning("installation: the alert could not be raised at %s: %s", table, error)
    return found, raised


async def watch_installation(app: PokerTables, every: float, package: Path | None = None, *,
                             instance: str | None = None) -> None:
    """Check the installation at once, then every ``every`` seconds until cancelled, each check on a thread of its
    own; a development install is said once and not checked again. A check that fails (the store does not answer
    the alert) is logged and made again at the next interval. Each change of what is found (the first check, a
    difference, another difference, intact again) is a significant event (``software-integrity``, recorded by
    ``instance``, default this host), once."""
    recorded: str | None = None
    instance = instance or significant.host()
    while True:
        try:
            found, _ = await asyncio.to_thread(check_installation, app, package)
            if not found.development:
                said = "intact: " + found.summary() if found.intact else "CHANGED: " + alert_words(found)
                if said != recorded:
                    await asyncio.to_thread(significant.record, app, KIND, said, instance=instance)
                    recorded = said
        except Exception as error:
            _log.error("installation: the check could not be made or recorded: %s", error)
        else:
            if found.development:
                return
        await asyncio.sleep(every)
