"""The proof of equivalence cannot be fooled: mutants of a real release's patch copies are never `remove`.

torch-npu 2.10.0.post7's patch module (fetched at test time, `packages.py`) holds three copies that `check`
proves equal to upstream FSDP2 (plus the NPU tweak) and removes. Each mutant below is one small edit of that
module, or of the bindings around the copies, that changes what a copy does: what a name it calls stands for
(a second import under a condition, a star import, a builtin rebound, a loop or `with` target, a `global`
in another function, `del`, ...), an annotation or decorator that runs code, another device's stream, or a
plain edit of the body (an argument swapped, a `wait()` dropped, a constant or a comparison changed). Run in a
project that declares `torch>=2.8`, none may be reported `remove` for the copy it mutates. The controls change
only how the module is written (comments, blank lines, a docstring, a local renamed, the other NPU spelling of
the stream, an unrelated binding): the three copies must still be removed.

The mutants run in this process through the API (`check_source`, the module as the project's file).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from fsdp_unpatch.api import _buffer_request, check_source
from fsdp_unpatch.run.batch import run
from fsdp_unpatch.run.session import prepare
from tests.realworld.packages import PATCH_MODULE
from tests.realworld.test_releases import _fetch

pytestmark = pytest.mark.slow

RELEASE = "2.10.0.post7"
FINALIZE = "_patched_finalize_backward"
INPUTS = "_patched_get_param_all_gather_inputs"
COPY_IN = "_patched_all_gather_copy_in"
COPIES = (FINALIZE, INPUTS, COPY_IN)
IMPORT_DIST = "from torch import distributed as dist\n"
IMPORT_TYPING = "from typing import cast, Optional, Sequence, Union\n"
AFTER_IMPORTS = "import torch_npu\n"  # the last import of the module

# Modules of the project the mutants bind names to: each stands in for what upstream's name is.
PROJECT_MODULES = {
    "pkg/__init__.py": "",
    "pkg/fake_dist.py": "class Work:\n    pass\n\n\nclass Adder:\n    def __radd__(self, other):\n        return self\n",
    "pkg/fake_typing.py": "def cast(kind, value):\n    return None\n",
    "pkg/helpers.py": "cast = None\nisinstance = None\n",
    "pkg/fake_library.py": "def impl(*args, **kwargs):\n    return lambda f: f\n",
}


def replace(old: str, new: str, count: int = 1) -> Callable[[str], str]:
    def edit(text: str) -> str:
        assert text.count(old) >= count, f"the release no longer holds {old!r}"
        return text.replace(old, new, count)

    return edit


def after_imports(lines: str) -> Callable[[str], str]:
    return replace(AFTER_IMPORTS, AFTER_IMPORTS + lines)


def at_end(lines: str) -> Callable[[str], str]:
    return lambda text: text + "\n" + lines


def in_copy(name: str, old: str, new: str) -> Callable[[str], str]:
    """`old` replaced by `new` inside the function `name` only."""

    def edit(text: str) -> str:
        start = text.index(f"\ndef {name}(")
        end = text.find("\ndef ", start + 1)
        body = text[start:end]
        assert old in body, f"{name} no longer holds {old!r}"
        return text[:start] + body.replace(old, new, 1) + text[end:]

    return edit


def both(*edits: Callable[[str], str]) -> Callable[[str], str]:
    def edit(text: str) -> str:
        for one in edits:
            text = one(text)
        return text

    return edit


FAKE_DIST = "import pkg.fake_dist as dist\n"
SELECT = ("FSU001", "FSU002")

# (name, the copies it changes, the edit)
MUTANTS: list[tuple[str, tuple[str, ...], Callable[[str], str]]] = [
    # annotations and decorators that run code
    ("nested-return-annotation", (INPUTS,), in_copy(INPUTS, ") -> bool:", ') -> print("ran") or bool:')),
    (
        "nested-parameter-annotation",
        (INPUTS,),
        in_copy(INPUTS, "(fsdp_param: FSDPParam)", "(fsdp_param: _fsdp_mem_cache.clear())"),
    ),
    (
        "top-parameter-annotation",
        (INPUTS,),
        in_copy(INPUTS, "fsdp_params: list[FSDPParam],", "fsdp_params: _fsdp_mem_cache.clear() or list,"),
    ),
    (
        "top-return-annotation",
        (COPY_IN,),
        in_copy(COPY_IN, ") -> tuple[torch.Tensor, torch.Tensor]:", ") -> print(1) or tuple:"),
    ),
    (
        "top-annotation-sets-an-attribute",
        (COPY_IN,),
        in_copy(COPY_IN, "rank: int,", 'rank: setattr(torch, "_x", 1) or int,'),
    ),
    ("nested-annotation-pops-a-local", (INPUTS,), in_copy(INPUTS, ") -> bool:", ") -> fsdp_params.pop():")),
    (
        "library-impl-of-the-project",
        (COPY_IN,),
        both(
            after_imports("from pkg.fake_library import impl\nfrom pkg import fake_library as library\nlib = None\n"),
            replace(f"def {COPY_IN}(", f'@library.impl(lib, "all_gather_copy_in", "PrivateUse1")\ndef {COPY_IN}('),
        ),
    ),
    (
        "library-impl-assigned",
        (COPY_IN,),
        both(
            after_imports("import pkg.fake_library\nlibrary = pkg.fake_library\nlib = None\n"),
            replace(f"def {COPY_IN}(", f'@library.impl(lib, "all_gather_copy_in", "PrivateUse1")\ndef {COPY_IN}('),
        ),
    ),
    (
        "library-impl-handed-a-call",
        (COPY_IN,),
        replace(
            f"def {COPY_IN}(",
            f'@torch.library.impl(_fsdp_mem_cache.clear(), "all_gather_copy_in", "PrivateUse1")\ndef {COPY_IN}(',
        ),
    ),
    ("extra-decorator", (FINALIZE,), replace(f"def {FINALIZE}(", f"@torch.no_grad()\ndef {FINALIZE}(")),
    # bindings of `dist` the copy reads
    (
        "try-import-dist",
        (FINALIZE,),
        replace(IMPORT_DIST, f"try:\n    {FAKE_DIST}except ImportError:\n    {IMPORT_DIST}"),
    ),
    (
        "if-else-import-dist",
        (FINALIZE,),
        replace(IMPORT_DIST, f"import os\nif os.environ.get('HOME'):\n    {FAKE_DIST}else:\n    {IMPORT_DIST}"),
    ),
    ("if-import-dist-after", (FINALIZE,), after_imports(f"import os\nif os.environ.get('HOME'):\n    {FAKE_DIST}")),
    (
        "with-import-dist",
        (FINALIZE,),
        after_imports(f"import contextlib\nwith contextlib.suppress(ImportError):\n    {FAKE_DIST}"),
    ),
    ("global-import-dist", (FINALIZE,), after_imports(f"def _setup():\n    global dist\n    {FAKE_DIST}\n_setup()\n")),
    ("global-assign-dist", (FINALIZE,), at_end("def _later():\n    global dist\n    dist = None\n")),
    (
        "local-import-elsewhere",
        (FINALIZE,),
        both(
            replace(IMPORT_DIST, FAKE_DIST),
            replace(
                "def move_attr(src_obj, src_attr, dst_obj, dst_attr):\n",
                f"def move_attr(src_obj, src_attr, dst_obj, dst_attr):\n    {IMPORT_DIST}",
            ),
        ),
    ),
    ("star-import-after", (FINALIZE, INPUTS, COPY_IN), after_imports("from pkg.helpers import *\n")),
    ("star-import-typing", (INPUTS,), replace(IMPORT_TYPING, IMPORT_TYPING + "from pkg.fake_typing import *\n")),
    ("for-dist", (FINALIZE,), after_imports("for dist in [None]:\n    pass\n")),
    ("for-in-if-dist", (FINALIZE,), after_imports("if True:\n    for dist in [None]:\n        pass\n")),
    ("while-dist", (FINALIZE,), after_imports("while True:\n    dist = None\n    break\n")),
    ("with-as-dist", (FINALIZE,), after_imports("import os\nwith open(os.devnull) as dist:\n    pass\n")),
    (
        "except-as-dist",
        (FINALIZE,),
        after_imports("try:\n    raise ValueError\nexcept ValueError as dist:\n    pass\n"),
    ),
    ("class-dist", (FINALIZE,), after_imports("class dist:\n    pass\n")),
    ("def-dist", (FINALIZE,), at_end("def dist():\n    pass\n")),
    ("assign-dist", (FINALIZE,), at_end("dist = None\n")),
    ("augmented-dist", (FINALIZE,), after_imports("dist += __import__('pkg.fake_dist').fake_dist.Adder()\n")),
    ("annotated-dist", (FINALIZE,), after_imports("dist: object = None\n")),
    ("walrus-dist", (FINALIZE,), after_imports("if (dist := None) is None:\n    pass\n")),
    ("walrus-in-comprehension", (FINALIZE,), after_imports("_ = [(dist := x) for x in [None]]\n")),
    ("del-dist", (FINALIZE,), at_end("del dist\n")),
    ("globals-dist", (FINALIZE,), at_end("globals()['dist'] = None\n")),
    ("globals-update", (FINALIZE, INPUTS, COPY_IN), at_end("globals().update(dist=None)\n")),
    ("match-dist", (FINALIZE,), after_imports("match None:\n    case dist:\n        pass\n")),
    (
        "try-import-cast",
        (INPUTS,),
        replace(
            IMPORT_TYPING,
            "try:\n    from pkg.fake_typing import cast\nexcept ImportError:\n    pass\n"
            + IMPORT_TYPING.replace("cast, ", ""),
        ),
    ),
    ("cast-rebound", (INPUTS,), at_end("cast = lambda kind, value: None\n")),
    ("torch-rebound", (FINALIZE, INPUTS, COPY_IN), at_end("torch = None\n")),
    ("sharded-state-rebound", (INPUTS,), after_imports("from pkg.fake_dist import Work as ShardedState\n")),
    ("compiled-autograd-rebound", (INPUTS,), at_end("def compiled_autograd_enabled():\n    return True\n")),
    # builtins the copies call, shadowed
    ("isinstance-shadowed", (FINALIZE,), after_imports("isinstance = lambda obj, kind: False\n")),
    ("hasattr-shadowed", (INPUTS,), after_imports("hasattr = lambda obj, name: True\n")),
    (
        "enumerate-shadowed",
        (INPUTS,),
        after_imports("import functools\nenumerate = functools.partial(enumerate, start=1)\n"),
    ),
    (
        "zip-shadowed-in-if",
        (INPUTS,),
        after_imports("import os\nif os.environ.get('HOME'):\n    zip = lambda *a: []\n"),
    ),
    ("sum-from-import", (INPUTS,), after_imports("from pkg.helpers import cast as sum\n")),
    (
        "builtins-attribute",
        (FINALIZE,),
        after_imports("import builtins\nbuiltins.isinstance = lambda obj, kind: False\n"),
    ),
    # the device stream
    ("cuda-stream", (FINALIZE,), in_copy(FINALIZE, "torch.npu.current_stream()", "torch.cuda.current_stream()")),
    ("default-stream", (FINALIZE,), in_copy(FINALIZE, "torch.npu.current_stream()", "torch.npu.default_stream()")),
    # the body
    ("no-work-wait", (FINALIZE,), in_copy(FINALIZE, "work.wait()", "pass")),
    ("event-is-none", (FINALIZE,), in_copy(FINALIZE, "if event is not None:", "if event is None:")),
    ("no-result-reset", (FINALIZE,), in_copy(FINALIZE, "        self._all_gather_result = None\n", "")),
    ("no-indices-clear", (FINALIZE,), in_copy(FINALIZE, "    self._post_forward_indices.clear()\n", "    pass\n")),
    (
        "split-arguments-swapped",
        (COPY_IN,),
        in_copy(
            COPY_IN, "torch.split(all_gather_input, inp_split_sizes)", "torch.split(inp_split_sizes, all_gather_input)"
        ),
    ),
    ("offset-plus", (COPY_IN,), in_copy(COPY_IN, "all_gather_input_numel * rank", "all_gather_input_numel + rank")),
    ("narrow-dimension", (COPY_IN,), in_copy(COPY_IN, "narrow(\n        0,", "narrow(\n        1,")),
    (
        "return-swapped",
        (COPY_IN,),
        in_copy(COPY_IN, "return all_gather_input, all_gather_output", "return all_gather_output, all_gather_input"),
    ),
    ("enable-grad", (COPY_IN,), in_copy(COPY_IN, "with torch.no_grad():", "with torch.enable_grad():")),
    (
        "non-blocking-always",
        (COPY_IN,),
        in_copy(
            COPY_IN,
            "torch._foreach_copy_(foreach_copy_dsts, all_gather_inputs)\n",
            "torch._foreach_copy_(foreach_copy_dsts, all_gather_inputs, non_blocking=True)\n",
        ),
    ),
    ("sharded-state-not-equal", (INPUTS,), in_copy(INPUTS, "== ShardedState.SHARDED", "!= ShardedState.SHARDED")),
    (
        "offload-negation-dropped",
        (INPUTS,),
        in_copy(INPUTS, "and not fsdp_param.offload_to_cpu", "and fsdp_param.offload_to_cpu"),
    ),
    ("attribute-name-changed", (INPUTS,), in_copy(INPUTS, '"fsdp_pre_all_gather"', '"fsdp_post_all_gather"')),
    (
        "inputs-test-negated",
        (INPUTS,),
        in_copy(INPUTS, "    if foreach_copy_inputs:", "    if not foreach_copy_inputs:"),
    ),
]

# Edits that change nothing a copy does: the three copies stay removable.
CONTROLS: list[tuple[str, Callable[[str], str]]] = [
    ("comment", in_copy(FINALIZE, "# If there was a mistargeted", "# (edited) If there was a mistargeted")),
    ("blank-lines", in_copy(INPUTS, "\n    # 2nd pass", "\n\n\n    # 2nd pass")),
    (
        "docstring",
        replace(f"def {FINALIZE}(self):\n", f'def {FINALIZE}(self):\n    """Wait for the last all-gather."""\n'),
    ),
    (
        "renamed-local",
        in_copy(
            FINALIZE,
            "        work = self._all_gather_result.all_gather_work\n"
            "        if isinstance(work, dist.distributed_c10d.Work):\n            work.wait()",
            "        handle = self._all_gather_result.all_gather_work\n"
            "        if isinstance(handle, dist.distributed_c10d.Work):\n            handle.wait()",
        ),
    ),
    ("torch-npu-stream", in_copy(FINALIZE, "torch.npu.current_stream()", "torch_npu.npu.current_stream()")),
    (
        "unrelated-bindings",
        after_imports("import os\nif os.environ.get('HOME'):\n    _flag = 1\nfor _i in range(2):\n    pass\n"),
    ),
    ("future-annotations", lambda text: "from __future__ import annotations\n" + text),
    ("fallback-of-another-name", after_imports("try:\n    import numpy as _np\nexcept ImportError:\n    _np = None\n")),
]


@pytest.fixture(scope="module")
def release_patch() -> str:
    return (_fetch(RELEASE) / PATCH_MODULE).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project declaring `torch>=2.8`, with the modules the mutants bind names to."""
    root = tmp_path_factory.mktemp("mutants")
    (root / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\ndependencies = ["torch>=2.8"]\n')
    for name, content in PROJECT_MODULES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(content, encoding="utf-8")
    return root


def removed(text: str, project: Path) -> set[str]:
    """The copies `check` reports `remove` for when the project's patch module `pkg/patch.py` is `text` (as
    `check --stdin-filename pkg/patch.py -` does: the project's configuration applies). The findings are
    `check_source`'s, without the dry fix that only says which fixes `fix` would hold back (half the time)."""
    data, request = _buffer_request(text, str(project / "pkg" / "patch.py"), SELECT, None, None, None, False, False)
    plan = prepare(request, data)
    result = run(plan.candidates, plan.catalog, plan.options, jobs=1)
    findings = [f for file in result.files for f in file.findings]
    return {copy for f in findings if f.category == "remove" for copy in COPIES if f"`{copy}`" in f.message}


def test_the_shortcut_reports_what_check_source_reports(release_patch: str, project: Path) -> None:
    path = str(project / "pkg" / "patch.py")
    findings = check_source(release_patch, path, select=SELECT)
    assert {c for f in findings if f.category == "remove" for c in COPIES if f"`{c}`" in f.message} == set(COPIES)
    assert removed(release_patch, project) == set(COPIES)


def test_there_are_at_least_fifty_mutants() -> None:
    assert len(MUTANTS) >= 50 and len({name for name, _, _ in MUTANTS}) == len(MUTANTS)


def test_no_behaviour_changing_mutant_is_removed(release_patch: str, project: Path) -> None:
    fooled = {}
    for name, changed, edit in MUTANTS:
        proven = removed(edit(release_patch), project) & set(changed)
        if proven:
            fooled[name] = sorted(proven)
    assert fooled == {}, f"{len(fooled)} of {len(MUTANTS)} mutants proven equal to upstream"


@pytest.mark.parametrize("name, edit", CONTROLS, ids=[name for name, _ in CONTROLS])
def test_a_harmless_edit_still_removes_the_copies(name: str, edit, release_patch: str, project: Path) -> None:
    assert removed(edit(release_patch), project) == set(COPIES)
