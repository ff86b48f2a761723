"""Configuration of the notebook adapter: one traitlets Configurable named ``Agent``.

Set it with ``%config Agent.model = "openai/gpt-5.4-mini"``, in ``ipython_config.py``
(``c.Agent.model = ...``), or through the environment variables in :data:`ENV_VARS`.
Precedence: ``%config`` / config files, then the environment, then the default.
"""

from __future__ import annotations

import os
from typing import Any

from traitlets import Bool, Enum, Float, Int, List, TraitError, Unicode, default, validate
from traitlets.config import Configurable

# variable → (trait, what it sets); env_table() renders the README's table from the traits.
ENV_VARS: dict[str, tuple[str, str]] = {
    "ORKAS_MODEL": ("model", "the default model string"),
    "ORKAS_WORKSPACE": ("workspace", "the agent's folder (default: the kernel's working directory)"),
    "ORKAS_SESSION": ("session", "the session name (default: from the notebook's name)"),
    "ORKAS_APPROVAL": ("approval", "ask | deny: what happens to a call that needs consent"),
    "ORKAS_ALLOW": ("allow", "comma-separated approval categories granted without asking"),
    "ORKAS_ALLOWED_PATHS": ("allowed_paths", "extra folders the tools may use (os.pathsep-separated)"),
    "ORKAS_RENDERER": ("renderer", "auto | text | a registered renderer's name"),
    "ORKAS_TRANSCRIPT": ("transcript", "1/0: keep the static transcript in the cell"),
    "ORKAS_TOP_LEVEL_AWAIT": ("top_level_await", "1/0: run %%agent cells as awaited cells"),
    "ORKAS_KB_EMBEDDER": ("kb_embedder", "auto | none | local | ENDPOINT/MODEL: the knowledge base's embedder"),
    "ORKAS_SKILLS": ("skills", "1/0: offer the discovered skills (catalog and skill tool)"),
    "ORKAS_OPEN_TIER_SKILLS": ("open_tier_skills", "1/0: read other agent tools' global skill folders"),
}


def _env(name: str, fallback: str = "") -> str:
    return os.environ.get(name, fallback)


def _env_bool(name: str, fallback: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return fallback
    return raw.strip().lower() not in ("0", "false", "no", "off")


def _env_list(name: str, sep: str) -> list[str]:
    return [p.strip() for p in os.environ.get(name, "").split(sep) if p.strip()]


class Agent(Configurable):
    """orkas_nb's %%agent magic (``%config Agent`` lists the options)."""

    model = Unicode(help="Model string, e.g. 'openai/gpt-5.4-mini', 'anthropic/claude-sonnet-5-5', "
                    "'replay:path/to/cassette.jsonl'. Env: ORKAS_MODEL.").tag(config=True)
    workspace = Unicode(help="The agent's folder; empty means the kernel's working directory at "
                        "load. Env: ORKAS_WORKSPACE.").tag(config=True)
    session = Unicode(help="Session name; empty means one per notebook (from JPY_SESSION_NAME, "
                      "else the working folder's name). Env: ORKAS_SESSION.").tag(config=True)
    approval = Enum(["ask", "deny"], help="A call that needs consent and is not allow-listed: "
                    "'ask' the user (a widget, or a text prompt when the cell accepts input; "
                    "denied when nobody can answer) or 'deny' it. Env: ORKAS_APPROVAL.").tag(config=True)
    allow = List(Unicode(), help="Approval categories granted without asking (e.g. 'network'). "
                 "Env: ORKAS_ALLOW (comma-separated).").tag(config=True)
    allowed_paths = List(Unicode(), help="Folders the tools may use besides the workspace. "
                         "Env: ORKAS_ALLOWED_PATHS.").tag(config=True)
    renderer = Unicode(help="'auto', 'text' or the name of a registered renderer. "
                       "Env: ORKAS_RENDERER.").tag(config=True)
    transcript = Bool(help="Keep a static transcript in the cell's output when a run ends. "
                      "Env: ORKAS_TRANSCRIPT.").tag(config=True)
    top_level_await = Bool(help="Run %%agent cells as awaited cells (the cell stays busy and "
                           "widgets stay live); off: the run is a task on the kernel's loop. "
                           "Env: ORKAS_TOP_LEVEL_AWAIT.").tag(config=True)
    workspace_tools = Bool(True, help="Offer the workspace tools (files, search, bash, "
                           "web).").tag(config=True)
    namespace_tools = Bool(True, help="Offer the @tool functions defined in the notebook to the "
                           "agent.").tag(config=True)
    system_prompt = Unicode(None, allow_none=True, help="Replaces the default system prompt "
                            "('{workspace}' is filled in).").tag(config=True)
    max_steps = Int(500, help="Model requests per run before the run stops.").tag(config=True)
    temperature = Float(None, allow_none=True, help="Sampling temperature (the provider's "
                        "default when unset).").tag(config=True)
    interpolation_max_chars = Int(20_000, help="Longest text one {reference} in a prompt may "
                                  "insert.").tag(config=True)
    refresh_interval = Float(0.1, help="Seconds between two updates of the live text "
                             "view.").tag(config=True)
    kb_embedder = Unicode(help="The knowledge base's embedder: 'auto' (the local model when "
                          "installed), 'none' (full text only), 'local', or an embeddings server "
                          "as ENDPOINT/MODEL ('ollama/nomic-embed-text', "
                          "'openai/text-embedding-3-small'). Env: ORKAS_KB_EMBEDDER.").tag(config=True)

    skills = Bool(help="Offer the skills found in .orkas/skills, .agents/skills, the user folder, "
                  "installed packages and (see open_tier_skills) other tools' global folders: "
                  "their catalog in the system prompt and the skill tool. Env: "
                  "ORKAS_SKILLS.").tag(config=True)
    open_tier_skills = Bool(help="Also read other agent tools' global skill folders "
                            "(~/.claude/skills, ~/.agents/skills, ...): for the %%agent agent "
                            "only, never a named agent. Env: ORKAS_OPEN_TIER_SKILLS.").tag(config=True)

    @default("skills")
    def _skills_default(self) -> bool:
        return _env_bool("ORKAS_SKILLS", True)

    @default("open_tier_skills")
    def _open_tier_default(self) -> bool:
        return _env_bool("ORKAS_OPEN_TIER_SKILLS", True)

    @default("model")
    def _model_default(self) -> str:
        return _env("ORKAS_MODEL")

    @default("workspace")
    def _workspace_default(self) -> str:
        return _env("ORKAS_WORKSPACE")

    @default("session")
    def _session_default(self) -> str:
        return _env("ORKAS_SESSION")

    @default("approval")
    def _approval_default(self) -> str:
        value = _env("ORKAS_APPROVAL", "ask").strip().lower()
        return value if value in ("ask", "deny") else "ask"

    @default("allow")
    def _allow_default(self) -> list[str]:
        return _env_list("ORKAS_ALLOW", ",")

    @default("allowed_paths")
    def _allowed_paths_default(self) -> list[str]:
        return _env_list("ORKAS_ALLOWED_PATHS", os.pathsep)

    @default("renderer")
    def _renderer_default(self) -> str:
        return _env("ORKAS_RENDERER", "auto") or "auto"

    @default("transcript")
    def _transcript_default(self) -> bool:
        return _env_bool("ORKAS_TRANSCRIPT", True)

    @default("top_level_await")
    def _tla_default(self) -> bool:
        return _env_bool("ORKAS_TOP_LEVEL_AWAIT", True)

    @default("kb_embedder")
    def _kb_embedder_default(self) -> str:
        return _env("ORKAS_KB_EMBEDDER", "auto") or "auto"

    @validate("max_steps")
    def _positive_steps(self, proposal: Any) -> int:
        if proposal["value"] < 1:
            raise TraitError("Agent.max_steps must be at least 1")
        return proposal["value"]


def env_table() -> str:
    """The configuration table (Markdown) for the README and ``%agent config --help``."""
    rows = ["| `%config` | environment | default | what |", "|---|---|---|---|"]
    by_trait = {trait: env for env, (trait, _) in ENV_VARS.items()}
    for name in Agent.class_trait_names(config=True):
        trait = Agent.class_traits()[name]
        env = by_trait.get(name, "")
        dflt = trait.default_value
        shown = "" if dflt in (None, "", []) or env else repr(dflt)
        if env:
            shown = {"approval": "`ask`", "renderer": "`auto`", "transcript": "`1`",
                     "top_level_await": "`1`", "skills": "`1`",
                     "open_tier_skills": "`1`"}.get(name, "")
        elif shown:
            shown = f"`{shown}`"
        help_text = (trait.help or "").split(" Env:")[0]
        rows.append(f"| `Agent.{name}` | {f'`{env}`' if env else ''} | {shown} | {help_text} |")
    return "\n".join(rows)
