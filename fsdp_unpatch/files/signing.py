"""The user's signing key and signatures: what makes the cache, the removed-names record and the intent journal
trustworthy (README, Safety: "The cache cannot run code or lie", "SIGKILL, power loss and the journal").

A key of 32 random bytes (hex) in `$XDG_CACHE_HOME/fsdp-unpatch/secret` (else `~/.cache/...`), mode 0600,
made whole or not at all; a file signed with it was written by this user's runs, not copied or forged.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat
from pathlib import Path
from typing import Any, Optional

from fsdp_unpatch.files.regular import open_regular


def unsafe_folder(folder: Path) -> Optional[str]:
    """Why `folder` must not hold a cache this user trusts (None: it may, or it does not exist yet)."""
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return None
    except OSError as error:
        return f"cannot inspect it ({error.strerror or error})"
    if stat.S_ISLNK(info.st_mode):
        return f"it is a symbolic link (to {os.readlink(folder)!r})"
    if not stat.S_ISDIR(info.st_mode):
        return "it is not a folder"
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        return f"it belongs to another user (uid {info.st_uid})"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"others may write to it (mode {stat.S_IMODE(info.st_mode):o})"
    return None


def secret_file() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fsdp-unpatch" / "secret"


def _publish_secret(path: Path) -> None:
    """Make the key at `path` whole or not at all: written to a private temporary file, then hard-linked in
    place, which fails if another run made one first (runs started together all end with that one). Where
    the file system has no hard links, the key is created empty with `O_EXCL` and written, as before."""
    import tempfile  # once per user: every later run reads the key

    secret = os.urandom(32).hex().encode()
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")  # mode 0600
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(secret)
        try:
            os.link(temporary, path)
            return
        except FileExistsError:
            return
        except OSError:
            pass  # no hard links here
    finally:
        os.unlink(temporary)
    try:
        descriptor = open_regular(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(secret)


def user_secret() -> Optional[bytes]:
    """This user's signing key for cache entries, created on first use (None: no safe place to keep one)."""
    path = secret_file()
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if unsafe_folder(path.parent) is not None:
            return None
        if not os.path.lexists(path):
            _publish_secret(path)
        descriptor = open_regular(path, os.O_RDONLY)
        with os.fdopen(descriptor, "rb") as handle:
            info = os.fstat(handle.fileno())
            if (hasattr(os, "geteuid") and info.st_uid != os.geteuid()) or info.st_mode & 0o077:
                return None
            secret = handle.read(256).strip()
    except OSError:
        return None
    return secret if len(secret) >= 32 else None


def canonical(value: Any) -> bytes:
    """The bytes a signature covers: `value` as compact JSON with sorted keys."""
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def sign(secret: bytes, label: str, value: Any) -> str:
    """HMAC-SHA256 of `label` and `value` (`canonical`) with the user's key: a cache entry is signed under its
    key, the removed-names record (`memory.py`) under its format name."""
    return hmac.new(secret, label.encode() + b"\0" + canonical(value), hashlib.sha256).hexdigest()
