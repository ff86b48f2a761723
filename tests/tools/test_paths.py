"""The path policy on its own: roots that cannot be allowed, names that are always refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from orkas_nb.core.errors import ConfigError
from orkas_nb.tools.paths import PathPolicy, PathRefused, is_secret_name


def test_credential_system_and_state_folders_cannot_be_allowed(world) -> None:
    home = world.home
    for bad in (home / ".ssh", home / ".aws", "/etc", "/usr/lib", "/", home,
                world.ws / ".orkas", world.ws / ".orkas" / "sessions"):
        with pytest.raises(ConfigError):
            PathPolicy(world.ws, [bad])
    (home / ".config" / "gcloud").mkdir(parents=True)
    with pytest.raises(ConfigError, match="credential store"):
        PathPolicy(world.ws, [home / ".config" / "gcloud"])
    with pytest.raises(ConfigError, match="not a folder"):
        PathPolicy(world.ws, [world.root / "missing"])
    with pytest.raises(ConfigError):
        PathPolicy(home / ".ssh")  # nor can the workspace itself be a credential folder


def test_workspace_may_be_home_but_credentials_stay_closed(world) -> None:
    policy = PathPolicy(world.home)
    with pytest.raises(PathRefused, match="credential"):
        policy.check(".ssh/id_rsa")
    with pytest.raises(PathRefused, match="credential"):
        policy.check(".aws/credentials")
    (world.home / "notes.txt").write_text("n")
    assert policy.check("notes.txt").path == world.home / "notes.txt"


def test_allowed_folder_symlink_resolved_at_configuration(world) -> None:
    data = world.root / "data"
    data.mkdir()
    (world.root / "data_link").symlink_to(data, target_is_directory=True)
    policy = PathPolicy(world.ws, [world.root / "data_link"])
    assert data in policy.roots
    assert policy.check(str(data / "x.csv")).root == data


def test_refusals_explain_what_is_allowed(world) -> None:
    policy = PathPolicy(world.ws)
    with pytest.raises(PathRefused) as info:
        policy.check("../outside/canary.txt")
    assert "outside the workspace" in str(info.value) and str(world.ws) in str(info.value)
    with pytest.raises(PathRefused, match="empty"):
        policy.check("  ")
    with pytest.raises(PathRefused, match="state folder"):
        policy.check(".Orkas/x")
    with pytest.raises(PathRefused, match="credential folder"):
        policy.check("backup/.SSH/id_rsa")
    with pytest.raises(PathRefused, match="git hook"):
        policy.check(".git/hooks/post-checkout", write=True)
    assert policy.check(".git/hooks/post-checkout").path.name == "post-checkout"  # reading is fine
    with pytest.raises(PathRefused, match="start-up"):
        policy.check(".envrc", write=True)


@pytest.mark.parametrize("name,secret", [
    (".env", True), (".env.local", True), ("prod.env", True), (".ENV", True), ("id_rsa", True),
    ("id_rsa.pub", True), ("server.pem", True), ("tls.key", True), ("credentials.json", True),
    (".env.example", False), (".env.sample", False), ("environment.yml", False),
    ("keys.py", False), ("README.md", False), ("notes.env.md", False),
])
def test_secret_names(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


def test_resolved_display_is_relative_in_the_workspace(world) -> None:
    policy = PathPolicy(world.ws)
    assert policy.check("./sub/../a.txt").display == "a.txt"
    assert policy.check(str(world.ws / "sub")).display == "sub"
    assert Path(policy.check("~/../ws/a.txt".replace("~/..", str(world.root))).display) == Path("a.txt")


def test_extra_readonly_paths_cannot_expose_credentials(world) -> None:
    from orkas_nb.tools import default_tools

    with pytest.raises(ConfigError, match="credential"):
        default_tools(world.ws, settings={"extra_readonly_paths": [str(world.home / ".ssh")]})
    tools = default_tools(world.ws, settings={"extra_readonly_paths": ["/usr/share"]})
    assert tools


def test_loops_and_overlong_paths_are_clear_refusals(world) -> None:
    (world.ws / "loop").symlink_to("loop")
    policy = PathPolicy(world.ws)
    with pytest.raises(PathRefused, match="symlink loop"):
        policy.check("loop/x")
    with pytest.raises(PathRefused, match="paths stop at 4096"):
        policy.check("a/" * 3000)


def test_the_whole_home_is_never_an_extra_but_folders_holding_credentials_are(world) -> None:
    """An extra that holds credential folders is accepted (the sandbox masks them); the home
    folder itself, or a folder holding it, never is, nor a credential folder found by its real
    path (~/.docker links into ~/dotfiles)."""
    policy = PathPolicy(world.ws)
    for bad in (world.home, world.home.parent, "~", world.home / ".cargo" / "credentials.toml",
                world.home / "dotfiles" / "docker", world.root / "xdg" / "gh", "/", "/tmp",
                "/proc", "/proc/1", "/sys/kernel", "/dev/shm", "/run", "/var"):
        with pytest.raises(ConfigError, match="home folder|credential|own /tmp"):
            policy.check_readonly_extras([bad])
    assert policy.check_readonly_extras(world.extras) == tuple(Path(e) for e in world.extras)


def test_credentials_refused_by_real_path_and_xdg_location(world) -> None:
    """With the home as workspace, every listed location is refused, under its own name, the
    folder a symlink points to, and $XDG_CONFIG_HOME."""
    policy = PathPolicy(world.home, [world.root / "xdg"])
    for raw in (".cargo/credentials.toml", ".config/gh/hosts.yml", "dotfiles/docker/config.json",
                ".docker/config.json", str(world.root / "xdg" / "gh" / "hosts.yml"),
                ".mozilla/firefox/x/logins.json", ".local/share/keyrings/login.keyring",
                ".config/orkas_nb/keys.toml", ".npmrc", ".git-credentials"):
        with pytest.raises(PathRefused, match="credential"):
            policy.check(raw)
    assert policy.check(".config/tool/settings.ini").path.name == "settings.ini"
    assert policy.check(".cargo/bin/cargo-fmt").path.name == "cargo-fmt"


DATA_TOOL_LOGINS = (".kaggle/kaggle.json", ".dbt/profiles.yml", ".snowflake/connections.toml",
                    ".snowsql/config", ".config/gspread/service_account.json", ".my.cnf",
                    ".ipython/profile_default/history.sqlite", ".claude/.credentials.json",
                    ".codex/auth.json", ".config/github-copilot/apps.json", ".Renviron",
                    ".pulumi/credentials.json", ".m2/settings.xml", ".local/share/fish/fish_history")


def test_the_logins_of_data_tools_and_other_agents_are_credentials(world) -> None:
    """Where data people's tools keep their logins (warehouses, Kaggle, Sheets, IPython's
    history of typed keys) and other coding agents their tokens, with the home as workspace."""
    policy = PathPolicy(world.home)
    for raw in DATA_TOOL_LOGINS:
        with pytest.raises(PathRefused, match="credential"):
            policy.check(raw)
    assert policy.check(".ipython/profile_default/startup/00-setup.py").path.name == "00-setup.py"
    assert policy.check(".dbt/logs/dbt.log").path.name == "dbt.log"


def test_a_data_tool_moved_by_its_variable_is_found_there(world, monkeypatch) -> None:
    elsewhere = world.root / "kaggle-conf"
    monkeypatch.setenv("KAGGLE_CONFIG_DIR", str(elsewhere))
    monkeypatch.setenv("DBT_PROFILES_DIR", str(world.ws / "dbt"))
    policy = PathPolicy(world.ws, [world.root])
    for raw in (elsewhere / "kaggle.json", world.ws / "dbt" / "profiles.yml"):
        with pytest.raises(PathRefused, match="credential"):
            policy.check(str(raw))
    assert policy.check(str(world.ws / "dbt" / "models.sql")).path.name == "models.sql"
