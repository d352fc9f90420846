"""Which fixes `fix` would not write in this run, and why: so that `check`'s "N fixable" is what `fix` does.

`check` plans every fix but writes none, so it cannot see what stops a group of fixes at write time: the
import net (a file outside the group imports a name the fix removes) or a file of the group that cannot be
written (read-only, changed meanwhile). When `check` finds a safe fix, the same files are run once more as
`fix --diff` runs them (fixes computed, the import net applied, nothing written), and each group is asked
whether its files could be written now; a safe fix that this dry run does not apply is marked `held_back`
with its file's FSU903 message. `fix` marks its own leftovers the same way, from what it wrote. The verdict
is cached (`verdict_key`): a warm `check` of unchanged files does not run the fixes again.
"""

from __future__ import annotations

import hashlib
from typing import Callable, Optional, Sequence

from fsdp_unpatch.model import FileResult, Finding, RunResult
from fsdp_unpatch.rules.registry import role_of

NOT_APPLIED = "`fix` would not apply it in this run"


def _safe(finding: Finding) -> bool:
    return finding.fix is not None and finding.fix.applicability == "safe" and not finding.fixed


def _why(file: FileResult) -> Optional[str]:
    """The first reason a fix of this file was not written (its FSU903 finding), if any."""
    return next((f.message for f in file.findings if role_of(f.code) == "fix-not-written"), None)


def mark_fix_leftovers(result: RunResult) -> None:
    """After `fix` (or `fix --diff`): a safe fix left in a file whose write was refused is held back."""
    for file in result.files:
        why = _why(file)
        for finding in file.findings if why is not None else ():
            if _safe(finding):
                finding.held_back = why


def mark_check(
    result: RunResult,
    dry_fix: Callable[[], RunResult],
    cache=None,
    key_of: Callable[[], Optional[str]] = lambda: None,
) -> None:
    """After `check`: the safe fixes that `dry_fix` (the same files, run as `fix --diff` runs them) does not
    apply are held back. With a `cache`, a verdict stored under `key_of()` (`verdict_key`; None: not cached)
    is used instead of the dry run, and a new one is stored."""
    from fsdp_unpatch.run.cache import Held

    if not any(_safe(f) for f in result.remaining):
        return  # nothing fixable: nothing to compare (a clean tree pays nothing)
    key = key_of() if cache is not None else None
    found = cache.get(key, counted=False) if cache is not None and key is not None else None
    verdict = found if isinstance(found, Held) else _verdict(result, dry_fix())
    if cache is not None and key is not None and not isinstance(found, Held):
        cache.put(key, verdict)
    for finding in result.remaining:
        if _safe(finding):
            finding.held_back = verdict.findings.get(_key(finding))


def _verdict(result: RunResult, dry: RunResult):
    from fsdp_unpatch.run.cache import Held

    applied = {_key(f) for f in dry.findings if f.fixed}
    why = {file.display: _why(file) for file in dry.files}
    return Held(
        {
            _key(finding): why.get(file.display) or NOT_APPLIED
            for file in result.files
            for finding in file.findings
            if _safe(finding) and _key(finding) not in applied
        }
    )


def verdict_key(cache, paths: Sequence[str], roots: Optional[Sequence[str]]) -> Optional[str]:
    """The cache key of the verdict on these files: every input of the dry run besides what the cache's salt
    holds (tool build, configuration, catalog, files outside a partial run): the content, identity and mode of
    the run's files and of every file the import net searches. None without a cache, or without a project
    to search (the dry run then decides each time).

    Each file stands for its content by the sha256 of its bytes; a regular file last changed well before the
    project walk is hashed once, then known by its stat (size, times, inode: `cache.RACY_NS`, the rule the result
    cache trusts; `cache.Digests`), so a warm run reads only what changed and the key does not depend on which."""
    from fsdp_unpatch.files.regular import read_regular, regular_record
    from fsdp_unpatch.project.identity import project_files
    from fsdp_unpatch.run.cache import RACY_NS, Digests

    if cache is None or not cache.usable or roots is None:
        return None
    project = project_files(roots, paths)
    searched = [p for entry in project.files.values() for p in entry.paths]
    known = cache.get(cache.digests_key(), counted=False)
    known = known if isinstance(known, Digests) else Digests()
    digests = Digests(dict(known.files))  # files outside this run keep their digests
    digest = hashlib.sha256((cache.salt + "\0held\0").encode())
    trusted_before = project.since - RACY_NS
    for path in sorted({*paths, *searched}):
        info, link = project.stat_of(path), project.is_link(path)  # the walk's, taken before any read
        record = regular_record(info)
        trusted = record is not None and max(record[1].st_mtime_ns, record[1].st_ctime_ns) < trusted_before
        memo = known.files.get(path)
        if trusted and memo is not None and memo[0] == record[0]:  # type: ignore[index]
            content = memo[1]
        else:
            try:
                content = hashlib.sha256(read_regular(path)).hexdigest()
            except OSError as error:
                content = f"unreadable {error.errno}"  # the import net holds back for such a file: part of the key
                info, link, trusted = None, False, False
        if trusted:
            digests.files[path] = (record[0], content)  # type: ignore[index]
        else:
            digests.files.pop(path, None)
        identity = (info.st_ino, info.st_dev, info.st_mode) if info is not None else ()
        digest.update(("\0".join(map(str, (path, content, *identity, link))) + "\n").encode("utf-8", "surrogateescape"))
    if digests.files != known.files:
        cache.put(cache.digests_key(), digests)
    return digest.hexdigest()


def _key(finding: Finding) -> tuple:
    return (finding.path, finding.code, finding.span.line, finding.span.column)


def refuse_unwritable(dry: RunResult) -> None:
    """In a run that writes nothing (`check`'s dry run, `fix --diff`), hold back each group a write would
    refuse (a read-only file, one changed meanwhile), as `fix` does when it comes to write it; nothing is
    written or staged. (Not for a buffer, standard input or an editor's: it is never written back.)"""
    from fsdp_unpatch.fixes.transaction import hold_back, refusal
    from fsdp_unpatch.rules.registry import error_finding

    for group in dry.transactions:
        for index in group:
            change = dry.files[index].change
            error = refusal(change) if change is not None else None
            if error is not None:
                dry.files[index].findings.append(error_finding(dry.files[index].display, error))
                hold_back(dry.files, group, index, str(error))
                break
