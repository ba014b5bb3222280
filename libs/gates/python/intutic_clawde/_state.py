"""Shared state next to the events file, under the same file lock as the TypeScript gates.

The lock is a `<state>.lock` file created with O_EXCL (atomic on local filesystems); one older
than ten seconds belongs to a dead process and is taken over. State is written by rename.
"""
from __future__ import annotations

import json
import os
import random
import time
from typing import Any, Callable, Dict, TypeVar

T = TypeVar("T")
LOCK_TIMEOUT_S = 5.0
LOCK_STALE_S = 10.0


def empty_state(run_id: str) -> Dict[str, Any]:
    return {"run_id": run_id, "plan_loaded": [], "counters": {}, "holds": {}, "holds_created": 0}


def with_file_lock(lock_path: str, fn: Callable[[], T]) -> T:
    deadline = time.monotonic() + LOCK_TIMEOUT_S
    attempt = 0
    while True:
        try:
            fd = os.open(lock_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                if time.time() - os.stat(lock_path).st_mtime > LOCK_STALE_S:
                    os.unlink(lock_path)
            except FileNotFoundError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"could not lock {lock_path} within {LOCK_TIMEOUT_S:.0f} s")
            attempt += 1
            time.sleep((min(1 + attempt, 8) + random.random() * 3) / 1000)
            continue
        try:
            os.write(fd, f"{os.getpid()} {int(time.time() * 1000)}\n".encode())
            os.close(fd)
            return fn()
        finally:
            try:
                os.unlink(lock_path)
            except FileNotFoundError:
                pass


def update_state(path: str, run_id: str, change: Callable[[Dict[str, Any]], T]) -> T:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)

    def locked() -> T:
        try:
            with open(path, encoding="utf-8") as f:
                state = json.load(f)
            if state.get("run_id") != run_id:
                state = empty_state(run_id)
        except FileNotFoundError:
            state = empty_state(run_id)
        result = change(state)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(state, f, separators=(",", ":"), ensure_ascii=False)
        os.replace(tmp, path)
        return result

    return with_file_lock(f"{path}.lock", locked)
