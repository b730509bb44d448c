"""`later`: call back on a widget, a screen or the app after a delay, always.

Textual's `set_timer` is made for intervals: a timer whose first moment has already passed when its
task reads the clock is skipped, not fired late (`Timer`'s `skip`, on by default). A one-shot timer
of a few milliseconds is then never fired when the process is descheduled (or collects garbage) at
that instant, which a loaded machine does: the key gate's poll stopped that way, and with it every
key typed after (issue 39). `later` schedules on the event loop, which fires late rather than not
at all, and hands the callback to the node's own queue, so it runs as `call_later` runs it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.message_pump import MessagePump


def later(node: MessagePump, delay: float, callback: Callable[[], object]) -> asyncio.TimerHandle:
    """Call `callback` on `node` once `delay` seconds have passed (late on a busy loop, never
    skipped); `.cancel()` on the handle stops it."""
    return asyncio.get_running_loop().call_later(delay, node.call_later, callback)
