"""The Agent configurable: defaults, environment, %config precedence, the documented table."""

from __future__ import annotations

import pytest
from traitlets import TraitError
from traitlets.config import Config

from orkas_nb.notebook.cell.config import ENV_VARS, Agent, env_table


def test_environment_then_config(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    a = Agent()
    assert (a.model, a.approval, a.renderer, a.transcript, a.top_level_await, a.allow) == (
        "", "ask", "auto", True, True, [])
    monkeypatch.setenv("ORKAS_MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("ORKAS_APPROVAL", "DENY")
    monkeypatch.setenv("ORKAS_ALLOW", "network, bash_risky ,")
    monkeypatch.setenv("ORKAS_ALLOWED_PATHS", "/data:/srv/x")
    monkeypatch.setenv("ORKAS_TRANSCRIPT", "0")
    a = Agent()
    assert (a.model, a.approval, a.allow, a.allowed_paths, a.transcript) == (
        "openai/gpt-4o-mini", "deny", ["network", "bash_risky"], ["/data", "/srv/x"], False)
    c = Config()
    c.Agent.model = "anthropic/claude-sonnet-4-5"
    assert Agent(config=c).model == "anthropic/claude-sonnet-4-5"  # config beats the environment
    monkeypatch.setenv("ORKAS_APPROVAL", "sometimes")
    assert Agent().approval == "ask"  # an unknown value falls back to the safe default


def test_bad_values_are_refused() -> None:
    with pytest.raises(TraitError):
        Agent(max_steps=0)
    with pytest.raises(TraitError):
        Agent(approval="always")


def test_the_table_documents_every_option_and_variable() -> None:
    table = env_table()
    for name in Agent.class_trait_names(config=True):
        assert f"`Agent.{name}`" in table
    for env in ENV_VARS:
        assert f"`{env}`" in table
