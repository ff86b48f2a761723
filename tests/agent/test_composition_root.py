"""One composition root: a notebook cell, a script and the team's agent factory all turn a model
string into a provider through ``orkas_nb.agent.models.provider_for``, and nothing else in the
package calls the registry's ``resolve_model``.

Each case spies on both functions (in the process that builds the agent) and checks that every
resolution went through ``provider_for`` and reached the registry from there.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from orkas_nb.agent import Agent, MemberFactory, ProviderPool
from orkas_nb.agent import models as agent_models
from orkas_nb.core.errors import ConfigError
from orkas_nb.providers import registry
from orkas_nb.team.factory import AgentFactory, MemberSpec, TeamMember
from orkas_nb.testing import ScriptedModel, reply
from tests.fakes.fixtures import model_server  # noqa: F401
from tests.fakes.wire import Reply

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "orkas_nb"

# Installed in whichever process builds the agent: count the calls of the one function and of
# the registry below it (provider_for looks resolve_model up when called, so it sees the spy).
SPY = '''
import orkas_nb.agent.models as _models, orkas_nb.providers.registry as _registry
_via, _registry_calls = [], []
_provider_for, _resolve_model = _models.provider_for, _registry.resolve_model
def _spy_via(model, **options):
    _via.append(model)
    return _provider_for(model, **options)
def _spy_registry(model, **options):
    _registry_calls.append(model)
    return _resolve_model(model, **options)
_models.provider_for, _registry.resolve_model = _spy_via, _spy_registry
'''


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    calls: dict[str, list[str]] = {"via": [], "registry": []}
    provider_for, resolve_model = agent_models.provider_for, registry.resolve_model

    def via(model: str, **options: object) -> object:
        calls["via"].append(model)
        return provider_for(model, **options)

    def reg(model: str, **options: object) -> object:
        calls["registry"].append(model)
        return resolve_model(model, **options)

    monkeypatch.setattr(agent_models, "provider_for", via)
    monkeypatch.setattr(registry, "resolve_model", reg)
    return calls


@pytest.mark.kernel
@pytest.mark.slow
def test_a_notebook_cell_resolves_its_model_through_the_composition_root(model_server, tmp_path):  # noqa: F811
    from tests.notebook.kernel import Kernel

    model_server.push(Reply(text="first"), Reply(text="second"), Reply(text="third"))
    env = {"ORKAS_RENDERER": "text", "OPENAI_BASE_URL": model_server.openai_url,
           "OPENAI_API_KEY": "sk-test"}
    with Kernel(tmp_path, env=env) as kernel:
        kernel.run("%load_ext orkas_nb\n" + SPY)
        for _ in range(2):
            kernel.run("%%agent -m openai/gpt-4o-mini --no-tools\nhello")
        # Two cells of one conversation share the provider: resolved once.
        assert kernel.value("[_via, _registry_calls]") == [["openai/gpt-4o-mini"]] * 2
        kernel.run("%agent new")  # a fresh conversation resolves its models afresh
        cell = kernel.run("%%agent -m openai/gpt-4o-mini --no-tools\nhello")
        assert "third" in kernel.shown(cell)[-1]["text/plain"]
        assert kernel.value("[_via, _registry_calls]") == [["openai/gpt-4o-mini"] * 2] * 2
    assert model_server.count("/v1/chat/completions") == 3


def test_a_script_resolves_its_model_through_the_composition_root(model_server, tmp_path):  # noqa: F811
    model_server.push(Reply(text="from the wire"))
    script = SPY + f'''
import json
from orkas_nb import Agent
agent = Agent("openai/gpt-4o-mini", workspace={str(tmp_path)!r}, default_tools=False,
              base_url={model_server.openai_url!r}, api_key="sk-test")
result = agent.run_sync("hi")
print(json.dumps([result.text, _via, _registry_calls]))
'''
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO,
                         timeout=120, env={**_clean_env(), "PYTHONPATH": str(REPO)}, check=False)
    assert out.returncode == 0, out.stderr
    text, via, reached = json.loads(out.stdout.strip().splitlines()[-1])
    assert text == "from the wire"
    assert via == reached == ["openai/gpt-4o-mini"]


def _clean_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ORKAS_"))}


class RecordingFactory:
    """A test double of the team's agent factory: it records the specs it is asked for and
    builds through the real one, as a team would use it."""

    def __init__(self, inner: AgentFactory) -> None:
        self.inner = inner
        self.specs: list[MemberSpec] = []

    def __call__(self, spec: MemberSpec) -> TeamMember:
        self.specs.append(spec)
        return self.inner(spec)


async def _dispatch(factory: AgentFactory, spec: MemberSpec, task: str) -> str:
    """What the team layer does with a factory: build the member, run the task to its end."""
    member = factory(spec)
    assert isinstance(member, TeamMember)
    return (await member.arun(task)).text


async def test_team_members_resolve_their_models_through_the_composition_root(
        spy, model_server, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setenv("OPENAI_BASE_URL", model_server.openai_url)
    model_server.push(Reply(text="member on the wire"), Reply(text="again"))
    pool = ProviderPool()
    parent = Agent("openai/gpt-4o-mini", workspace=tmp_path, pool=pool, default_tools=False,
                   api_key="sk-test", system_prompt="parent")
    assert spy["via"] == spy["registry"] == ["openai/gpt-4o-mini"]
    assert isinstance(parent.member_factory(), MemberFactory)
    factory = RecordingFactory(parent.member_factory())
    spec = MemberSpec(name="reviewer", model="openai/gpt-4o", system_prompt="review", max_steps=3)
    # The member's own model goes through the one function (its key comes from the
    # environment: the parent's api_key is the parent's own).
    monkeypatch.setenv("OPENAI_API_KEY", "sk-member")
    assert await _dispatch(factory, spec, "look") == "member on the wire"
    assert spy["via"] == spy["registry"] == ["openai/gpt-4o-mini", "openai/gpt-4o"]
    request = model_server.posts()[-1]
    headers = {k.lower(): v for k, v in request.headers.items()}
    assert request.json["model"] == "gpt-4o" and headers["authorization"] == "Bearer sk-member"
    # A second member on the same model shares the pooled provider; one without a model runs
    # the parent's provider: neither resolves anything.
    second = factory(MemberSpec(name="second", model="openai/gpt-4o"))
    same = factory(MemberSpec(name="helper"))
    assert spy["via"] == ["openai/gpt-4o-mini", "openai/gpt-4o"]
    assert second.provider is parent.pool.resolve("openai/gpt-4o").provider
    assert same.provider is parent.provider and same.model == "gpt-4o-mini"
    assert [s.name for s in factory.specs] == ["reviewer", "second", "helper"]


def test_a_member_gets_its_prompt_steps_and_only_the_tools_it_names(tmp_path):
    parent = Agent(ScriptedModel([]), workspace=tmp_path)
    factory = parent.member_factory()
    member = factory(MemberSpec(name="reader", system_prompt="read only in {workspace}",
                                tools=("read_file", "grep_files"), max_steps=2))
    assert sorted(member.tools.names()) == ["grep_files", "read_file"]
    assert member.system_prompt == f"read only in {tmp_path.resolve()}"
    assert member.runner.config.max_steps == 2 and parent.runner.config.max_steps == 500
    assert member.name == "reader" and member.workspace == parent.workspace
    assert "bash" in parent.tools  # the parent keeps its own tools
    with pytest.raises(ConfigError, match="tools its team does not have: no_such_tool"):
        factory(MemberSpec(name="bad", tools=("read_file", "no_such_tool")))


def test_a_member_spec_refuses_what_a_team_file_must_not_hold() -> None:
    with pytest.raises(ValueError):
        MemberSpec(name="Has Spaces")
    with pytest.raises(ValueError):
        MemberSpec(name="ok", max_steps=0)
    with pytest.raises(ValueError):
        MemberSpec(name="ok", temperature=0.2)  # type: ignore[call-arg]


def test_a_pool_keeps_providers_and_cassettes_only_where_asked(spy, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-one")
    pool = ProviderPool()
    first = pool.resolve("openai/gpt-4o-mini", base_url="http://127.0.0.1:9/v1")
    assert pool.resolve("openai/gpt-4o-mini", base_url="http://127.0.0.1:9/v1").provider is first.provider
    assert first.catalog is not None and first.label == "openai/gpt-4o-mini"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-two")  # a changed key is read again
    assert pool.resolve("openai/gpt-4o-mini", base_url="http://127.0.0.1:9/v1").provider is not first.provider
    from orkas_nb.providers.cassette import CASSETTE_VERSION

    cassette = tmp_path / "c.jsonl"
    cassette.write_text(json.dumps({"type": "header", "version": CASSETTE_VERSION, "model": "m"}))
    process, conversation = ProviderPool(), ProviderPool(keep_cassettes=True)
    assert process.resolve(f"replay:{cassette}").provider is not process.resolve(f"replay:{cassette}").provider
    kept = conversation.resolve(f"replay:{cassette}").provider
    assert conversation.resolve(f"replay:{cassette}").provider is kept
    conversation.clear()
    assert conversation.resolve(f"replay:{cassette}").provider is not kept
    assert spy["via"] == spy["registry"] and len(spy["via"]) == 6


def test_nothing_else_in_the_package_calls_the_registrys_resolve_model() -> None:
    callers = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if rel in ("orkas_nb/providers/registry.py", "orkas_nb/providers/__init__.py"):
            continue  # where it is defined and re-exported
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            named = (isinstance(node, ast.Name) and node.id == "resolve_model") or (
                isinstance(node, ast.Attribute) and node.attr == "resolve_model") or (
                isinstance(node, ast.alias) and node.name == "resolve_model")
            if named:
                callers.append(f"{rel}:{node.lineno}")
    assert callers and all(c.startswith("orkas_nb/agent/models.py:") for c in callers), callers


def test_the_notebook_and_the_agent_no_longer_resolve_on_their_own() -> None:
    # The notebook hands the Agent its pool and a model string; it builds no provider itself.
    for rel in ("orkas_nb/notebook/cell/prepare.py", "orkas_nb/notebook/state.py"):
        text = (REPO / rel).read_text(encoding="utf-8")
        assert "resolve_provider" not in text and "registry" not in text, rel
    assert "model_name" not in registry._OPTIONS
    with pytest.raises(ConfigError, match="unknown provider option"):
        registry.resolve_model("openai/gpt-4o-mini", api_key="k", model_name="x")
    agent = Agent(ScriptedModel([reply("x")]), model_name="named", workspace=REPO, default_tools=False)
    assert agent.model == "named" and agent.resolved.label == "scripted"
