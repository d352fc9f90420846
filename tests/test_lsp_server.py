"""`fsdp-unpatch server`: a language server that an LSP client (`tests/lsp_client.py`, JSON-RPC over the
server's standard input and output) drives as an editor does."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

from fsdp_unpatch.api import check_source
from fsdp_unpatch.integrations.lsp_features import analyse, code_actions
from fsdp_unpatch.integrations.lsp_text import decoded, encoded, end_of, position, split_lines
from tests.integration import cli
from tests.lsp_client import Client, apply_edits
from tests.upstream import expand

# A training stack's overrides: one upstream copy with the NPU tweak (removed with its install site), one
# override that differs from upstream (review), and the enhance patch (kept byte for byte).
OVERRIDES = '''\
"""Collective overrides of a training stack."""
import torch
from torch.distributed.fsdp._fully_shard import _fsdp_collectives as collectives
from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam, ShardedState
from typing import cast

# @upstream _fsdp_collectives._get_param_all_gather_inputs _npu_inputs same-device


def _pooled_allocate(self, size, *, dtype, device):
    return self.pool.take(size, dtype, device)


def install():
    collectives._get_param_all_gather_inputs = _npu_inputs
    collectives.DefaultAllGather.allocate = _pooled_allocate


def _apply_fsdp_enhance_patch():
    collectives.DefaultReduceScatter.allocate = _pooled_allocate
'''

WARNING, HINT, ERROR = 2, 4, 1
FIX_ALL = "source.fixAll.fsdp-unpatch"


@pytest.fixture
def stack(tmp_path: Path) -> Path:
    root = tmp_path / "training stack"  # a space: the URIs quote it (%20)
    (root / "stack").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "stack"\ndependencies = ["torch>=2.10"]\n')
    (root / "stack" / "overrides.py").write_text(expand(OVERRIDES))
    return root


@pytest.fixture
def client(stack: Path):
    started = Client(stack)
    yield started
    started.kill()


def _initialize(client: Client, root: Path, disabled_support: bool = False, encodings: Optional[list] = None) -> dict:
    capabilities: dict = {"textDocument": {"codeAction": {"disabledSupport": disabled_support}}}
    if encodings is not None:
        capabilities["general"] = {"positionEncodings": encodings}
    result = client.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": capabilities})
    client.notify("initialized", {})
    return result["capabilities"]


def _open(client: Client, uri: str, text: str) -> dict:
    client.notify(
        "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}
    )
    return client.notification("textDocument/publishDiagnostics", lambda p: p["uri"] == uri)


def _change(client: Client, uri: str, version: int, text: str) -> dict:
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
    )
    return client.notification(
        "textDocument/publishDiagnostics", lambda p: p["uri"] == uri and p.get("version") == version
    )


def _actions(client: Client, uri: str, where: dict, only=None) -> list[dict]:
    context: dict = {"diagnostics": []}
    if only is not None:
        context["only"] = only
    return client.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": where, "context": context})


def _codes(published: dict) -> list[str]:
    return [d["code"] for d in published["diagnostics"]]


def test_an_editor_session(stack: Path, client: Client, tmp_path: Path) -> None:
    path = stack / "stack" / "overrides.py"
    uri, text = path.as_uri(), path.read_text()

    capabilities = _initialize(client, stack)
    assert capabilities["codeActionProvider"]["codeActionKinds"] == ["quickfix", FIX_ALL]
    assert capabilities["hoverProvider"] is True
    assert capabilities["textDocumentSync"]["openClose"] and capabilities["textDocumentSync"]["save"]

    # didOpen: the findings of `check --stdin-filename`, at the same places (LSP counts from 0)
    published = _open(client, uri, text)
    expected = [f.to_dict() for f in check_source(text, str(path), in_project=True)]
    assert _codes(published) == [f["code"] for f in expected] == ["FSU002", "FSU001", "FSU101", "FSU201"]
    # the message is `check`'s, with what the fix cannot do (here: the review finding has none), as `check` says
    notes = ["", "", " (no automatic fix)", ""]
    for diagnostic, finding, note in zip(published["diagnostics"], expected, notes):
        assert diagnostic["message"] == finding["message"] + note
        assert diagnostic["range"]["start"] == {"line": finding["line"] - 1, "character": finding["column"] - 1}
        assert diagnostic["range"]["end"] == {"line": finding["end_line"] - 1, "character": finding["end_column"] - 1}
        assert diagnostic["source"] == "fsdp-unpatch"
        assert diagnostic["codeDescription"]["href"].endswith("/docs/rules.md#" + finding["code"].lower())
    assert [d["severity"] for d in published["diagnostics"]] == [WARNING, WARNING, WARNING, HINT]

    # the fix-all action is `fix`: applied to the buffer it gives what `fix` writes in a copy of the project
    everything = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}
    (fix_all,) = _actions(client, uri, everything, only=["source.fixAll"])
    assert fix_all["kind"] == FIX_ALL
    copy = shutil.copytree(stack, tmp_path / "copy")
    assert cli("fix", "--no-cache", "stack/overrides.py", cwd=copy).returncode == 1  # the review finding is left
    assert apply_edits(text, fix_all["edit"]["changes"][uri]).encode() == (copy / "stack" / "overrides.py").read_bytes()

    # a quick fix for the install site: its edits, with the fixes it carries, leave a module that parses
    install = published["diagnostics"][1]
    actions = _actions(client, uri, install["range"])
    quick = [a for a in actions if a["kind"] == "quickfix"]
    assert [a["diagnostics"][0]["code"] for a in quick] == ["FSU001"]
    assert [a["kind"] for a in actions if a["kind"] != "quickfix"] == [FIX_ALL]
    fixed_once = apply_edits(text, quick[0]["edit"]["changes"][uri])
    ast.parse(fixed_once)
    assert "FSU001" not in [f.code for f in check_source(fixed_once, str(path))]
    assert (
        "def _apply_fsdp_enhance_patch():\n    collectives.DefaultReduceScatter.allocate = _pooled_allocate\n"
        in fixed_once
    )
    assert _actions(client, uri, everything, only=["quickfix"]) == []  # nothing fixable on the first line

    # hover: the rule's explanation on a finding, nothing elsewhere
    shown = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": install["range"]["start"]})
    assert shown["contents"]["kind"] == "markdown"
    assert shown["contents"]["value"].startswith("**FSU001** (collective-override)")
    assert "## What it does" in shown["contents"]["value"]
    assert shown["range"] == install["range"]
    assert client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": everything["start"]}) is None

    # didChange: analysed again; columns are UTF-16 code units (the clef is two, one code point)
    review = published["diagnostics"][2]
    line = review["range"]["start"]["line"]
    lines = text.splitlines(keepends=True)
    lines[line] = lines[line].replace("    collectives.", '    clef = "\U0001d11e"; collectives.', 1)
    changed = _change(client, uri, 2, "".join(lines))
    assert _codes(changed) == _codes(published)
    moved = changed["diagnostics"][2]["range"]["start"]
    assert moved == {"line": line, "character": review["range"]["start"]["character"] + len('clef = "xx"; ')}

    # a burst of changes is analysed once, at its last version
    burst = [(f"# keystroke {n}\n" + text, 3 + n) for n in range(3)]
    client.notify_at_once(
        [
            ("textDocument/didChange", {"textDocument": {"uri": uri, "version": v}, "contentChanges": [{"text": t}]})
            for t, v in burst
        ]
    )
    last = client.notification("textDocument/publishDiagnostics", lambda p: p["uri"] == uri)
    first = published["diagnostics"][0]["range"]["start"]["line"]
    assert last["version"] == 5 and last["diagnostics"][0]["range"]["start"]["line"] == first + 1

    # a buffer that does not parse: one diagnostic that says so, and no action
    broken = text.replace("def install():", "def install(:", 1)
    (error,) = _change(client, uri, 6, broken)["diagnostics"]
    assert (error["code"], error["severity"]) == ("FSU901", ERROR)
    assert "syntax" in error["message"]
    assert _actions(client, uri, error["range"]) == []

    # didSave analyses again, with the configuration as it is now; didClose clears the buffer's diagnostics
    assert _codes(_change(client, uri, 7, text)) == _codes(published)
    with (stack / "pyproject.toml").open("a") as configuration:
        configuration.write('\n[tool.fsdp-unpatch]\nignore = ["FSU101"]\n')
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    saved = client.notification("textDocument/publishDiagnostics", lambda p: p["uri"] == uri)
    assert _codes(saved) == ["FSU002", "FSU001", "FSU201"]
    # a configuration the engine refuses: one diagnostic that names it, at the top of the buffer
    (stack / "pyproject.toml").write_text('[tool.fsdp-unpatch]\nselect = ["NOPE"]\n')
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    (refused,) = client.notification("textDocument/publishDiagnostics", lambda p: p["uri"] == uri)["diagnostics"]
    assert refused["severity"] == ERROR and "NOPE" in refused["message"]
    assert refused["message"].startswith("fsdp-unpatch: ") and refused["range"]["start"] == {"line": 0, "character": 0}
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert client.notification("textDocument/publishDiagnostics", lambda p: p["uri"] == uri)["diagnostics"] == []

    assert client.close() == 0


EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "legacy_project"


def test_fix_all_on_each_file_of_the_example_is_fix_of_the_project(tmp_path: Path) -> None:
    # The server's fix-all on a file is what `fix .` writes to it (issue 31, item 6): `_api_patches.py` calls
    # the installer of `_add_fsdp_patch.py`, and `fix .` deletes the installer with its call; the fix-all of
    # either file did `fix FILE`, which kept a `def _apply_fsdp_patch(): pass` stub and left the call. Its edit
    # carries the other file's part, so that applied whole it leaves the project as `fix .` does.
    example = shutil.copytree(EXAMPLE, tmp_path / "a")
    fixed = shutil.copytree(EXAMPLE, tmp_path / "b")
    assert cli("fix", "--no-cache", ".", cwd=fixed).returncode == 0
    files = sorted(str(p.relative_to(example)) for p in example.rglob("*.py"))
    before = {name: (example / name).read_text() for name in files}
    after = {name: (fixed / name).read_text() for name in files}
    changed = [name for name in files if before[name] != after[name]]
    assert changed == ["legacy_npu/_api_patches.py", "legacy_npu/distributed/fsdp/_add_fsdp_patch.py"]
    assert "def _apply_fsdp_patch" not in after[changed[1]] and "_apply_fsdp_patch" not in after[changed[0]]
    uris = {(example / name).as_uri(): name for name in files}
    everything = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}
    client = Client(example)
    try:
        _initialize(client, example, disabled_support=True)
        for uri, name in uris.items():
            _open(client, uri, before[name])
        for uri, name in uris.items():
            actions = _actions(client, uri, everything, only=["source.fixAll"])
            if name not in changed:
                assert actions == [], name  # `fix .` leaves the file as it is: nothing offered
                continue
            (fix_all,) = actions
            edits = fix_all["edit"]["changes"]
            assert sorted(uris[u] for u in edits) == changed  # the other file goes with it
            for other, its_edits in edits.items():
                assert apply_edits(before[uris[other]], its_edits) == after[uris[other]], (name, uris[other])
        # the edit was computed from the other file on disk: with unsaved changes there, it is refused, and why
        caller, patch = (example / changed[0]).as_uri(), (example / changed[1]).as_uri()
        _change(client, caller, 2, before[changed[0]] + "# unsaved\n")
        (refused,) = _actions(client, patch, everything, only=["source.fixAll"])
        assert "edit" not in refused and "has unsaved changes" in refused["disabled"]["reason"], refused
        assert changed[0] in refused["disabled"]["reason"]
        assert client.close() == 0
    finally:
        client.kill()
    assert {name: (example / name).read_text() for name in files} == before  # the server wrote nothing
    # (a pipe, `fix --stdin-filename PATH -`, is `fix PATH` instead: tests/test_cli_habits.py)


def test_quick_fixes_name_what_they_fix_and_say_why_not(tmp_path: Path) -> None:
    # The three FSU002 quick fixes had one title ("Fix FSU002 override-replacement: ..."): each names its
    # function now, and each install site its target. A client that shows disabled actions is told why a
    # finding gets none: the installer's fix changes `_api_patches.py` too (the fix-all action does it).
    example = shutil.copytree(EXAMPLE, tmp_path / "a")
    patch = example / "legacy_npu" / "distributed" / "fsdp" / "_add_fsdp_patch.py"
    uri, text = patch.as_uri(), patch.read_text()
    client = Client(example)
    try:
        _initialize(client, example, disabled_support=True)
        published = _open(client, uri, text)
        whole = {"start": {"line": 0, "character": 0}, "end": {"line": len(text.splitlines()), "character": 0}}
        actions = _actions(client, uri, whole, only=["quickfix"])
        assert client.close() == 0
    finally:
        client.kill()
    titles = {a["title"]: a for a in actions}
    assert len(titles) == len(actions)  # told apart
    for name in ("_patched_get_param_all_gather_inputs", "_patched_all_gather_copy_in", "_patched_finalize_backward"):
        assert "edit" in titles[f"Delete `{name}` with its install sites (FSU002)"]
    assert "edit" in titles["Delete the override `_ParamGroup.finalize_backward` (FSU001)"]
    assert "edit" in titles["Delete the override `torch.ops.fsdp.all_gather_copy_in.default` (FSU001)"]
    installer = titles["Delete the installer `_apply_fsdp_patch` (FSU003)"]
    assert "edit" not in installer and "legacy_npu/_api_patches.py" in installer["disabled"]["reason"]
    assert "fix-all" in installer["disabled"]["reason"]
    fixable = [d for d in published["diagnostics"] if d["severity"] != HINT]
    assert sorted(a["diagnostics"][0]["code"] for a in actions) == sorted(d["code"] for d in fixable)


def test_a_fix_that_fix_holds_back_is_not_offered(tmp_path: Path) -> None:
    # Outside any project (no pyproject.toml, no .git) `fix` cannot look for importers of what it would
    # delete, so it changes nothing: the server offers no fix, or (to a client that shows them) a
    # disabled fix-all action that says why. This client counts positions in code points (UTF-32).
    loose = tmp_path / "loose" / "overrides.py"
    loose.parent.mkdir()
    loose.write_text(
        expand(OVERRIDES).replace(
            "    collectives.DefaultAllGather", '    clef = "\U0001d11e"; collectives.DefaultAllGather'
        )
    )
    uri, text = loose.as_uri(), loose.read_text()
    client = Client(loose.parent)
    try:
        assert _initialize(client, loose.parent, True, ["utf-32", "utf-16"])["positionEncoding"] == "utf-32"
        published = _open(client, uri, text)
        assert "FSU001" in _codes(published)
        (review,) = [f for f in check_source(text, str(loose), in_project=True) if f.code == "FSU101"]
        (shown,) = [d for d in published["diagnostics"] if d["code"] == "FSU101"]
        assert shown["range"]["start"] == {"line": review.span.line - 1, "character": review.span.column - 1}
        install = published["diagnostics"][1]
        # the reason is in the diagnostic, for a client that shows no disabled action (it used to be silent)
        assert install["code"] == "FSU001" and "(fix held back: no project root" in install["message"]
        quick, held = _actions(client, uri, install["range"])
        assert held["kind"] == FIX_ALL and "edit" not in held
        assert "no project root" in held["disabled"]["reason"]
        assert quick["kind"] == "quickfix" and "edit" not in quick
        assert quick["title"] == "Delete the override `collectives._get_param_all_gather_inputs` (FSU001)"
        assert quick["disabled"]["reason"].startswith("fix held back: no project root")
        # no fix at all: said so, with where to read more
        (unfixable,) = [a for a in _actions(client, uri, shown["range"]) if a["kind"] == "quickfix"]
        assert unfixable["disabled"]["reason"].startswith("no automatic fix for FSU101")
        assert shown["message"].endswith(" (no automatic fix)")
        assert client.close() == 0
    finally:
        client.kill()
    everything = ((0, 0), (0, 0))
    from lsprotocol import types

    asked = types.Range(types.Position(*everything[0]), types.Position(*everything[1]))
    assert code_actions(analyse(str(loose), text), uri, asked, None, len, show_disabled=False) == []


def test_a_stray_print_does_not_corrupt_the_protocol(stack: Path) -> None:
    # standard output carries the protocol: what the analysis prints goes to standard error
    noisy = (
        "import fsdp_unpatch.api as api; real = api.check_source; "
        "api.check_source = lambda *a, **k: (print('stray output'), real(*a, **k))[1]; "
        "import sys; sys.argv = ['fsdp-unpatch', 'server']; from fsdp_unpatch.cli import main; main()"
    )
    client = Client(stack, [sys.executable, "-c", noisy])
    try:
        _initialize(client, stack)
        path = stack / "stack" / "overrides.py"
        assert "FSU001" in _codes(_open(client, path.as_uri(), path.read_text()))
        assert client.close() == 0
    finally:
        client.kill()


def test_the_server_stops_when_its_editor_goes_away(tmp_path: Path) -> None:
    # an editor that dies sends no `exit`: the end of the server's input stops it, nothing is left running
    server = subprocess.Popen(
        [sys.executable, "-m", "fsdp_unpatch", "server"], cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        assert server.stdin is not None
        server.stdin.close()
        assert server.wait(timeout=60) == 0
    finally:
        if server.poll() is None:
            server.kill()
        if server.stdout is not None:
            server.stdout.close()


def test_lines_and_positions_as_lsp_counts_them() -> None:
    text = "a = 1\r\nb = '\U0001d11e'; c\rd\x0ce\nlast"
    lines = split_lines(text)
    assert lines == ["a = 1\r\n", "b = '\U0001d11e'; c\r", "d\x0ce\n", "last"]  # a form feed breaks no line

    def utf16(part: str) -> int:
        return len(part.encode("utf-16-le")) // 2

    assert position(lines, 2, 10, utf16) == (1, 10)  # 1-based code points: column 10 is `c`, after a 2-unit clef
    assert position(lines, 2, 10, len) == (1, 9)
    assert end_of(lines, utf16) == (3, 4)  # after the last character: no line break ends the text
    assert end_of(split_lines("x\n"), utf16) == (1, 0)
    assert end_of([], utf16) == (0, 0)
    assert position(lines, 5, 1, utf16) == (3, 4)  # an edit that runs to the end of the file


def test_the_buffer_is_encoded_as_its_file_declares() -> None:
    declared = "# -*- coding: latin-1 -*-\nname = 'caf\u00e9'\n"
    assert encoded(declared) == (declared.encode("latin-1"), "iso-8859-1")
    assert decoded(*encoded(declared)) == declared
    assert encoded("name = 'caf\u00e9'\n") == ("name = 'caf\u00e9'\n".encode(), "utf-8")
    marked = "\ufeffname = 1\n"  # a byte order mark left in the text is written once, not twice
    assert encoded(marked) == (b"\xef\xbb\xbfname = 1\n", "utf-8")
    cannot = "# -*- coding: latin-1 -*-\nname = '\u20ac'\n"  # the euro sign has no latin-1 byte
    assert encoded(cannot) == (cannot.encode(), "utf-8")


def test_without_pygls_the_server_says_what_to_install(tmp_path: Path) -> None:
    blocked = "import sys; sys.modules['pygls'] = sys.modules['lsprotocol'] = None; "
    run = "sys.argv = ['fsdp-unpatch', 'server']; from fsdp_unpatch.cli import main; main()"
    result = subprocess.run([sys.executable, "-c", blocked + run], cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 2
    assert "fsdp-unpatch: error: the language server needs " in result.stderr
    assert "install fsdp-unpatch with its `lsp` extra, or `pip install pygls`" in result.stderr
    assert "Traceback" not in result.stderr
