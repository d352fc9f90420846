"""A fix that spans several files is written all or nothing (README, Safety: "A fix is all or nothing").

The engine plans every file's new content first (a `Change` per file). The changes of a linked group (files
whose fixes require each other, or that name what another file's fix deletes) are then committed together:

1. check and stage: every file is still what was read and may be written (or deleted); each new content goes
   to a flushed temporary next to its file. Ctrl-C, SIGTERM or SIGHUP here removes the temporaries: nothing
   has changed yet (the run rolls back).
2. journal (`journal.py`), signals already held: the group's intent, flushed, so that a run killed from here
   on (SIGKILL, power loss) is finished by the next one.
3. swap, with those signals held: each temporary is renamed over its file (a hard-linked file, or one of
   another owner, is overwritten in place behind a backup; a file the fix empties is moved aside). When a
   step fails, the files already swapped get their original content back, in reverse order. A signal that
   arrives now is acted on once the group is done (the run finishes the group).

`commit` raises `Blocked` naming the file that stopped the group and why; the group is then as it was.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional, Sequence

from fsdp_unpatch.files.reading import SourceError, SourceFile
from fsdp_unpatch.files.signals import checkpoint, signals_deferred
from fsdp_unpatch.files.writing import (
    BACKUP_SUFFIX,
    changed_on_disk,
    discard,
    flushed_copy,
    fsync_folder,
    keeps_owner,
    new_temporary,
    overwrite,
    remove_leftovers,
    writable,
    write_error,
)
from fsdp_unpatch.fixes import journal
from fsdp_unpatch.rules.registry import error_finding

CHANGED = "file changed on disk while it was being fixed; not written"


@dataclass
class Change:
    """One file's part of a fix: what was read, and what takes its place."""

    source: SourceFile
    data: bytes
    delete: bool = False  # the fix empties the file (FSU305): it is deleted instead of written


class Blocked(Exception):
    """The change at `position` cannot be made; no file of the group was changed."""

    def __init__(self, position: int, error: SourceError) -> None:
        super().__init__(str(error))
        self.position = position
        self.error = error


def refusal(change: Change) -> Optional[SourceError]:
    """Why this file cannot be written (or deleted) now; None when it can."""
    source = change.source
    if change.delete and os.path.islink(source.path):
        # Unlinking a link would leave its target, full, behind.
        return SourceError(
            "write",
            "the fix empties this file, but it is a symbolic link; not deleted "
            f"(delete {os.path.realpath(source.path)} and the link yourself)",
        )
    path = os.path.realpath(source.path)
    try:
        info = os.stat(path)
    except OSError as error:
        return write_error(error)
    if not writable(path, info):  # a read-only file says "do not touch", even to root
        if change.delete:
            return SourceError("write", "the fix empties this file, but it is read-only; not deleted")
        return SourceError("write", "file is read-only; not written (make it writable to apply the fix)")
    if changed_on_disk(source):
        return SourceError(
            "write",
            CHANGED if not change.delete else "file changed on disk while it was being fixed; not deleted",
        )
    return None


@dataclass
class _Staged:
    position: int
    change: Change
    path: str  # the real path (a symbolic link's target is what is written)
    info: os.stat_result
    how: str  # "rename", "overwrite" (hard links, another owner) or "delete"
    temporary: Optional[str] = None  # the new content, until renamed
    aside: Optional[str] = None  # a deleted file's old self, until the group is done


def _stage(position: int, change: Change) -> _Staged:
    path = os.path.realpath(change.source.path)
    info = os.stat(path)
    if change.delete:
        return _Staged(position, change, path, info, "delete")
    if info.st_nlink > 1 or not keeps_owner(info):
        return _Staged(position, change, path, info, "overwrite")
    staged = _Staged(position, change, path, info, "rename")
    staged.temporary = flushed_copy(path, change.data, info)
    return staged


def _swap(staged: _Staged) -> None:
    source = staged.change.source
    if changed_on_disk(source):  # the last look, right before the file changes
        raise SourceError("write", CHANGED)
    if staged.how == "rename":
        os.replace(staged.temporary, staged.path)  # type: ignore[arg-type]
        staged.temporary = None
    elif staged.how == "overwrite":
        overwrite(source, staged.path, staged.change.data)
    else:
        descriptor, aside = new_temporary(staged.path, BACKUP_SUFFIX)
        os.close(descriptor)
        try:
            os.replace(source.path, aside)  # atomic: the file is gone, its old self kept until the group is done
        except BaseException:
            discard(aside)
            raise
        staged.aside = aside


def _restore(staged: _Staged) -> None:
    """Give a swapped file its original content back."""
    original = staged.change.source.data
    if staged.how == "delete":
        os.replace(staged.aside, staged.change.source.path)  # type: ignore[arg-type]
        staged.aside = None
    elif staged.how == "overwrite":
        with open(staged.path, "r+b") as handle:
            handle.write(original)
            handle.truncate()
            handle.flush()
            os.fsync(handle.fileno())
    else:
        os.replace(flushed_copy(staged.path, original, staged.info), staged.path)


def commit(changes: Sequence[Change]) -> None:
    """Write (or delete) every file of the group, or none; raises Blocked when none was."""
    staged: list[_Staged] = []
    intent: list[str] = []
    for folder in sorted({os.path.dirname(os.path.realpath(c.source.path)) for c in changes}):
        remove_leftovers(folder)  # what a fix killed with SIGKILL left next to these files
    try:
        for position, change in enumerate(changes):
            checkpoint()  # a signal here: the temporaries go, nothing has changed
            refused = refusal(change)
            if refused is not None:
                raise Blocked(position, refused)
            try:
                staged.append(_stage(position, change))
            except OSError as error:
                raise Blocked(position, write_error(error)) from error
        with signals_deferred():  # from the journal on: a Ctrl-C cannot leave a journal of a group never begun
            try:  # before the first rename: what the next run needs to finish the group if this one is killed
                # (one file needs none: its rename is atomic, and an in-place write keeps a backup)
                intent = journal.write([_entry(item) for item in staged]) if len(staged) > 1 else []
            except OSError as error:
                raise Blocked(0, write_error(error)) from error
            swapped: list[_Staged] = []
            for item in staged:
                try:
                    _swap(item)
                except (OSError, SourceError) as error:
                    failure = error if isinstance(error, SourceError) else write_error(error)
                    _roll_back(swapped, item)
                    raise Blocked(item.position, failure) from error
                swapped.append(item)
            for item in swapped:
                if item.aside is not None:
                    discard(item.aside)
                    item.aside = None
            for folder in sorted({os.path.dirname(item.path) for item in swapped}):
                fsync_folder(folder)
    finally:
        for item in staged:
            discard(item.temporary)
        journal.remove(intent)  # the group is done, or undone


def _entry(item: _Staged) -> journal.Entry:
    new = None if item.how == "delete" else item.change.data
    return journal.Entry(item.path, item.change.source.data, new, in_place=item.how == "overwrite")


def _roll_back(swapped: list[_Staged], failed: _Staged) -> None:
    for item in reversed(swapped):
        try:
            _restore(item)
        except OSError as error:  # the disk refuses even the old content: say where it is kept
            kept = item.aside or _save_original(item)
            raise Blocked(
                failed.position,
                SourceError(
                    "write",
                    f"cannot restore {item.change.source.display} after a failed write "
                    f"({error.strerror or error}); its old content is saved in {kept}",
                ),
            ) from error
    for folder in sorted({os.path.dirname(item.path) for item in swapped}):
        fsync_folder(folder)  # the old files are back on disk before the journal goes


def _save_original(item: _Staged) -> str:
    try:
        descriptor, backup = new_temporary(item.path, BACKUP_SUFFIX)
        with open(descriptor, "wb") as handle:
            handle.write(item.change.source.data)
        return backup
    except OSError:
        return "no file (the disk refuses writes)"


# the run's side: groups of file results -----------------------------------------------------------
def hold_back(files: Sequence, group: Sequence[int], blocker: int, why: str) -> None:
    """No file of `group` is fixed; each one that had a fix says which file stopped it and why."""
    reason = why.split(";")[0]
    for index in group:
        result = files[index]
        had_fix = result.change is not None or result.fixed is not None
        result.hold_back()
        if had_fix and index != blocker:
            result.findings.append(
                error_finding(
                    result.display,
                    SourceError(
                        "write",
                        f"not fixed: this fix goes with {files[blocker].display}, which cannot be edited "
                        f"({reason}); no file of the group was changed",
                    ),
                )
            )


def commit_groups(files: Sequence, groups: Sequence[Sequence[int]]) -> None:
    """Write each group's planned changes all or nothing (files: `results.FileResult`s carrying `change`)."""
    for group in groups:
        checkpoint()  # between groups: the ones written are whole, the rest untouched
        members = [i for i in group if files[i].change is not None]
        if not members:
            continue
        try:
            commit([files[i].change for i in members])
        except Blocked as blocked:
            blocker = members[blocked.position]
            files[blocker].findings.append(error_finding(files[blocker].display, blocked.error))
            hold_back(files, group, blocker, str(blocked.error))
            continue
        for i in members:
            files[i].change = None  # written: the new bytes stay in `fixed`


def write_atomic(source: SourceFile, data: bytes) -> None:
    """Replace the file's content by `data`, so that the file is at every moment wholly old or wholly new.

    - A symbolic link stays a link: its target is written.
    - A read-only file is not written (FSU903), even when the folder would allow replacing it.
    - Normally: a temporary file in the same folder gets the data, is flushed to disk (fsync), takes
      the original's permission bits (and owner), and is renamed over the original.
    - A file with several hard links, or one whose owner the new file could not get, is written in
      place instead so that it keeps its identity: see `overwrite`.
    - The file changed on disk since it was read: not written (FSU903). The check runs right before
      the rename, after the slow part.
    - Ctrl-C and termination signals wait until the write is done or undone. On any error the file is
      unchanged and no temporary file is left behind.
    A group of one file of `commit`, which does the work.
    """
    try:
        commit([Change(source, data)])
    except Blocked as blocked:
        raise blocked.error from None
