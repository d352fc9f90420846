"""What the codemods share: analyse the module, keep the edits of some rules, apply them.

Under libcst's runner (`python -m libcst.tool codemod ...`) every file is transformed in a worker process
of its own, but some fixes depend on other files: an installer removed in one module has calls and
imports in others, and a replacement function another file imports must stay. Before any worker starts,
the runner asks each metadata provider with a `gen_cache` for data about all the files of the run, in
the parent process, while the files are still unmodified. `ProjectFixes` uses that moment to run
fsdp-unpatch's own engine over exactly those files, so the codemods give the same result as
`fsdp-unpatch fix PATHS`. Without that data (a codemod run on a single module, from standard input, in
`CodemodTest`) a codemod analyses its module alone; `RemoveInstallerCalls --installer` then names the
installers removed elsewhere.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import ClassVar, Collection, FrozenSet, Mapping, Optional

import libcst as cst
from libcst.codemod import VisitorBasedCodemodCommand
from libcst.metadata import BatchableMetadataProvider

from fsdp_unpatch.analysis.plan import FileAnalysis, Options, analyze_module
from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.versions import target_torch
from fsdp_unpatch.fixes.edits import apply_edits
from fsdp_unpatch.rules.registry import rule


def codemod_classes() -> list[type[UnpatchCodemod]]:
    """Every concrete codemod imported so far (the runner has imported the one it runs)."""
    found: list[type[UnpatchCodemod]] = []
    stack = list(UnpatchCodemod.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls.CODES:
            found.append(cls)
    return found


def _among(code: str, path: str, codes: FrozenSet[str]) -> bool:
    """The run's selection for one codemod: its own codes, in every file."""
    return code in codes


class ProjectFixes(BatchableMetadataProvider[Optional[dict]]):
    """Per file of the run: its bytes before the run and, per codemod, the engine's fixed bytes."""

    @classmethod
    def gen_cache(
        cls, root_path: Path, paths: Collection[str], timeout: Optional[int] = None, **kwargs
    ) -> Mapping[str, object]:
        from fsdp_unpatch.config.discovery import discover
        from fsdp_unpatch.config.project import Project
        from fsdp_unpatch.model import RunOptions
        from fsdp_unpatch.run.batch import run

        catalog = load_catalog()
        version, _ = target_torch(None, catalog.newest_torch)
        cache: dict[str, dict] = {path: {"original": None, "fixed": {}} for path in paths}
        # The import net searches the whole project, as `fsdp-unpatch fix PATHS` does (README, Safety).
        partial_root = Project.of(sorted(paths)).partial_root(sorted(paths)) if paths else None
        for codemod in codemod_classes():
            codes = codemod.CODES
            options = RunOptions(
                analysis=Options(target_torch=version),
                fix=True,
                unsafe_fixes=codemod.applies_unsafe_fixes(),
                write=False,
                selected=functools.partial(_among, codes=codes),
                project_root=partial_root,
                covered=tuple(sorted(paths)),
            )
            result = run(discover(sorted(paths)), catalog, options)
            for file in result.files:
                entry = cache.get(file.display)
                if entry is not None and file.original is not None:
                    entry["original"] = file.original
                    entry["fixed"][codemod.__name__] = file.fixed if file.fixed is not None else file.original
        return cache

    def visit_Module(self, node: cst.Module) -> bool:
        self.set_metadata(node, self.cache)
        return False


class UnpatchCodemod(VisitorBasedCodemodCommand):
    """Base class: subclasses name the rule codes whose fixes they apply, read from the rule registry.

    A codemod applies every fix of its codes, as `fsdp-unpatch fix --select CODES` does, and with
    `--unsafe-fixes` when one of its codes has an unsafe fix: choosing that codemod is the opt-in."""

    CODES: ClassVar[FrozenSet[str]] = frozenset()
    METADATA_DEPENDENCIES = (ProjectFixes,)

    @classmethod
    def applies_unsafe_fixes(cls) -> bool:
        return any(rule(code).fix == "unsafe" for code in cls.CODES)

    def analyze(self, tree: cst.Module) -> FileAnalysis:
        catalog = load_catalog()
        version, _ = target_torch(None, catalog.newest_torch)
        name = self.context.full_module_name or (self.context.filename or "module").rsplit("/", 1)[-1][:-3]
        is_package = bool(self.context.filename and self.context.filename.endswith("__init__.py"))
        return analyze_module(tree, name, is_package, catalog, Options(target_torch=version))

    def project_result(self, tree: cst.Module) -> Optional[cst.Module]:
        """The engine's result for this file, computed over all the files of the run, if there is one."""
        cached = self.get_metadata(ProjectFixes, tree, None)
        if not cached or cached.get("original") != tree.bytes:
            return None  # not run by libcst's runner, or the file changed since: analyse it alone
        fixed = cached["fixed"].get(type(self).__name__)
        return None if fixed is None else cst.parse_module(fixed)

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        project = self.project_result(tree)
        if project is not None:
            return project
        analysis = self.analyze(tree)
        chosen = [
            p
            for p in analysis.planned
            if p.code in self.CODES
            and rule(p.code).fix != "none"
            and p.edits
            and all(r.code in self.CODES for r in p.requires)
        ]
        if not chosen:
            return tree
        fixed = apply_edits(analysis, [edit for planned in chosen for edit in planned.edits])
        return fixed if self.breaks_nothing(tree, fixed) else tree

    def removed_elsewhere(self) -> frozenset[str]:
        """Names this module may stop binding because they are removed in another module anyway."""
        return frozenset()

    def breaks_nothing(self, tree: cst.Module, fixed: cst.Module) -> bool:
        """A module transformed alone passes the import net over the project above it; with no project to
        search (no file name, no `pyproject.toml` or `.git` above it), only a fix that unbinds nothing does."""
        from fsdp_unpatch.project.identity import find_root
        from fsdp_unpatch.run.import_net import Rewrite, breakages

        filename = self.context.filename
        root = find_root(filename) if filename else None
        rewrite = Rewrite(0, filename or "module.py", tree.bytes, fixed.bytes)
        return not breakages([rewrite], None if root is None else [root], exempt=self.removed_elsewhere())
