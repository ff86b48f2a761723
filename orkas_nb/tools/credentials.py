"""Where credentials live: the one list the path policy, the risk grader and the sandbox share.

The path policy refuses these locations, the grader asks (isolated) or refuses (degraded) a
command that names one, and the sandbox masks every one it would otherwise expose, after all of
its binds, whatever bind brought it in. Locations are found three ways: relative to the home
folder (:data:`HOME_CREDENTIALS`, the ``.config``/``.local/share`` ones also under
``$XDG_CONFIG_HOME``/``$XDG_DATA_HOME``), named by a tool's environment variable
(:data:`ENV_CREDENTIALS`), and by folder name anywhere (:data:`CREDENTIAL_NAMES`, a copy of
``~/.ssh`` inside a project). A location that is a symlink counts at its target too.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Mapping
from pathlib import Path

STATE_DIR = ".orkas"

# Relative to the home folder: key stores, token files, keyrings, browser profiles, and the
# connection files (with signing keys) of Jupyter kernels.
HOME_CREDENTIALS = (
    ".ssh", ".aws", ".azure", ".config/gcloud", ".config/gh", ".config/hub", ".docker", ".kube",
    ".gnupg", ".password-store", ".local/share/keyrings", ".local/share/kwalletd",
    "Library/Keychains", ".terraform.d", ".vault-token", ".netrc", "_netrc", ".pgpass",
    ".git-credentials", ".config/git/credentials", ".pypirc", ".npmrc", ".yarnrc.yml",
    ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials", ".m2/settings-security.xml",
    ".config/rclone", ".s3cfg", ".boto", ".databrickscfg", ".huggingface/token",
    ".cache/huggingface/token", ".config/op", ".mozilla", ".config/google-chrome",
    ".config/chromium", ".config/BraveSoftware", ".config/microsoft-edge", ".thunderbird",
    "snap/firefox", "snap/chromium", "Library/Application Support/Google/Chrome",
    "Library/Application Support/Firefox", ".local/share/jupyter/runtime",
    "Library/Jupyter/runtime", ".jupyter/jupyter_server_config.json",
    ".jupyter/jupyter_notebook_config.json", ".config/pip/pip.conf", ".pip/pip.conf", ".condarc",
    ".bash_history", ".zsh_history", ".python_history", ".psql_history", ".mysql_history",
    ".local/share/fish/fish_history", ".node_repl_history", ".sqlite_history", ".rediscli_history",
    ".ipython/profile_default/history.sqlite",
    # Data tools: warehouse and notebook-service logins, where data people keep them.
    ".kaggle", ".config/kaggle", ".dbt/profiles.yml", ".snowsql", ".snowflake", ".config/snowflake",
    ".config/gspread", ".my.cnf", ".mylogin.cnf", ".Renviron", ".config/rstudio/rstudio-prefs.json",
    # Other tools' tokens: coding agents, build tools, clouds.
    ".claude/.credentials.json", ".claude.json", ".codex/auth.json", ".config/github-copilot",
    ".terraformrc", ".pulumi/credentials.json", ".oci", ".ibmcloud", ".config/doctl",
    ".m2/settings.xml", ".gradle/gradle.properties", ".composer/auth.json",
    ".config/composer/auth.json", ".local/share/python_keyring", ".config/sops",
    ".config/orkas_nb", ".orkas_nb",
)
# Environment variables that move a credential store, with the store's path below their value
# ("" for the value itself).
ENV_CREDENTIALS: Mapping[str, tuple[str, ...]] = {
    "CARGO_HOME": ("credentials", "credentials.toml"), "DOCKER_CONFIG": ("",),
    "KUBECONFIG": ("",), "GNUPGHOME": ("",), "PASSWORD_STORE_DIR": ("",),
    "AWS_SHARED_CREDENTIALS_FILE": ("",), "AWS_CONFIG_FILE": ("",), "CLOUDSDK_CONFIG": ("",),
    "GH_CONFIG_DIR": ("",), "AZURE_CONFIG_DIR": ("",), "NETRC": ("",),
    "NPM_CONFIG_USERCONFIG": ("",), "GOOGLE_APPLICATION_CREDENTIALS": ("",),
    "HF_HOME": ("token",), "JUPYTER_RUNTIME_DIR": ("",), "XDG_RUNTIME_DIR": ("jupyter",),
    "GEM_HOME": ("credentials",), "KAGGLE_CONFIG_DIR": ("",), "DBT_PROFILES_DIR": ("profiles.yml",),
    "IPYTHONDIR": ("profile_default/history.sqlite",), "PULUMI_HOME": ("credentials.json",),
    "TF_CLI_CONFIG_FILE": ("",), "GRADLE_USER_HOME": ("gradle.properties",),
    "COMPOSER_HOME": ("auth.json",), "CLAUDE_CONFIG_DIR": ("",), "CODEX_HOME": ("auth.json",),
    "SNOWFLAKE_HOME": ("",), "MYSQL_TEST_LOGIN_FILE": ("",),
    # The connectors' key file, encrypted values and consent store (core/locations.py:
    # secrets_dir); the default place is under ~/.config/orkas_nb, listed above.
    "ORKAS_SECRETS_DIR": ("",), "ORKAS_CONFIG_DIR": ("secrets",),
}
# Folder names refused wherever they appear (a copy of ~/.ssh inside an allowed folder).
CREDENTIAL_NAMES = frozenset({".ssh", ".aws", ".gnupg", ".password-store", ".kube", STATE_DIR})
# orkas_nb's own state folders (a workspace's .orkas, the user's config folder) keep the user's
# skills in this sub-folder: the one part of them the tools may read (never write), and only
# through a read-only root the host grants (a skill an agent may use), so its files and
# scripts are reachable.
SKILLS_DIR = "skills"
# The names of orkas_nb's config folder among the credential stores (~/.config/orkas_nb,
# $XDG_CONFIG_HOME/orkas_nb, ~/.orkas_nb).
ORKAS_CONFIG_NAMES = ("orkas_nb", ".orkas_nb")


# Resolving every location costs ~1 ms (a few hundred lstat calls), and a path policy is built
# with each agent: answers for the process environment are kept for a moment, so a script or a
# team building many agents resolves them once, while a symlink made later is seen seconds after.
_CACHE_S = 2.0
_cached: dict[tuple[Path | None, tuple[str | None, ...]], tuple[float, tuple[Path, ...]]] = {}


def credential_paths(home: Path | None, env: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """Every credential location for this home (None: only those ``env`` names) and environment,
    as written and, when it is a symlink (or under one), where it really is. Missing locations
    are listed as written (the policy refuses them before they exist)."""
    if env is not None:
        return _credential_paths(home, env)
    key = (home, tuple(os.environ.get(v) for v in (*ENV_CREDENTIALS, "XDG_CONFIG_HOME", "XDG_DATA_HOME")))
    now = time.monotonic()
    hit = _cached.get(key)
    if hit is None or now - hit[0] > _CACHE_S:
        if len(_cached) > 32:
            _cached.clear()
        hit = _cached[key] = (now, _credential_paths(home, os.environ))
    return hit[1]


def _credential_paths(home: Path | None, env: Mapping[str, str]) -> tuple[Path, ...]:
    found: list[Path] = []
    bases = {".config/": env.get("XDG_CONFIG_HOME"), ".local/share/": env.get("XDG_DATA_HOME")}
    for rel in HOME_CREDENTIALS if home is not None else ():
        found.append(home / rel)
        for prefix, base in bases.items():
            if base and rel.startswith(prefix) and os.path.isabs(base):
                found.append(Path(base) / rel[len(prefix):])
    for var, subs in ENV_CREDENTIALS.items():
        value = env.get(var)
        for part in value.split(os.pathsep) if value and var == "KUBECONFIG" else [value or ""]:
            if part and os.path.isabs(os.path.expanduser(part)):
                found += [Path(os.path.expanduser(part)) / s if s else Path(os.path.expanduser(part))
                          for s in subs]
    out: dict[Path, None] = {}
    for p in found:
        out[p] = None
        real = _real(p)
        if real is not None:
            out[real] = None
    return tuple(out)


def _real(p: Path) -> Path | None:
    try:
        return p.resolve()
    except (OSError, RuntimeError):
        return None


def inside(path: Path, root: Path) -> bool:
    """Whether ``path`` is ``root`` or below it (both already resolved; compared as text, which
    is exact for resolved absolute paths and much faster than ``Path.parents``)."""
    p, r = str(path), str(root)
    return p == r or p.startswith(r if r.endswith("/") else r + "/")


# In a command's words a few names are common in projects too (a .docker/ folder of
# Dockerfiles, a project's .condarc): there only the secret file inside counts. The home's own
# are still caught exactly, by resolving the word (risk.py).
_PROJECT_NAMES = {".docker": ".docker/config", ".condarc": None, ".yarnrc.yml": None}


def _pattern() -> re.Pattern[str]:
    words = [_PROJECT_NAMES.get(r, r) for r in HOME_CREDENTIALS]
    names = "|".join(re.escape(w) for w in sorted({w for w in words if w}, key=len, reverse=True))
    return re.compile(
        rf"(^|[/~\s'\"=:])(?:{names}|{re.escape(STATE_DIR)})(?=\b|/|$)"
        r"|id_(rsa|dsa|ecdsa|ed25519)\b|/etc/(g?shadow|sudoers)|jupyter/runtime"
        r"|kernel-[\w-]+\.json|/proc/[^/\s]+/(environ|mem|maps|root|cwd|fd)\b|\bHISTFILE\b",
        re.IGNORECASE,
    )


# What the risk grader looks for in the words of a command (paths it cannot resolve yet).
SENSITIVE = _pattern()

__all__ = ["CREDENTIAL_NAMES", "ENV_CREDENTIALS", "HOME_CREDENTIALS", "ORKAS_CONFIG_NAMES",
           "SENSITIVE", "SKILLS_DIR", "STATE_DIR", "credential_paths", "inside"]
