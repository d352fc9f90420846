"""The intent journal of a group being written, so that SIGKILL or a power loss mid-group is repaired by the next
run (README, Safety: "SIGKILL, power loss and the journal").

Before the first rename of a group, `commit` writes `.fsdp-unpatch-journal.PID.XXXX.json` in every folder that
holds a file of the group (so that a run over any member finds it), each flushed with its folder: every file
of the group, its old content and its new content (or that it is deleted), as signed JSON. It is removed once
the group is done, or undone after a failed write.

The next `fix` finds a journal left in a folder it walks and *rolls forward* (`check` and `fix --diff` write
nothing: they only report the group): it writes the new content into each file that still holds its old
content, then removes the journal. Forward, not back: the
journal holds every new content whole (it was flushed before the first rename), the fix was already planned,
checked and partly on disk, and finishing it is what the user asked for. A file that holds neither its old nor
its new content (edited since the crash) stops the repair: nothing is written, the journal is kept, and the
run says which file and exits 2.

A journal can do nothing but that. It is data (JSON, never code), signed with the user's own key (the cache's
HMAC key, `signing.user_secret`): one forged, copied from another tree, or written by another user is not acted
on, and is named. Even a valid one only writes files that hold exactly the content it records, through no
symbolic link. Without a private key no journal is written, and a group is then as safe as before (a SIGKILL
mid-group can leave it half written).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import stat
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from fsdp_unpatch.files.regular import open_regular
from fsdp_unpatch.files.signals import signals_deferred
from fsdp_unpatch.files.signing import sign, user_secret
from fsdp_unpatch.i18n import gettext as _
from fsdp_unpatch.quoting import printable, quoted_path

# What writes a journal, and what finishes one (`files/writing.py`, base64, secrets), is imported where it is
# done: every run looks for journals in its folders, and almost never finds one (`tests/test_startup_imports.py`).

PREFIX = ".fsdp-unpatch-journal."
SUFFIX = ".json"
FORMAT, VERSION = "fsdp-unpatch-journal", 1
_NAME = re.compile(r"^" + re.escape(PREFIX) + r"(\d+)\.[A-Za-z0-9_]+" + re.escape(SUFFIX) + "$")
_UNFINISHED = re.compile(r"^" + re.escape(PREFIX) + r"(\d+)\.[A-Za-z0-9_]+\.tmp$")  # killed while writing it
_LIMIT = 512 * 1024 * 1024
# The journals this process wrote and has not removed. The process id in a name does not tell: in a container
# every run can get the same id, so a killed earlier run's journal would look like this run's own.
_WRITTEN: set[str] = set()


@dataclass(frozen=True)
class Entry:
    """One file of the group: its real path, its content before and after (None: the fix deletes it)."""

    path: str
    old: bytes
    new: Optional[bytes]
    in_place: bool = False  # hard-linked or another owner's: written in its own inode, never replaced


@dataclass
class Repair:
    """What the run did about journals left by killed runs: lines to print, and problems that make it exit 2."""

    done: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    # groups left half written, reported by a run that writes nothing (`check`, `fix --diff`): exit 1
    interrupted: list[str] = field(default_factory=list)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _encode(entry: Entry) -> dict[str, Any]:
    import base64

    return {
        "path": entry.path,
        "in_place": entry.in_place,
        "old": base64.b64encode(entry.old).decode(),
        "old_sha256": _digest(entry.old),
        "new": None if entry.new is None else base64.b64encode(entry.new).decode(),
        "new_sha256": None if entry.new is None else _digest(entry.new),
    }


def write(entries: list[Entry]) -> list[str]:
    """Write the journal of a group, durably (files and folders flushed), in every folder that holds a file of
    the group, so that a run over any one of them finds it; their paths (none without a private key)."""
    import secrets

    secret = user_secret()
    if secret is None or not entries:
        return []
    value = [_encode(entry) for entry in entries]
    record = {"format": FORMAT, "version": VERSION, "signature": sign(secret, FORMAT, value), "entries": value}
    data = json.dumps(record, separators=(",", ":")).encode()
    name = f"{PREFIX}{os.getpid()}.{secrets.token_hex(6)}"  # one name in every folder: the copies go together
    written: list[str] = []
    try:
        for folder in _folders(entries):
            written.append(_write_copy(folder, name, data))
    except BaseException:
        remove(written)
        raise
    return written


def _folders(entries: list[Entry]) -> list[str]:
    return sorted({os.path.dirname(entry.path) for entry in entries})


def _write_copy(folder: str, name: str, data: bytes) -> str:
    from fsdp_unpatch.files.writing import fsync_folder, write_all

    temporary = os.path.join(folder, name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    _WRITTEN.add(os.path.realpath(temporary))
    try:
        try:
            write_all(descriptor, data)
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        journal = os.path.join(folder, name + SUFFIX)
        os.rename(temporary, journal)  # whole or absent: a half-written journal is never read
        _WRITTEN.add(os.path.realpath(journal))
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    finally:
        _WRITTEN.discard(os.path.realpath(temporary))
    fsync_folder(folder)
    return journal


def remove(journals: Iterable[str]) -> None:
    """Remove the journals (a group's copies), each folder flushed."""
    from fsdp_unpatch.files.writing import fsync_folder

    for journal in journals or ():
        _WRITTEN.discard(os.path.realpath(journal))
        try:
            os.unlink(journal)
        except OSError:
            continue
        fsync_folder(os.path.dirname(journal))


# the next run ---------------------------------------------------------------------------------------------
def left_behind(folders: Iterable[str], tidy: bool = True) -> list[str]:
    """Journals in `folders` whose writer is gone (a live run's journal is its own business). `tidy`: remove
    the temporary journals of runs killed before any rename (a run that writes nothing leaves them)."""
    found = []
    for folder in sorted(set(folders)):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in sorted(names):
            path = os.path.join(folder, name)
            match = _NAME.match(name)
            if match and not _writer_running(int(match.group(1)), path):
                found.append(path)
            unfinished = _UNFINISHED.match(name)
            if tidy and unfinished and not _writer_running(int(unfinished.group(1)), path):
                remove([path])  # its run was killed before any rename: nothing to finish
    return found


def _writer_running(pid: int, path: str) -> bool:
    """Whether the run that wrote the journal at `path` may still be running. After a power loss its process
    id may belong to another process by now: one that started after the journal was written is not its writer."""
    from fsdp_unpatch.files.writing import alive

    if pid == os.getpid():
        return os.path.realpath(path) in _WRITTEN
    if not alive(pid):
        return False
    started = _start_time(pid)
    try:
        return started is None or started <= os.lstat(path).st_mtime + 1
    except OSError:
        return True


def _start_time(pid: int) -> Optional[float]:
    """When process `pid` started (seconds since the epoch), where Linux's /proc tells; else None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            ticks = int(handle.read().rsplit(b")", 1)[1].split()[19])  # field 22: start time, in clock ticks
        with open("/proc/stat", "rb") as handle:
            booted = next(int(line.split()[1]) for line in handle if line.startswith(b"btime "))
        return booted + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


class _Refused(Exception):
    pass


def _read(journal: str, secret: Optional[bytes]) -> list[Entry]:
    """The journal's entries, or _Refused saying why it is not acted on."""
    try:
        info = os.lstat(journal)
    except OSError as error:
        raise _Refused(f"cannot read it ({error.strerror or error})") from None
    if not stat.S_ISREG(info.st_mode):
        raise _Refused("it is not a regular file")
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        raise _Refused("it belongs to another user")
    if secret is None:
        raise _Refused("there is no private signing key to check it with")
    try:
        with os.fdopen(open_regular(journal, os.O_RDONLY), "rb") as handle:
            record = json.loads(handle.read(_LIMIT))
        if not (isinstance(record, dict) and set(record) == {"format", "version", "signature", "entries"}):
            raise ValueError
        if (record["format"], record["version"]) != (FORMAT, VERSION) or not isinstance(record["signature"], str):
            raise ValueError
        if not hmac.compare_digest(record["signature"], sign(secret, FORMAT, record["entries"])):
            raise _Refused("it is not signed with your key (forged, or written by someone else)")
        entries = [_entry(data) for data in record["entries"]]
    except (OSError, ValueError, RecursionError, TypeError, KeyError):
        raise _Refused("it is not a journal this version wrote") from None
    # `write` puts it in the folders of the group's files: elsewhere it was copied (with its tree) or moved
    homes = _folders(entries)
    if os.path.realpath(os.path.dirname(journal)) not in {os.path.realpath(home) for home in homes}:
        where = quoted_path(homes[0]) if homes else "no folder"
        raise _Refused(f"it was written for files in {where}, not here (copied or moved)")
    return entries


def _entry(data: Any) -> Entry:
    import base64

    if not isinstance(data, dict) or set(data) != {"path", "in_place", "old", "old_sha256", "new", "new_sha256"}:
        raise ValueError
    path = data["path"]
    if not isinstance(path, str) or not os.path.isabs(path) or os.path.normpath(path) != path:
        raise ValueError
    old = base64.b64decode(data["old"], validate=True)
    new = None if data["new"] is None else base64.b64decode(data["new"], validate=True)
    if _digest(old) != data["old_sha256"] or (new is not None and _digest(new) != data["new_sha256"]):
        raise ValueError
    return Entry(path, old, new, bool(data["in_place"]))


def _content(path: str) -> Optional[bytes]:
    """The file's bytes, None when it is gone; OSError for a link, a FIFO or anything but a regular file."""
    try:
        descriptor = open_regular(path, os.O_RDONLY)  # a symbolic link is not followed
    except FileNotFoundError:
        return None
    with os.fdopen(descriptor, "rb") as handle:
        return handle.read()


def _finish(entry: Entry) -> None:
    """Give the file its new content (or delete it), whole: a rename, or in place for a hard-linked file."""
    from fsdp_unpatch.files.writing import flushed_copy

    if entry.new is None:
        os.unlink(entry.path)
        return
    info = os.stat(entry.path)
    if entry.in_place or info.st_nlink > 1:
        with os.fdopen(open_regular(entry.path, os.O_WRONLY), "wb") as handle:
            handle.write(entry.new)
            handle.truncate()
            handle.flush()
            os.fsync(handle.fileno())
        return
    os.replace(flushed_copy(entry.path, entry.new, info), entry.path)


def _drop_backups(journal: str, entries: list[Entry]) -> None:
    """The killed run's backups of these files (`.NAME.PID.XXXX.fsdp-unpatch.bak`) that hold nothing but the
    old content the journal also holds."""
    from fsdp_unpatch.files.writing import BACKUP_SUFFIX

    pid = _NAME.match(os.path.basename(journal)).group(1)  # type: ignore[union-attr]
    for entry in entries:
        folder, name = os.path.split(entry.path)
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for other in names:
            if other.startswith(f".{name}.{pid}.") and other.endswith(BACKUP_SUFFIX):
                backup = os.path.join(folder, other)
                try:
                    if _content(backup) == entry.old:
                        os.unlink(backup)
                except OSError:
                    pass


def _copies(journal: str, entries: list[Entry]) -> list[str]:
    """The journal and its copies in the other folders of its group (`write`)."""
    name = os.path.basename(journal)
    return sorted({journal} | {os.path.join(folder, name) for folder in _folders(entries)})


def _files(entries: list[Entry]) -> str:
    return ", ".join(quoted_path(os.path.relpath(e.path)) for e in entries)


def repair(folders: Iterable[str], finish: bool = True) -> Repair:
    """Finish the groups that killed runs left half written in `folders` (see the module's doc). Without
    `finish` (`check`, `fix --diff`: runs that write nothing) only say which groups `fix` would finish."""
    outcome = Repair()
    journals = left_behind(folders, tidy=finish)
    if not journals:
        return outcome
    from fsdp_unpatch.files.writing import fsync_folder, remove_leftovers

    secret = user_secret()
    for journal in journals:
        if not os.path.lexists(journal):
            continue  # a copy of a group finished above (its copies go with it)
        try:
            entries = _read(journal, secret)
            pending = _pending(entries)
        except _Refused as why:
            outcome.problems.append(
                _("{journal}: not acted on: {why}; inspect it, then delete it").format(
                    journal=quoted_path(journal), why=printable(str(why))
                )
            )
            continue
        if not finish:
            outcome.interrupted.append(
                _(
                    "a fix was interrupted mid-group (journal {journal}); its files {files} may be half written: "
                    "`fsdp-unpatch fix` will finish it"
                ).format(journal=quoted_path(journal), files=_files(entries))
            )
            continue
        try:
            with signals_deferred():
                for entry in pending:
                    _finish(entry)
                for folder in sorted({os.path.dirname(e.path) for e in pending}):
                    fsync_folder(folder)
                remove(_copies(journal, entries))
        except OSError as error:
            outcome.problems.append(
                _("{journal}: cannot finish the interrupted fix ({error}); journal kept").format(
                    journal=quoted_path(journal), error=error.strerror or error
                )
            )
            continue
        _drop_backups(journal, entries)
        for folder in _folders(entries):
            remove_leftovers(folder)  # the killed run's temporaries: their content is on disk now
        written = _files(pending) or _("nothing left to write")
        outcome.done.append(
            _("finished a fix that was killed mid-group (journal {journal}): {written}").format(
                journal=quoted_path(journal), written=written
            )
        )
    return outcome


def _pending(entries: list[Entry]) -> list[Entry]:
    """The entries whose file still holds its old content; _Refused when one holds neither."""
    pending = []
    for entry in entries:
        try:
            now = _content(entry.path)
        except OSError as error:
            raise _Refused(f"cannot read {entry.path} ({error.strerror or error})") from None
        if now == entry.new:  # None == None: already deleted
            continue
        if now != entry.old:
            raise _Refused(f"{entry.path} changed since (neither its old nor its new content)")
        pending.append(entry)
    return pending
