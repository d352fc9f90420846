"""The facts of a file's `torch.library` calls are read from the `ast` model (`analysis/registrations.py`), not from
libcst (issue 32 item 4: libcst only writes): each call stands where libcst places it and is quoted as libcst's
`code_for_node` gives it, in every spelling that moves a column, a line or the quoted text (parentheses around
the call, a call over several lines in a nested block, CRLF, characters outside ASCII before it, a decorator,
`Library("fsdp", "DEF")` then `lib.define(...)`), and FSU103 and FSU203 report there. libcst is the oracle."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from fsdp_unpatch.analysis.plan import Options, analyze_module
from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.discovery import discover
from fsdp_unpatch.model import RunOptions
from fsdp_unpatch.rules.vendored_fsdp2 import _copied_classes
from fsdp_unpatch.run.batch import run
from fsdp_unpatch.semantic.text import short

HEAD = 'import torch\n\nlib = torch.library.Library("fsdp", "IMPL")\n\n\ndef _kernel(*args):\n    pass\n\n\n'
NESTED = (
    "def setup():\n"
    "    if True:\n"
    "        lib.impl(\n"
    '            "chunk_cat",\n'
    "                _kernel,  # the kernel\n"
    '            "PrivateUse1",\n'
    "        )\n"
    "        torch.library.register_kernel(\n"
    '            "fsdp::split_with_sizes_copy", ["CUDA",\n'
    '      "PrivateUse1"], _kernel)\n'
)
SPELLINGS = {
    "parentheses": HEAD
    + '( torch.library.register_kernel("fsdp::chunk_cat", "CUDA", _kernel) )\n'
    + 'kernel = ((\n    torch.library.impl(lib, "all_gather_copy_in", "PrivateUse1")\n))(_kernel)\n',
    "parentheses after a line that ends in a bracket": HEAD
    + 'print(1)\n( torch.library.register_kernel("fsdp::chunk_cat", "CUDA", _kernel) )\n'
    + 'x = [1]\nif x:\n    (lib.impl("all_gather_copy_in", _kernel, "PrivateUse1"))\n',
    "over lines in a block": HEAD + NESTED,
    "crlf": (HEAD + NESTED).replace("\n", "\r\n"),
    "not ascii before it": HEAD
    + 'label = "h\u00e9llo \u4e16\u754c"; torch.library.impl("fsdp::chunk_cat", "CUDA", _kernel)\n'
    + '\u00e9t\u00e9 = 1; lib.impl("all_gather_copy_in", _kernel, "PrivateUse1")\n',
    "decorator": HEAD
    + '@torch.library.impl(lib, "chunk_cat", "PrivateUse1")\ndef _npu_chunk_cat(*args):\n    pass\n\n\n'
    + "class Holder:\n    @staticmethod\n    @torch.library.impl(\n"
    + '        lib, "all_gather_copy_in",\n        "PrivateUse1",\n    )\n    def _npu_copy_in(*args):\n        pass\n',
    "define": "from torch.library import Library\n\n"
    'lib = Library("fsdp","DEF")\n'
    'x = 1; lib.define(\n    "chunk_cat(Tensor[] tensors) -> ()"\n)\n'
    'torch.library.define("fsdp::split_with_sizes_copy(Tensor t) -> ()", lib=lib)\n'
    'lib.impl("chunk_cat", print, "CUDA")\n',
}
KERNELS = {  # the kernels of each spelling, in order
    "parentheses": ["_kernel", None],
    "parentheses after a line that ends in a bracket": ["_kernel", "_kernel"],
    "over lines in a block": ["_kernel", "_kernel"],
    "crlf": ["_kernel", "_kernel"],
    "not ascii before it": ["_kernel", "_kernel"],
    "decorator": ["_npu_chunk_cat", "_npu_copy_in"],
    "define": ["print"],
}
LIBRARY_CALLEES = {"impl", "register_kernel", "define"}


def _analysis(text: str):
    data = text.encode()
    options = Options(target_torch=Version.parse("2.13"))
    return analyze_module(cst.parse_module(data), "otherfw.kernels", False, load_catalog(), options, data=data)


def _libcst_calls(module: cst.Module) -> list[tuple[tuple[int, int, int, int], str, cst.Call]]:
    """Every call of a `torch.library` callee but the `Library(...)` ones: where libcst places it, its code."""
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    found = []
    for node, where in positions.items():
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value in LIBRARY_CALLEES:
                span = (where.start.line, where.start.column, where.end.line, where.end.column)
                found.append((span, module.code_for_node(node), node))
    return sorted(found, key=lambda f: f[0])


def _facts(analysis) -> list[tuple[tuple[int, int, int, int], str]]:
    library = analysis.library
    calls = [*library.defined_ops.values(), *(r.call for r in library.kernel_registrations)]
    return sorted(((c.at.line, c.at.column, c.at.end_line, c.at.end_column), c.code) for c in calls)


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_library_calls_stand_and_read_as_libcst_places_and_writes_them(name: str) -> None:
    analysis = _analysis(SPELLINGS[name])
    expected = [(span, code) for span, code, _ in _libcst_calls(analysis.module)]
    assert len(expected) >= 2
    assert _facts(analysis) == expected
    assert [r.kernel for r in analysis.library.kernel_registrations] == KERNELS[name]


def test_a_function_a_decorator_registers_is_known_so() -> None:
    analysis = _analysis(SPELLINGS["decorator"])
    functions = {name: defs[0][0] for name, defs in analysis.facts.functions.items()}
    assert analysis.registered_by_decorator(functions["_npu_chunk_cat"])
    assert analysis.registered_by_decorator(functions["_npu_copy_in"])
    assert not analysis.registered_by_decorator(functions["_kernel"])


def test_without_a_model_a_function_under_a_call_decorator_stays() -> None:
    """Syntax the running Python does not parse (libcst does): no `ast` model, no `torch.library` facts; a
    function under a call decorator may be a registered kernel, so the planner keeps it."""
    analysis = _analysis(SPELLINGS["decorator"] + "type Alias = int\n")
    assert analysis.model is None and analysis.library.kernel_registrations == []
    functions = {name: defs[0][0] for name, defs in analysis.facts.functions.items()}
    assert analysis.registered_by_decorator(functions["_npu_chunk_cat"])
    assert not analysis.registered_by_decorator(functions["_kernel"])


def _findings(text: str, tmp_path: Path, code: str) -> list[tuple[int, int, int, int, str]]:
    path = tmp_path / "otherfw" / "kernels.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode())
    result = run(
        discover([str(path)]), load_catalog(), RunOptions(analysis=Options(target_torch=Version.parse("2.13")))
    )
    return [
        (f.span.line, f.span.column, f.span.end_line, f.span.end_column, f.message)
        for f in result.findings
        if f.code == code
    ]


@pytest.mark.parametrize("name", sorted(set(SPELLINGS) - {"define"}))
def test_kernel_registrations_are_reported_where_libcst_places_them(name: str, tmp_path: Path) -> None:
    calls = _libcst_calls(cst.parse_module(SPELLINGS[name].encode()))
    found = _findings(SPELLINGS[name], tmp_path, "FSU103")
    assert [f[:4] for f in found] == [
        (line, column + 1, end, end_column + 1) for (line, column, end, end_column), _, _ in calls
    ]
    assert all(message.startswith(f"`{short(code)}` registers") for (*_, message), (_, code, _) in zip(found, calls))


CLASS_COPY = (
    "import functools\n\n\n@functools.total_ordering\nclass \t FSDPParamGroup:\n"
    "    def __init__(self):\n        pass\n\n    def finalize_backward(self):\n        pass\n"
)
# A line continuation after `class`: the ast tier's screen does not see this class header (a file it clears gets no
# libcst analysis, before and after the move), so the rule's own reading is checked on it.
CLASS_OVER_LINES = CLASS_COPY.replace("class \t FSDPParamGroup", "class \\\n  FSDPParamGroup")


def _libcst_class_names(text: str) -> list[tuple[int, int, int, int]]:
    module = cst.parse_module(text.encode())
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    spans = [positions[s.name] for s in module.body if isinstance(s, cst.ClassDef)]
    return [(w.start.line, w.start.column, w.end.line, w.end.column) for w in spans]


def test_a_vendored_copy_is_reported_at_its_first_definition_as_libcst_places_it(tmp_path: Path) -> None:
    (first, _, _), *_ = _libcst_calls(cst.parse_module(SPELLINGS["define"].encode()))
    found = _findings(SPELLINGS["define"], tmp_path, "FSU203")
    assert [f[:4] for f in found] == [(first[0], first[1] + 1, first[2], first[3] + 1)]
    assert "ops `fsdp::chunk_cat`, `fsdp::split_with_sizes_copy" in found[0][4]
    assert _findings(SPELLINGS["define"], tmp_path, "FSU103") == []  # a kernel of its own op
    classes = _findings(CLASS_COPY, tmp_path, "FSU203")
    expected = [
        (line, column + 1, end, end_column + 1) for line, column, end, end_column in _libcst_class_names(CLASS_COPY)
    ]
    assert [f[:4] for f in classes] == expected and "`FSDPParamGroup`" in classes[0][4]


@pytest.mark.parametrize("text", [CLASS_COPY, CLASS_OVER_LINES, CLASS_OVER_LINES.replace("\n", "\r\n")])
def test_a_copied_class_is_named_where_libcst_places_its_name(text: str) -> None:
    copied = _copied_classes(_analysis(text), load_catalog())
    assert [(at.line, at.column, at.end_line, at.end_column) for _, at, _ in copied] == _libcst_class_names(text)
