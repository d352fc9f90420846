"""Which FSDP2 module or class a name stands for, as several rules ask it (FSU106 and FSU202 of a
`sys.modules` entry, FSU107 and FSU203 of a class): below the rules, so that no rule imports another."""

from __future__ import annotations

from typing import Iterator, Optional

from fsdp_unpatch.analysis.module_entries import ModuleEntry, module_entries
from fsdp_unpatch.analysis.subjects import ModuleSubject
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.catalog.symbols import load_symbols
from fsdp_unpatch.semantic.names import is_fsdp2_private, target_id


def fsdp2_module(key: Optional[str], catalog: Catalog) -> Optional[str]:
    """The target id of an FSDP2 module named by a `sys.modules` key (a root package is its own id)."""
    if key is None:
        return None
    if key in catalog.fsdp2_roots or key in catalog.family_modules.values():
        return key
    target = target_id(key, catalog)
    return target if target is not None and is_fsdp2_private(target, catalog) else None


def in_test_module(module_name: str) -> bool:
    """A pytest test module or conftest, by its module name (the analysis knows no path)."""
    last = module_name.rsplit(".", 1)[-1]
    return last.startswith("test_") or last.endswith("_test") or last == "conftest"


def fsdp2_module_entries(analysis: ModuleSubject, catalog: Catalog) -> Iterator[tuple[ModuleEntry, str]]:
    """`sys.modules["<FSDP2 module>"] = value` in the file: (the entry, the module's target id), read from the
    file's `ast` model (`module_entries.py`)."""
    model = analysis.model
    if model is None:
        return  # syntax newer than the running Python parses: no entries known (nothing of them is fixed)
    for entry in module_entries(model, analysis.text()):
        if model.table.qualify_dotted(entry.owner) != "sys.modules":
            continue
        module = fsdp2_module(entry.key, catalog)
        if module is not None:
            yield entry, module


def fsdp2_class(qualified: Optional[str], catalog: Catalog) -> Optional[str]:
    """The id of the FSDP2 class a qualified name stands for ("_fsdp_param.FSDPParam"), under any
    module that imported it by name."""
    target = target_id(qualified, catalog) if qualified else None
    if target is None or not is_fsdp2_private(target, catalog) or target.count(".") != 1:
        return None
    name = target.split(".")[1]
    if name in catalog.classes:
        target = f"{catalog.classes[name]}.{name}"
    return target if load_symbols().class_member(target, "__init__") is not None else None
