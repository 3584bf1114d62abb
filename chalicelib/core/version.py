"""The build's version and commit: `make package` writes chalicelib/build_info.json (bundled with the
code); a checkout without it answers its git commit, or "unknown"."""
from __future__ import annotations

import json
import subprocess
from functools import lru_cache
from pathlib import Path

VERSION = "1.0.0"
BUILD_INFO = Path(__file__).resolve().parent.parent / "build_info.json"


def write_build_info(commit: str, path: Path = BUILD_INFO) -> dict:
    info = {"version": VERSION, "commit": commit}
    path.write_text(json.dumps(info) + "\n")
    return info


def git_commit(cwd: Path | None = None) -> str | None:
    try:
        result = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd or BUILD_INFO.parent, capture_output=True,
                                text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout.strip() or None if result.returncode == 0 else None


@lru_cache(maxsize=1)
def build_info() -> dict:
    """{"version", "commit"}, read once per container."""
    try:
        info = json.loads(BUILD_INFO.read_text())
        if isinstance(info, dict) and info.get("version") and info.get("commit"):
            return {"version": str(info["version"]), "commit": str(info["commit"])}
    except (OSError, ValueError):
        pass
    return {"version": VERSION, "commit": git_commit() or "unknown"}
