"""Secrets at rest: every ``env`` and ``headers`` value of a connector, encrypted with Fernet.

A connector's JSON keeps a reference (``{"$secret": "<id>"}``) in place of each value; the
encrypted values live in a vault file beside the key, in :func:`~orkas_nb.core.locations.
secrets_dir` (outside every workspace, masked by the sandbox). The key is in the OS keyring when
the optional ``keyring`` package has a working backend (``ORKAS_KEYRING=0`` turns that off),
else in a user-only (0600) key file there. Values are decrypted only to start a server, and are
never printed, logged or written anywhere else.

A vault that the key cannot open (the key file replaced, the vault copied from another machine)
is a :class:`SecretsError` that says which files and what to do, never a traceback.
"""

from __future__ import annotations

import json
import os
import secrets as _random
import threading
from pathlib import Path
from typing import Any

from ..core.errors import ConfigError
from ..core.locations import secrets_dir

REF = "$secret"
KEY_FILE = "connectors.key"
VAULT_FILE = "connectors.vault.json"
_KEYRING_SERVICE = "orkas_nb"
_KEYRING_NAME = "connectors"
_lock = threading.Lock()


class SecretsError(ConfigError):
    """The connectors' secrets cannot be read or written; the message says why and what to do."""


def is_ref(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {REF} and isinstance(value[REF], str)


def _dir() -> Path:
    d = secrets_dir()
    d.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        os.chmod(d, 0o700)
    except OSError:
        pass
    return d


def _keyring() -> Any | None:
    if os.environ.get("ORKAS_KEYRING", "").lower() in ("0", "false", "no", "off"):
        return None
    try:
        import keyring  # optional: the OS keyring where the user has one
        from keyring.backends import fail
    except ImportError:  # not installed: use the key file
        return None
    except Exception:  # noqa: BLE001 - a backend broken at import: use the key file
        return None
    try:
        backend = keyring.get_keyring()
    except Exception:  # noqa: BLE001
        return None
    if isinstance(backend, fail.Keyring) or "null" in type(backend).__module__:
        return None
    return keyring


def key_location() -> str:
    """Where the key is (for messages): the keyring's name or the key file's path."""
    ring = _keyring()
    if ring is not None:
        return f"the OS keyring ({type(ring.get_keyring()).__name__})"
    return str(secrets_dir() / KEY_FILE)


def _load_key(create: bool) -> bytes | None:
    ring = _keyring()
    if ring is not None:
        stored = ring.get_password(_KEYRING_SERVICE, _KEYRING_NAME)
        if stored is None and create:
            from cryptography.fernet import Fernet

            stored = Fernet.generate_key().decode()
            ring.set_password(_KEYRING_SERVICE, _KEYRING_NAME, stored)
        return stored.encode() if stored else None
    path = _dir() / KEY_FILE
    if path.exists():
        if path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)  # a copy made loosely: make it user-only again
        return path.read_bytes().strip()
    if not create:
        return None
    from cryptography.fernet import Fernet

    key = Fernet.generate_key()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key)
        f.flush()
        os.fsync(f.fileno())
    return key


def _fernet(create: bool) -> Any:
    from cryptography.fernet import Fernet

    key = _load_key(create)
    if key is None:
        return None
    try:
        return Fernet(key)
    except (ValueError, TypeError):
        raise SecretsError(f"the connectors' key at {key_location()} is not a valid key (it "
                           "should be 44 url-safe base64 characters); restore it, or delete it "
                           "and the vault beside it and add the servers' values again") from None


def _read_vault() -> dict[str, str]:
    path = secrets_dir() / VAULT_FILE
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SecretsError(f"the connectors' vault {path} cannot be read ({exc}); restore it or "
                           "delete it and add the servers' values again") from None
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _write_vault(data: dict[str, str]) -> None:
    path = _dir() / VAULT_FILE
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def seal(value: str) -> dict[str, str]:
    """Encrypt ``value`` into the vault; the reference that stands for it in a config."""
    with _lock:
        token = _fernet(create=True).encrypt(value.encode("utf-8")).decode()
        vault = _read_vault()
        ref = _random.token_hex(12)
        vault[ref] = token
        _write_vault(vault)
    return {REF: ref}


def open_ref(ref: dict[str, str], *, owner: str) -> str:
    """The value a reference stands for; ``owner`` names it in errors (never the value)."""
    from cryptography.fernet import InvalidToken

    vault = _read_vault()
    token = vault.get(ref[REF])
    if token is None:
        raise SecretsError(f"{owner} refers to a secret this machine does not have (a config "
                           "copied from elsewhere?); set the value again with %agent mcp add")
    try:
        fernet = _fernet(create=False)
    except SecretsError as exc:
        raise SecretsError(f"{owner} cannot be read: {exc}") from None
    if fernet is None:
        raise SecretsError(f"{owner} is encrypted but the key is missing ({key_location()}); "
                           "restore the key, or add the server's values again")
    try:
        return fernet.decrypt(token.encode()).decode("utf-8")
    except InvalidToken:
        raise SecretsError(f"{owner} cannot be decrypted with the key at {key_location()}: the "
                           "key is not the one the vault was written with (replaced or copied "
                           "from elsewhere); restore the right key, or add the values again") from None


def forget(refs: list[dict[str, str]]) -> None:
    """Drop these references' values from the vault (a removed server, a replaced value)."""
    ids = {r[REF] for r in refs if is_ref(r)}
    if not ids:
        return
    with _lock:
        vault = _read_vault()
        kept = {k: v for k, v in vault.items() if k not in ids}
        if kept != vault:
            _write_vault(kept)


__all__ = ["REF", "SecretsError", "forget", "is_ref", "key_location", "open_ref", "seal"]
