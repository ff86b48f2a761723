"""Secrets at rest: env and headers values sealed with Fernet, references only in the JSON, the
key user-only outside the workspace and masked from the tools; no secret in any file a run
wrote or in its logs; a wrong key fails with a clear error."""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path

import pytest

from orkas_nb import Agent
from orkas_nb.connectors import config as cfg
from orkas_nb.connectors import secrets
from orkas_nb.connectors.asking import review
from tests.fakes.model_server import Reply, ToolCall

SECRET_ENV = "env-secret-5f1e-never-on-disk"
SECRET_HEADER = "header-secret-a7c2-never-on-disk"


def _files_under(*roots: Path) -> list[Path]:
    return [p for r in roots for p in r.rglob("*") if p.is_file()]


def test_values_are_sealed_and_the_key_is_user_only(home, ws) -> None:
    cfg.save(ws, "a", {"command": "srv", "env": {"TOKEN": SECRET_ENV}})
    cfg.save(ws, "b", {"url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": SECRET_HEADER}},
             user=True)
    for path in (cfg.workspace_file(ws), cfg.user_file()):
        text = path.read_text()
        assert SECRET_ENV not in text and SECRET_HEADER not in text and '"$secret"' in text
    key = home / "secrets" / secrets.KEY_FILE
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    vault = (home / "secrets" / secrets.VAULT_FILE).read_text()
    assert SECRET_ENV not in vault and SECRET_HEADER not in vault
    servers = cfg.load(ws)
    assert servers["a"].revealed("env") == {"TOKEN": SECRET_ENV}
    assert servers["b"].revealed("headers") == {"Authorization": SECRET_HEADER}
    assert servers["b"].scope == "user"
    cfg.remove(ws, "a")  # a removed server's values leave the vault too
    assert len(json.loads((home / "secrets" / secrets.VAULT_FILE).read_text())) == 1


def test_a_value_pasted_in_clear_is_sealed_when_read(home, ws) -> None:
    (ws / ".orkas").mkdir()
    path = ws / ".orkas" / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"p": {"command": "srv", "env": {"K": SECRET_ENV}}}}))
    assert cfg.load(ws)["p"].revealed("env") == {"K": SECRET_ENV}
    assert SECRET_ENV not in path.read_text()


@pytest.mark.parametrize("damage, says", [
    ("other", "not the one the vault was written with"),
    ("garbage", "is not a valid key"),
    ("missing", "the key is missing"),
])
def test_a_wrong_key_file_fails_with_a_clear_error(home, ws, damage, says) -> None:
    from cryptography.fernet import Fernet

    cfg.save(ws, "a", {"command": "srv", "env": {"TOKEN": SECRET_ENV}})
    key = home / "secrets" / secrets.KEY_FILE
    if damage == "other":
        key.write_bytes(Fernet.generate_key())
    elif damage == "garbage":
        key.write_text("not a key")
    else:
        key.unlink()
    with pytest.raises(secrets.SecretsError, match=says) as caught:
        cfg.load(ws)["a"].revealed("env")
    assert "'TOKEN'" in str(caught.value) and "'a'" in str(caught.value)
    assert SECRET_ENV not in str(caught.value)


def test_a_reference_from_another_machine_is_a_clear_error(home, ws) -> None:
    (ws / ".orkas").mkdir()
    (ws / ".orkas" / "mcp.json").write_text(json.dumps(
        {"mcpServers": {"c": {"command": "srv", "env": {"K": {"$secret": "feedfacefeedface"}}}}}))
    with pytest.raises(secrets.SecretsError, match="does not have"):
        cfg.load(ws)["c"].revealed("env")


def test_the_key_and_consent_are_among_the_locations_the_tools_refuse(home, ws, tmp_path,
                                                                      monkeypatch) -> None:
    from orkas_nb.connectors.consent import ConsentStore
    from orkas_nb.tools.credentials import credential_paths
    from orkas_nb.tools.paths import PathPolicy, PathRefused

    # Even a config folder inside a folder the user allowed keeps these closed.
    shared = tmp_path / "shared"
    monkeypatch.setenv("ORKAS_CONFIG_DIR", str(shared / "cfg"))
    cfg.save(ws, "a", {"command": "srv", "env": {"TOKEN": SECRET_ENV}})
    ConsentStore().allow_always("agent", "a")
    found = credential_paths(None, dict(os.environ))
    assert shared / "cfg" / "secrets" in found
    monkeypatch.setenv("ORKAS_SECRETS_DIR", str(tmp_path / "elsewhere"))
    assert tmp_path / "elsewhere" in credential_paths(None, dict(os.environ))
    monkeypatch.delenv("ORKAS_SECRETS_DIR")
    policy = PathPolicy(ws, allowed=[shared])
    for name in (secrets.KEY_FILE, "mcp_consent.json"):
        with pytest.raises(PathRefused):
            policy.check(str(shared / "cfg" / "secrets" / name))
        with pytest.raises(PathRefused):
            policy.check(str(shared / "cfg" / "secrets" / name), write=True)


async def test_bash_in_the_sandbox_cannot_read_the_key(home, ws, tmp_path, monkeypatch) -> None:
    from orkas_nb.harness.cancellation import AbortSignal
    from orkas_nb.harness.tool_protocol import ToolContext
    from orkas_nb.tools import default_tools
    from orkas_nb.tools.sandbox import isolation_status

    if not isolation_status("auto").isolated:
        pytest.skip("bubblewrap unavailable")
    shared = tmp_path / "shared"
    monkeypatch.setenv("ORKAS_CONFIG_DIR", str(shared / "cfg"))
    cfg.save(ws, "a", {"command": "srv", "env": {"TOKEN": SECRET_ENV}})
    key = shared / "cfg" / "secrets" / secrets.KEY_FILE
    bash = next(t for t in default_tools(ws, allowed_paths=[shared], approver=lambda r: "once")
                if t.name == "bash")
    out = await bash.execute({"command": f"cat {key}; ls {key.parent}; echo end"},
                             ToolContext(workspace=ws, abort=AbortSignal()))
    assert "end" in out.text and key.read_text() not in out.text
    assert "vault" not in out.text


async def test_no_secret_in_any_file_the_run_wrote_or_in_its_logs(
        home, ws, tmp_path, model_server, approve_all, everything_http, caplog) -> None:  # noqa: F811
    caplog.set_level(logging.DEBUG)
    cfg.save(ws, "time", {"command": "mcp-server-time", "env": {"TIME_TOKEN": SECRET_ENV}})
    cfg.save(ws, "remote", {"url": everything_http, "headers": {"X-Token": SECRET_HEADER}})
    for name in ("time", "remote"):
        assert (review(ws, name, approve_all)).approved
    model_server.push(Reply(tool_calls=[
        ToolCall("mcp__time__get_current_time", '{"timezone": "UTC"}'),
        ToolCall("mcp__remote__echo", '{"message": "hi"}')]), Reply(text="ok"))
    agent = Agent("openai/gpt-4o-mini", workspace=ws, base_url=model_server.openai_url,
                  api_key="sk-test", approver=approve_all, session="mcp-run")
    assert (await agent.arun("time and echo")).text == "ok"
    agent.close()
    wrote = _files_under(tmp_path)
    assert any(p.suffix == ".jsonl" for p in wrote) and any(p.name == "time.log" for p in wrote)
    for path in wrote:
        data = path.read_bytes()
        assert SECRET_ENV.encode() not in data and SECRET_HEADER.encode() not in data, path
    for request in model_server.posts():
        assert SECRET_ENV.encode() not in request.body and SECRET_HEADER.encode() not in request.body
    assert SECRET_ENV not in caplog.text and SECRET_HEADER not in caplog.text
    for asked in approve_all.asked:
        assert SECRET_ENV not in asked.subject and SECRET_HEADER not in asked.subject


class _ProcessKeyring:
    """A keyring backend that lives in this process: the `keyring` library's own API, driven the
    way an OS backend (Secret Service, macOS Keychain) is, with nothing on disk."""

    def __init__(self) -> None:
        from keyring.backend import KeyringBackend

        class Backend(KeyringBackend):
            priority = 10  # type: ignore[assignment]
            store: dict[tuple[str, str], str] = {}

            def get_password(self, service: str, username: str) -> str | None:
                return self.store.get((service, username))

            def set_password(self, service: str, username: str, password: str) -> None:
                self.store[(service, username)] = password

            def delete_password(self, service: str, username: str) -> None:
                self.store.pop((service, username), None)

        self.backend = Backend()


def test_with_an_os_keyring_the_key_lives_there_and_no_key_file_is_written(home, ws,
                                                                           monkeypatch) -> None:
    keyring = pytest.importorskip("keyring")
    monkeypatch.delenv("ORKAS_KEYRING", raising=False)
    ring = _ProcessKeyring().backend
    before = keyring.get_keyring()
    keyring.set_keyring(ring)
    try:
        cfg.save(ws, "a", {"command": "srv", "env": {"TOKEN": SECRET_ENV}})
        assert not (home / "secrets" / secrets.KEY_FILE).exists()
        assert len(ring.store) == 1 and "OS keyring" in secrets.key_location()
        assert cfg.load(ws)["a"].revealed("env") == {"TOKEN": SECRET_ENV}
        for path in _files_under(home, ws):
            assert SECRET_ENV not in path.read_text(errors="replace")
        ring.store.clear()  # the keyring lost the key: a clear error, not a crash or a new key
        with pytest.raises(secrets.SecretsError):
            cfg.load(ws)["a"].revealed("env")
    finally:
        keyring.set_keyring(before)
