"""Writing a file without ever losing a line: new content goes to a flushed temporary next to the file,
which is renamed over it (or, for a hard-linked file or one of another owner, written in place behind a
flushed backup). These are the steps; `fixes/transaction.py` puts them together for a group of files
(README, Safety).
"""

from __future__ import annotations

import os
import re
import stat
from typing import Optional

from fsdp_unpatch.files.reading import SourceError, SourceFile

TEMPORARY_SUFFIX = ".fsdp-unpatch.tmp"
BACKUP_SUFFIX = ".fsdp-unpatch.bak"


def changed_on_disk(source: SourceFile) -> bool:
    """Whether the file is no longer what was read: another inode, size, mtime or content."""
    try:
        info = os.stat(source.path)
    except OSError:
        return True
    if (info.st_mtime_ns, info.st_size) != (source.mtime_ns, source.size):
        return True
    if source.inode and (info.st_ino, info.st_dev) != (source.inode, source.device):
        return True
    try:
        with open(source.path, "rb") as handle:
            return handle.read(source.size + 1) != source.data
    except OSError:
        return True


def fsync_folder(folder: str) -> None:
    """Make a rename in `folder` durable; not every platform or file system can, and that is not an error."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def discard(temporary: Optional[str]) -> None:
    """Remove a temporary, if there is one; a failure leaves it for `remove_leftovers`."""
    if temporary is not None:
        try:
            os.unlink(temporary)
        except OSError:
            pass


def write_error(error: OSError) -> SourceError:
    """The finding for a write that failed before the file changed."""
    return SourceError("write", f"cannot write file: {error.strerror or error}; the file is unchanged")


def writable(path: str, info: os.stat_result) -> bool:
    """A file its owner may not write is read-only, even to root; so is one this process may not write."""
    if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        return False
    return os.access(path, os.W_OK)


def keeps_owner(info: os.stat_result) -> bool:
    """Whether a new file (the renamed temporary) can be given the original's owner and group."""
    if not hasattr(os, "getuid"):
        return True
    if os.geteuid() == 0:
        return True
    return info.st_uid == os.geteuid() and info.st_gid in (os.getegid(), *os.getgroups())


def new_temporary(path: str, suffix: str) -> tuple[int, str]:
    """A new file `.NAME.PID.XXXX<suffix>` next to `path`: the process id tells a later run whether its
    writer is gone (killed with SIGKILL), so that the leftover can be removed (`remove_leftovers`)."""
    import tempfile

    folder, name = os.path.split(path)
    return tempfile.mkstemp(dir=folder, prefix=f".{name}.{os.getpid()}.", suffix=suffix)


_LEFTOVER = re.compile(r"^\..+\.(\d+)\.[^.]+" + re.escape(TEMPORARY_SUFFIX) + "$")


def alive(pid: int) -> bool:
    """Whether process `pid` still runs (one of another user counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, but is someone else's
        return True
    return True


def remove_leftovers(folder: str) -> list[str]:
    """Remove the temporaries that a killed fix (SIGKILL: no clean-up possible) left in `folder`.

    Only temporaries (new content never renamed into place) are removed: they hold no one's data. Backups
    (`*.fsdp-unpatch.bak`) hold a file's old content and are left for the user.
    """
    removed: list[str] = []
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return removed
    for name in names:
        match = _LEFTOVER.match(name) if name.endswith(TEMPORARY_SUFFIX) else None
        if match and int(match.group(1)) != os.getpid() and not alive(int(match.group(1))):
            try:
                os.unlink(os.path.join(folder, name))
                removed.append(name)
            except OSError:
                pass
    return removed


def write_all(descriptor: int, data: bytes) -> None:
    """`os.write` until every byte is written."""
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]


def flushed_copy(path: str, data: bytes, info: os.stat_result) -> str:
    """A temporary next to `path` holding `data`, flushed, with the original's owner and mode."""
    descriptor, temporary = new_temporary(path, TEMPORARY_SUFFIX)
    try:
        try:
            write_all(descriptor, data)
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        if hasattr(os, "chown") and (info.st_uid, info.st_gid) != (os.geteuid(), os.getegid()):
            os.chown(temporary, info.st_uid, info.st_gid)  # before the mode: chown clears setuid bits
        os.chmod(temporary, stat.S_IMODE(info.st_mode))
    except BaseException:
        discard(temporary)
        raise
    return temporary


def overwrite(source: SourceFile, path: str, data: bytes) -> None:
    """Write `data` into the file's own inode, keeping a backup of the old content until it is on disk.

    A rename would give the path a new inode: the other hard links would keep the old text, and a file
    of another owner would change owner. So: (1) the old content goes to a backup file next to it,
    flushed; (2) the file is overwritten, truncated and flushed; (3) the backup is removed. An error in
    (2) puts the old content back; if even that fails, the backup stays and the error names it.
    """
    backup: Optional[str] = None
    try:
        descriptor, backup = new_temporary(path, BACKUP_SUFFIX)
        try:
            write_all(descriptor, source.data)
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        if changed_on_disk(source):
            raise SourceError("write", "file changed on disk while it was being fixed; not written")
        with open(path, "r+b") as handle:
            try:
                handle.write(data)
                handle.truncate()
                handle.flush()
                os.fsync(handle.fileno())
            except OSError as error:
                try:
                    handle.seek(0)
                    handle.write(source.data)
                    handle.truncate()
                    handle.flush()
                    os.fsync(handle.fileno())
                except OSError:
                    kept, backup = backup, None
                    raise SourceError(
                        "write",
                        f"cannot write file: {error.strerror or error}; its old content is saved in {kept}",
                    ) from error
                raise
    except OSError as error:
        raise write_error(error) from error
    finally:
        discard(backup)
