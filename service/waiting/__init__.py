"""Waiting for a wake-up on the event loop, shared by the gRPC service (its log follower and Watch streams) and the
pit's dashboard (its floor): neither knows the other, both know this."""

from __future__ import annotations

import asyncio
import contextlib


async def woken(wake: asyncio.Event, timeout: float | None) -> None:
    """Wait until ``wake`` is set or ``timeout`` seconds went by (None: no limit; 0 or less: no wait). A
    cancellation that comes as the wake-up does is not lost: Python 3.11's ``wait_for`` drops it (gh-86296), and a
    stop waiting on the follower, a Watch stream or the floor then hung until the next wake-up."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(wake.wait(), timeout)
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
