"""Opening files that must be regular files, without ever blocking on one that is not.

A FIFO, a character device or a socket where a file is expected (a cache entry, `removed.json`, the lock,
the signing key, a `.gitignore` or a configuration file in the tree) would hang the run in `open` or
`read`, deaf to Ctrl-C and SIGTERM. Opened with O_NONBLOCK and checked with `fstat`, it is refused at once.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import NamedTuple, Optional, Union

# What identifies a file's content without reading it: size, mtime, ctime (ns), inode, device.
Stat = tuple[int, int, int, int, int]


class FileStat(NamedTuple):
    """What a run keeps of a file's `os.stat` (a project walk keeps one per file): its type and what identifies
    its content; read as an `os.stat_result` is, at a third of its size."""

    st_mode: int
    st_size: int
    st_mtime_ns: int
    st_ctime_ns: int
    st_ino: int
    st_dev: int

    @classmethod
    def of(cls, info: os.stat_result) -> FileStat:
        return cls(info.st_mode, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


StatLike = Union[os.stat_result, FileStat]


def open_regular(path: Union[str, Path], flags: int, mode: int = 0o600, follow: bool = False) -> int:
    """`os.open` that never blocks and returns a descriptor of a regular file only (else OSError).

    `follow`: a symbolic link is followed (files of the tree); by default it is not (the cache's own files)."""
    extra = getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0) | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
    descriptor = os.open(path, flags | extra, mode)
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        if hasattr(os, "set_blocking"):
            os.set_blocking(descriptor, True)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def read_regular(path: Union[str, Path]) -> bytes:
    """The bytes of the regular file at `path` (symbolic links followed); OSError for anything else."""
    with os.fdopen(open_regular(path, os.O_RDONLY, follow=True), "rb") as handle:
        return handle.read()


def regular_stat(path: Union[str, Path]) -> Optional[tuple[Stat, StatLike]]:
    """The identifying stat of the regular file at `path` (and the whole result); None when missing or not
    regular. The cache trusts what it recorded of a file while this is unchanged."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return regular_record(info)


def regular_record(info: Optional[StatLike]) -> Optional[tuple[Stat, StatLike]]:
    """`regular_stat` from a stat already taken (None: none could be)."""
    if info is None or not stat.S_ISREG(info.st_mode):
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev), info
