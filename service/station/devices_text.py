"""The devices as the plain station's croupier sees them (``devices``): each device's identity, news and link
counters, the deck in play, the reads dealt, irregular, refused and held while the service is away."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from service.station.hardware import HardwareStation


def panel(station: HardwareStation) -> str:
    """The devices as the croupier sees them: identity, last news, the deck in play, link counters, the reads
    held while the service is away, the irregularities and refusals of this session."""
    lines = []
    for name, adapter, news in (("shoe", station.shoe, station.shoe_news),
                                ("shuffler", station.shuffler, station.shuffler_news)):
        if adapter is None:
            lines.append(f"{name:<8} {news}")
            continue
        who = adapter.identity
        ident = f"{who.model} {who.serial} firmware {who.firmware}" if who else "not identified"
        stats = adapter.link.stats
        lines.append(f"{name:<8} {ident}; {news}; frames in {stats.frames_in}, corrupt {stats.bad_frames}, "
                     f"repeated {stats.duplicates}, resent {stats.retransmissions}, reconnects {stats.reconnects}")
    lines.append(f"deck     hand {station.hands}: the {station.shoe.colour.name.lower()} deck is in the shoe"
                 + (f", the {station.colour_of_hand(station.hands + 1).name.lower()} deck in the shuffler"
                    if station.shuffler else ""))
    lines.append(f"reads    {len(station.dealt)} dealt, {len(station.irregularities)} irregular, "
                 f"{len(station.refused)} refused by the service"
                 + (f"; SERVICE LOST: {len(station.held)} held, not dealt: "
                    + " ".join(f"{card}#{seq}" for card, seq in station.held) if station.held else "")
                 + (f"; {len(station.unreported)} device report(s) waiting for the service" if station.unreported
                    else ""))
    if station.irregularities:
        last = station.irregularities[-1]
        lines.append(f"last     {last.message} ({last.rule})")
    return "\n".join(lines)
