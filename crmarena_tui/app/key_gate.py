"""No key is lost or lands in the wrong place: the app's keys, one at a time, held while the
screen they are meant for is still opening (docs/ARCHITECTURE.md, "Keys in order").

Textual hands each key to the widget that has the focus when the key is read, not when the key
before it is done: after `tab`, `enter` or `ctrl+s`, keys typed at once went to the old focus,
or into a screen still being mounted. The gate fixes both:

- a key is handed on only once the widgets that handle the key before it (the focused widget,
  its containers and the screen) have nothing left to do, so a focus move, a screen pushed or a
  dialog opened by one key is in place for the next;
- a part that starts a wait the next keys depend on (a task's session opening, the submit dialog
  gathering what can be picked, a join code being checked) holds the gate, and releases it once
  the focus is where the screen shows it: the keys typed meanwhile are then applied there, in
  order.

`ctrl+q` is never held. `escape` ends a hold that lasted `ESCAPE_AFTER` seconds (a session that
does not open): the keys held are dropped and a notice says how many.
"""

from __future__ import annotations

import time
from collections import deque
from typing import TYPE_CHECKING

from textual import events

from crmarena_tui.widgets.later import later

if TYPE_CHECKING:
    from textual.app import App
    from textual.message_pump import MessagePump

NEVER_HELD = frozenset({"ctrl+q", "ctrl+c"})
ESCAPE_AFTER = 3.0  # seconds a hold lasts before `escape` may end it
BUSY_LIMIT = 2.0  # seconds a key waits for a busy widget before it is handed on anyway
POLL = 0.005


def _waiting(pump: MessagePump) -> list[object]:
    """The messages `pump` has not handled yet: its queue, and the one its loop read ahead."""
    queue = getattr(pump, "_message_queue", None)
    return [*getattr(queue, "values", ()), getattr(pump, "_pending_message", None)]


def _busy(pump: MessagePump) -> bool:
    """Whether `pump` has messages waiting (Textual's queue keeps no count of the one being
    handled: a handler that awaits is not seen)."""
    return any(message is not None for message in _waiting(pump))


def _app_busy(app: App) -> bool:
    """Whether the app still has work queued, likely from the last key: a key bubbled back to
    it (its bindings run there), a callback (such as the one `Widget.focus` defers the focus
    to) or a message (a task to open). Keys read from the terminal and not handed on yet, and
    timers, do not count."""
    return any(
        message is not None
        and not isinstance(message, events.Timer)
        and not (isinstance(message, events.Key | events.Paste) and not message.is_forwarded)
        for message in _waiting(app)
    )


class KeyGate:
    """The app's keys and pastes, handed on in order (`CrmArenaApp.on_event` asks `take`)."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.held: deque[events.Key | events.Paste] = deque()
        self.holders: dict[object, str] = {}  # who holds the gate: what it waits for
        self.held_since: float | None = None
        self._replays: set[int] = set()  # ids of the held events handed on, not yet read
        self._stepping = False
        self._waiting_since: float | None = None

    # -- holding --------------------------------------------------------------------------------

    def hold(self, holder: object, why: str) -> None:
        """Keep the keys typed from now on until `release(holder)`."""
        if not self.holders:
            self.held_since = time.monotonic()
        self.holders[holder] = why

    def release(self, holder: object) -> None:
        """`holder`'s wait is over (its focus is set): the keys held are applied, in order."""
        if self.holders.pop(holder, None) is not None and not self.holders:
            self.held_since = None
            self._schedule()

    def typed_ahead(self, widget: object) -> bool:
        """Whether keys handed on before the one being handled have yet to reach `widget`: they
        wait in its queue or in one of its containers' (a screen busy on a loaded machine). A
        priority binding acts at once, before them; what it reads of `widget` waits for them."""
        node = widget
        while node is not None and node is not self.app:
            waiting = _waiting(node)  # type: ignore[arg-type]
            if any(isinstance(m, events.Key | events.Paste) for m in waiting):
                return True
            node = getattr(node, "_parent", None)
        return False

    @property
    def holding(self) -> bool:
        return bool(self.holders)

    @property
    def idle(self) -> bool:
        """No key is held or on its way to its widget."""
        return not (self.holders or self.held or self._replays or self._stepping)

    # -- the keys -------------------------------------------------------------------------------

    def take(self, event: events.Event) -> bool:
        """True: the gate keeps `event` (to hand it on later); False: handle it now."""
        if not isinstance(event, events.Key | events.Paste) or event.is_forwarded:
            return False
        if id(event) in self._replays:
            self._replays.discard(id(event))
            return False
        if isinstance(event, events.Key):
            if event.key in NEVER_HELD:
                return False
            if event.key == "escape" and self._escape_ends_hold():
                return False
        if not self.holders and not self.held and not self._replays and not self._busy():
            return False
        copy = (
            events.Key(event.key, event.character)
            if isinstance(event, events.Key)
            else events.Paste(event.text)
        )
        self.held.append(copy)
        self._schedule()
        return True

    def _escape_ends_hold(self) -> bool:
        since = self.held_since
        if not self.holders or since is None or time.monotonic() - since < ESCAPE_AFTER:
            return False
        dropped = len(self.held)
        self.held.clear()
        self.holders.clear()
        self.held_since = None
        if dropped:
            self.app.notify(
                f"escape: the {dropped} key(s) typed while waiting were not applied.",
                severity="warning",
            )
        return True

    def _busy(self) -> bool:
        """Whether the widgets that would handle the next key are still at the last one."""
        try:
            screen = self.app.screen
        except Exception:  # no screen yet: nothing to wait for
            return False
        node: MessagePump | None = self.app.focused or screen
        while node is not None and node is not self.app:
            if _busy(node):
                return True
            node = node._parent
        return _busy(screen) or _app_busy(self.app)

    def _schedule(self) -> None:
        if not self._stepping:
            self._stepping = True
            self.app.call_later(self._step)

    def _step(self) -> None:
        self._stepping = False
        if not self.app._screen_stack:  # the app is closing: no screen would take the key
            self.held.clear()
            return
        if self.holders or not self.held:
            self._waiting_since = None
            return
        if self._busy():
            now = time.monotonic()
            if self._waiting_since is None:
                self._waiting_since = now
            if now - self._waiting_since < BUSY_LIMIT:
                self._stepping = True
                later(self.app, POLL, self._step)
                return
        self._waiting_since = None
        event = self.held.popleft()
        self._replays.add(id(event))
        event.set_sender(self.app)
        self.app.post_message(event)
        if self.held:
            self._schedule()  # after the key just posted has been read
