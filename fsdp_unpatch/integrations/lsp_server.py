"""`fsdp-unpatch server`: a language server over standard input and output (pygls).

It analyses each open buffer when it is opened, changed and saved, publishes the findings as diagnostics,
offers the fixes as code actions and the rules' explanations on hover, and clears a buffer's diagnostics
when it is closed. Imported only by that command, so `check` and `fix` never load pygls.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any, Optional

from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcServerNotInitialized,
)
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from fsdp_unpatch import __version__
from fsdp_unpatch.integrations.lsp_features import (
    FIX_ALL,
    Analysis,
    analyse,
    code_actions,
    diagnostics,
    hover,
)
from fsdp_unpatch.integrations.lsp_text import Units

SETTLE = 0.2  # seconds after a change before it is analysed, so that a burst of keystrokes is analysed once
UNTITLED = "untitled.py"  # the name a buffer with no file is analysed under (the working folder's settings)


class InitializeFirst(LanguageServerProtocol):
    """`initialize` first, as LSP asks: a notification before it (but `exit`) is dropped, where pygls, having
    no workspace yet, would show the user an error; the server's requests answer ServerNotInitialized."""

    started = False
    exit_code: Optional[int] = None  # set by `exit`: 0 after `shutdown`, else 1 (pygls' own sys.exit is swallowed)

    def structure_message(self, data: dict[str, Any]) -> Any:
        """A request whose params do not fit its method is answered InvalidParams (pygls drops it unanswered)."""
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if "id" in data and "method" in data:
                code = JsonRpcInvalidParams if isinstance(error, JsonRpcInvalidParams) else type(error)
                self._send_response(data["id"], None, code(str(error) or "invalid params").to_response_error())
            return None  # nothing left to handle

    def handle_message(self, message: Any) -> None:
        if message is None:
            return
        method = getattr(message, "method", None)
        if method == types.EXIT:
            self.exit_code = 0 if self._shutdown else 1
        elif self._shutdown and getattr(message, "id", None) is not None and method is not None:
            # after `shutdown` a request is InvalidRequest, as LSP asks (pygls drops it unanswered)
            self._send_response(message.id, None, JsonRpcInvalidRequest("the server was shut down").to_response_error())
            return
        if method == types.INITIALIZE:
            self.started = True
        elif not self.started and method not in (None, types.EXIT) and getattr(message, "id", None) is None:
            return
        super().handle_message(message)


def build() -> LanguageServer:
    server = LanguageServer("fsdp-unpatch", __version__, protocol_cls=InitializeFirst)
    analyses: dict[str, Analysis] = {}  # by document URI: the last analysis of its text
    opened: set[str] = set()  # the URIs of the open documents, as the client spells them
    # open documents in another language (Markdown, TOML...): a client may send every buffer it has
    other_languages: set[str] = set()

    def units() -> Units:
        return server.workspace.position_codec.client_num_units

    def refresh(uri: str) -> None:
        document = server.workspace.get_text_document(uri)
        analysis = analyses[uri] = analyse(document.path or UNTITLED, document.source)
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri, diagnostics=diagnostics(analysis, units()), version=document.version
            )
        )

    def analysed(uri: str) -> bool:
        """Whether requests about `uri` are answered; before `initialize` a request is an error, as LSP asks
        (its notifications are dropped)."""
        if not getattr(server.protocol, "started", False):
            raise JsonRpcServerNotInitialized()
        if uri not in opened and uri not in other_languages:  # a plain error, not a traceback
            raise JsonRpcInvalidParams(f"the document {uri} is not open (send textDocument/didOpen first)")
        return uri not in other_languages

    def current(uri: str) -> Analysis:
        """The analysis of the buffer's text as it is now (a request may come before the change's diagnostics)."""
        text = server.workspace.get_text_document(uri).source
        analysis = analyses.get(uri)
        if analysis is None or analysis.text != text:
            refresh(uri)
        return analyses[uri]

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        if params.text_document.language_id != "python":
            other_languages.add(params.text_document.uri)
            return
        opened.add(params.text_document.uri)
        refresh(params.text_document.uri)

    def refresh_if_latest(uri: str, version: int) -> None:
        if uri in opened and server.workspace.get_text_document(uri).version == version:  # not changed since
            refresh(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        # While one change is analysed, the next ones wait in the pipe; only the latest of them is analysed.
        document = params.text_document
        asyncio.get_running_loop().call_later(SETTLE, refresh_if_latest, document.uri, document.version)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: types.DidSaveTextDocumentParams) -> None:
        if params.text_document.uri in opened:
            refresh(params.text_document.uri)  # the project's configuration may have changed meanwhile

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        opened.discard(uri)
        other_languages.discard(uri)
        analyses.pop(uri, None)
        server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]),
    )
    def code_action(params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        if not analysed(uri):
            return []
        asked = server.client_capabilities.text_document
        disabled = bool(asked and asked.code_action and asked.code_action.disabled_support)
        return code_actions(current(uri), uri, params.range, params.context.only, units(), disabled, buffer_of)

    def buffer_of(path: str) -> Optional[str]:
        """The text of the open document of the file at `path`, if the editor has one open."""
        real = os.path.realpath(path)
        for uri in opened:
            document = server.workspace.get_text_document(uri)
            if document.path and os.path.realpath(document.path) == real:
                return document.source
        return None

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def on_hover(params: types.HoverParams) -> Optional[types.Hover]:
        if not analysed(params.text_document.uri):
            return None
        point = (params.position.line, params.position.character)
        return hover(current(params.text_document.uri), point, units())

    return server


def serve() -> None:
    protocol = sys.stdout.buffer
    sys.stdout = sys.stderr  # standard output carries the protocol: a stray print must not corrupt it
    server = build()
    server.start_io(sys.stdin.buffer, protocol)
    code = getattr(server.protocol, "exit_code", None)
    if code:
        sys.exit(code)
