"""Self-evolution of named agents, off by default, bounded and observable (SPEC §13).

Signals (:mod:`.signals`) recorded per agent (:mod:`.store`) cross a threshold under a cooling
period (:mod:`.settings`); a reflection (:mod:`.reflection`) on a cheap model may then create or
fix skills in the agent's private library (:mod:`.library`) and rewrite its skill profile;
:mod:`.engine` ties them together, and every change can be listed and undone.
"""

from .engine import Evolution, EvolutionError
from .library import PrivateLibrary, Refused, validate_skill_text
from .settings import EvolutionSettings, load_settings, save_settings
from .signals import RunObserver
from .store import AgentStore, Reflection, SignalRecord

__all__ = ["AgentStore", "Evolution", "EvolutionError", "EvolutionSettings", "PrivateLibrary",
           "Reflection", "Refused", "RunObserver", "SignalRecord", "load_settings",
           "save_settings", "validate_skill_text"]
