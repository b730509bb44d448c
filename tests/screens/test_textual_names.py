"""No screen (or part of one) of `screens/` reuses a name Textual's own classes already give a
meaning, except the hooks Textual means to be overridden.

The workspace's idle check was once `check_idle`, which is also `MessagePump.check_idle`, the call
Textual makes on every refresh to wake the screen's message loop: the idle-pause check ran in its
place. A new method with a Textual name is caught here before it shadows anything.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from textual.screen import ModalScreen, Screen
from textual.widget import Widget

import crmarena_tui.screens

# What Textual asks subclasses to define.
HOOKS = {
    "AUTO_FOCUS",
    "BINDINGS",
    "CSS",
    "DEFAULT_CSS",
    "COMPONENT_CLASSES",
    "active_bindings",
    "can_focus",
    "can_focus_children",
    "check_action",
    "compose",
    "on_mount",
    "on_unmount",
    "render",
}


def _textual_names(cls: type) -> set[str]:
    textual = [base for base in cls.__mro__ if base.__module__.startswith("textual.")]
    return {name for base in textual for name in vars(base) if not name.startswith("_")}


def _project_classes() -> list[type]:
    found = []
    for info in pkgutil.iter_modules(crmarena_tui.screens.__path__):
        module = importlib.import_module(f"crmarena_tui.screens.{info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__ and issubclass(cls, Widget):
                found.append(cls)
    return found


def _shadowing(cls: type) -> list[str]:
    textual = _textual_names(cls)
    own = {
        name
        for base in cls.__mro__
        if base.__module__.startswith("crmarena_tui.")
        for name in vars(base)
        if not name.startswith("_")
    }
    return sorted(f"{cls.__name__}.{name}" for name in (own & textual) - HOOKS)


def test_no_screen_or_part_shadows_a_textual_name() -> None:
    assert [name for cls in _project_classes() for name in _shadowing(cls)] == []


def test_the_check_sees_a_shadowing_method() -> None:
    class Shadow(Screen):
        def check_idle(self) -> None:  # Textual's own name
            pass

    class Fine(ModalScreen[str]):
        def check_idleness(self) -> None:
            pass

    Shadow.__module__ = Fine.__module__ = "crmarena_tui.screens.example"
    assert _shadowing(Shadow) == ["Shadow.check_idle"]
    assert _shadowing(Fine) == []
