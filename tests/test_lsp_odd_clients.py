"""`fsdp-unpatch server` driven by clients that do odd things: each test failed before its fix."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.lsp_client import Client
from tests.test_lsp_server import _initialize, _open
from tests.upstream import expand

PATCH = """\
import torch
from typing import cast
from torch.distributed.fsdp._fully_shard import _fsdp_collectives as collectives
from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam, ShardedState

# @upstream _fsdp_collectives._get_param_all_gather_inputs _npu_inputs same-device


def install():
    collectives._get_param_all_gather_inputs = _npu_inputs
"""
# Markdown that quotes a patch, and is no Python: analysed as Python it is a syntax error (FSU901)
NOTES = "# Notes\n\nWe patch `_fsdp_collectives` (see below):\n\n    collectives.foreach_reduce = ours(\n"
START = {"line": 0, "character": 0}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "patch.py").write_text(expand(PATCH))
    (root / "NOTES.md").write_text(NOTES)
    (root / "pyproject.toml").write_text('[project]\nname = "p"\n')  # a project: fixes are offered
    return root


@pytest.fixture
def client(project: Path):
    started = Client(project)
    yield started
    started.kill()


def test_a_document_in_another_language_is_not_analysed(project: Path, client: Client) -> None:
    _initialize(client, project)
    notes = (project / "NOTES.md").as_uri()
    client.notify(
        "textDocument/didOpen", {"textDocument": {"uri": notes, "languageId": "markdown", "version": 1, "text": NOTES}}
    )
    asked = {"textDocument": {"uri": notes}, "range": {"start": START, "end": START}, "context": {"diagnostics": []}}
    assert client.request("textDocument/codeAction", asked) == []
    assert client.request("textDocument/hover", {"textDocument": {"uri": notes}, "position": START}) is None
    client.notify("textDocument/didSave", {"textDocument": {"uri": notes}})
    python = (project / "patch.py").as_uri()
    assert _open(client, python, (project / "patch.py").read_text())["diagnostics"]  # answered in order
    published = [n["params"] for n in client.notifications if n["method"] == "textDocument/publishDiagnostics"]
    assert [p["uri"] for p in published] == [python]


def test_a_request_before_initialize_is_answered_server_not_initialized(project: Path, client: Client) -> None:
    python = (project / "patch.py").as_uri()
    answer = client.answer("textDocument/hover", {"textDocument": {"uri": python}, "position": START})
    assert answer["error"]["code"] == -32002  # ServerNotInitialized, as the protocol asks; no traceback
    # a notification before initialize is dropped, and the server still starts normally
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": python, "languageId": "python", "version": 1, "text": "x = 1\n"}},
    )
    _initialize(client, project)
    assert "FSU001" in [d["code"] for d in _open(client, python, (project / "patch.py").read_text())["diagnostics"]]
    assert not [n for n in client.notifications if n["method"] == "window/showMessage"]


def test_a_chinese_server_speaks_chinese(project: Path) -> None:
    # `--lang zh-CN` (or a Chinese locale) left the diagnostics, the hover and the fix-all title English
    from fsdp_unpatch import i18n
    from fsdp_unpatch.api import check_source
    from fsdp_unpatch.reporting.localize import localized

    client = Client(project, [sys.executable, "-m", "fsdp_unpatch", "--lang", "zh-CN", "server"])
    try:
        _initialize(client, project)
        path = project / "patch.py"
        published = _open(client, path.as_uri(), path.read_text())["diagnostics"]
        (install,) = [d for d in published if d["code"] == "FSU001"]
        hovered = client.request("textDocument/hover", {"textDocument": {"uri": path.as_uri()}, "position": START})
        on_install = {"textDocument": {"uri": path.as_uri()}, "position": install["range"]["start"]}
        explained = client.request("textDocument/hover", on_install)["contents"]["value"]
        asked = {"textDocument": {"uri": path.as_uri()}, "range": install["range"], "context": {"diagnostics": []}}
        titles = [a["title"] for a in client.request("textDocument/codeAction", asked)]
    finally:
        client.kill()
    (finding,) = [f for f in check_source(path.read_text(), str(path), in_project=True) if f.code == "FSU001"]
    i18n.set_language(i18n.CHINESE)
    try:
        assert install["message"] == localized(finding.message) != finding.message
    finally:
        i18n.set_language(i18n.ENGLISH)
    assert hovered is None
    assert "类别：remove" in explained and "## 作用" in explained and "What it does" not in explained
    assert any("fsdp-unpatch：" in title and "apply" not in title for title in titles), titles


# LSP 3.17 answers (issue 34, item 5): every request gets a response, errors with the spec's codes.
INVALID_PARAMS, INVALID_REQUEST, INTERNAL_ERROR = -32602, -32600, -32603


def test_a_request_with_invalid_params_is_answered_invalid_params(project: Path, client: Client) -> None:
    """It used to get no answer at all: the editor waited for ever."""
    _initialize(client, project)
    for params in ({"textDocument": 7, "position": START}, {"position": START}, ["not", "an", "object"]):
        answer = client.answer("textDocument/hover", params)
        assert answer.get("error", {}).get("code") == INVALID_PARAMS, answer
    python = (project / "patch.py").as_uri()  # the server is still there, and answers the next request
    _open(client, python, (project / "patch.py").read_text())
    assert client.request("textDocument/hover", {"textDocument": {"uri": python}, "position": START}) is None


@pytest.mark.parametrize("method", ["textDocument/hover", "textDocument/codeAction"])
def test_a_request_about_an_unopened_document_is_a_plain_error(project: Path, client: Client, method: str) -> None:
    """It used to be an internal error carrying a Python traceback."""
    _initialize(client, project)
    python = (project / "patch.py").as_uri()
    params = {"textDocument": {"uri": python}, "position": START}
    if method.endswith("codeAction"):
        params = {
            "textDocument": {"uri": python},
            "range": {"start": START, "end": START},
            "context": {"diagnostics": []},
        }
    error = client.answer(method, params).get("error")
    assert error is not None and error["code"] == INVALID_PARAMS, error
    assert "not open" in error["message"] and "Traceback" not in str(error), error


def test_a_request_after_shutdown_is_answered_invalid_request(project: Path, client: Client) -> None:
    """It used to get no answer."""
    _initialize(client, project)
    assert client.request("shutdown", None) is None
    python = (project / "patch.py").as_uri()
    answer = client.answer("textDocument/hover", {"textDocument": {"uri": python}, "position": START})
    assert answer.get("error", {}).get("code") == INVALID_REQUEST, answer
    client.notify("exit", None)
    assert client.process.wait(timeout=60) == 0


def test_exit_without_shutdown_exits_1(project: Path, client: Client) -> None:
    """It used to exit 0; LSP says 1."""
    _initialize(client, project)
    client.notify("exit", None)
    assert client.process.wait(timeout=60) == 1


def test_exit_after_shutdown_exits_0(project: Path, client: Client) -> None:
    _initialize(client, project)
    assert client.close() == 0
