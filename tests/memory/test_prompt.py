"""The memory block in the system prompt: frozen per turn, byte-stable across turns."""

from __future__ import annotations

from pathlib import Path

from orkas_nb.memory.notes import CrossSessionMemory
from orkas_nb.memory.prompt import FrozenPrompt


def test_frozen_within_a_turn_and_stable_across_turns(workspace: Path, tmp_path: Path) -> None:
    memory = CrossSessionMemory(workspace, profile_dir=tmp_path / "cfg")
    prompt = FrozenPrompt("You are orkas.", memory)
    assert prompt.freeze() == "You are orkas." and prompt() == "You are orkas."  # off: no block
    memory.enable()
    memory.add("notes", "Deploys go through make deploy.")
    turn1 = prompt.freeze()
    assert turn1.startswith("You are orkas.\n\n<memory>") and "make deploy" in turn1
    memory.add("profile", "Prefers French.")  # the memory tool, mid-turn
    assert prompt() == turn1  # unchanged until the next turn
    turn2 = prompt.freeze()
    assert turn2 != turn1 and "Prefers French." in turn2
    assert prompt.freeze().encode() == turn2.encode()  # nothing changed: same bytes


def test_without_memory() -> None:
    prompt = FrozenPrompt("base", None)
    assert prompt() == "base"
