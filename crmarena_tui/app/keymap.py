"""Key bindings by id, and the `keymap` setting that remaps them.

Every binding of the app, its screens and its widgets has an id, `<where>.<what>` (for example
`workspace.run-query`). The `keymap` setting maps ids to keys, as Posting's does; Textual's
`App.set_keymap` applies it, so the footers, the key bar and the command palette show the new
keys. A keymap entry that names no binding is reported rather than silently ignored.

Listing the bindings imports every screen and widget module (textual included): the app does it in
a worker, and only when a keymap is set.

In a web browser (`serve`: textual-serve runs the app with its web driver, `App.is_web`) some keys
never reach the page: the browser keeps them for its tabs and windows (`BROWSER_RESERVED`). Every
binding on such a key has a browser-safe key in `BROWSER_KEYS`, applied as a keymap when the app is
served, so the footer and the palette show the key that works there; the `keymap` setting still
wins over it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.app import App
    from textual.binding import Binding


# Keys a browser keeps for itself whatever the page does (Chrome and Firefox): new tab or window,
# close the tab, switch tabs; Firefox quits on ctrl+q; f11 and f12 are full screen and devtools.
BROWSER_RESERVED = frozenset(
    {
        "ctrl+t",
        "ctrl+n",
        "ctrl+w",
        "ctrl+q",
        "ctrl+tab",
        "ctrl+pageup",
        "ctrl+pagedown",
        "f11",
        "f12",
    }
)
BROWSER_KEYS: dict[str, str] = {  # binding id -> its key in a browser
    "workspace.chat": "f4",
    "app.quit": "ctrl+backslash",
}


def keymap_for(keymap: Mapping[str, str], *, web: bool) -> dict[str, str]:
    """The keymap to apply: in a browser the browser-safe keys, under the `keymap` setting."""
    return {**(BROWSER_KEYS if web else {}), **keymap}


def all_bindings() -> dict[str, Binding]:
    """Every binding with an id, of the app and of each screen and widget class, by id."""
    import importlib
    import inspect
    import pkgutil

    from textual.binding import Binding
    from textual.dom import DOMNode

    from crmarena_tui import screens, widgets
    from crmarena_tui.app import app

    modules = [app] + [
        importlib.import_module(f"{package.__name__}.{info.name}")
        for package in (screens, widgets)
        for info in pkgutil.iter_modules(package.__path__)
    ]
    found: dict[str, Binding] = {}
    for module in modules:
        for _name, cls in inspect.getmembers(module, inspect.isclass):
            if not issubclass(cls, DOMNode) or cls.__module__ != module.__name__:
                continue
            for binding in cls.__dict__.get("BINDINGS", []):
                if isinstance(binding, Binding) and binding.id:
                    found[binding.id] = binding
    return found


def unknown_ids(keymap: Mapping[str, str]) -> list[str]:
    """The keymap's ids that no binding has (typos, or ids of an older version)."""
    if not keymap:
        return []
    known = all_bindings()
    return [binding_id for binding_id in keymap if binding_id not in known]


def apply_keymap(app: App, keymap: dict[str, str], unknown: list[str]) -> None:
    """Remap the app's keys; name the ids no binding has in a warning (the other keys stay)."""
    if keymap:
        app.set_keymap(keymap)
    if unknown:
        app.notify(
            f"No key binding has the id {', '.join(map(repr, unknown))} "
            "(see Key bindings in docs/settings.md).",
            title="keymap setting",
            severity="warning",
            timeout=12,
        )
