"""Settings of the workspace tools, and the state the tools of one agent share."""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..harness.approval import ApprovalGate, ApproverLike
from .paths import PathPolicy


class ToolSettings(BaseModel):
    """What the user (or host) configures about the workspace tools."""

    model_config = ConfigDict(extra="forbid")

    allowed_paths: list[str] = Field(default_factory=list)
    isolation: Literal["auto", "bubblewrap", "off"] = "auto"
    network: bool = False
    bash_timeout_s: float = 120.0
    bash_max_timeout_s: float = 600.0
    # Per process of a command (RLIMIT_DATA): None is half the machine's memory, 0 no limit.
    bash_memory_mb: int | None = Field(default=None, ge=0)
    # Processes of your user while a command runs (RLIMIT_NPROC; root is exempt): 0 no limit.
    bash_max_processes: int = Field(default=4096, ge=0)
    output_cap_chars: int = 30_000
    job_log_max_bytes: int = 50 * 1024 * 1024
    env_allow: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    # Folders commands see and the file tools read, never write (the skills an agent may use).
    extra_readonly_paths: list[str] = Field(default_factory=list)
    read_max_bytes: int = 32 * 1024 * 1024
    read_default_chars: int = 20_000
    web_allow_private: list[str] = Field(default_factory=list)
    web_max_bytes: int = 5 * 1024 * 1024
    web_timeout_s: float = 20.0
    web_max_chars: int = 50_000


@dataclass
class ReadRecord:
    sha256: str
    size: int


class ReadLedger:
    """What this agent last read or wrote of each file: the base of optimistic concurrency."""

    def __init__(self) -> None:
        self._records: dict[Path, ReadRecord] = {}
        self._lock = threading.Lock()

    def record(self, path: Path, data: bytes) -> None:
        with self._lock:
            self._records[path] = ReadRecord(hashlib.sha256(data).hexdigest(), len(data))

    def get(self, path: Path) -> ReadRecord | None:
        with self._lock:
            return self._records.get(path)


@dataclass
class Toolbox:
    """The state one agent's tools share: policy, read ledger, approval gate, settings."""

    workspace: Path
    settings: ToolSettings
    policy: PathPolicy
    gate: ApprovalGate
    ledger: ReadLedger = field(default_factory=ReadLedger)
    services: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def create(
        cls,
        workspace: str | Path,
        settings: ToolSettings | None = None,
        approver: ApproverLike | None = None,
        services: dict[str, Any] | None = None,
    ) -> Toolbox:
        settings = settings or ToolSettings()
        policy = PathPolicy(workspace, settings.allowed_paths,
                            readonly=settings.extra_readonly_paths)
        return cls(
            workspace=policy.workspace, settings=settings, policy=policy,
            gate=ApprovalGate(approver), services=dict(services or {}),
        )

    def approver_for(self, services: dict[str, Any]) -> ApproverLike | None:
        """The host's approver: one given at creation, or one the host put in services."""
        return self.gate.approver or services.get("approver") or self.services.get("approver")
