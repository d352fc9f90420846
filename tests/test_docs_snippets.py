"""The READMEs' and the editor page's snippets work when copied: the Chinese README runs the English one's
commands, pins nothing that does not exist, and the editor settings belong to the extension they name."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
READMES = [ROOT / "README.md", ROOT / "README.zh-CN.md"]
INTEGRATIONS = ROOT / "docs" / "integrations.md"
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
# a git ref written as a release tag in a command or setting: `--branch v1.2.3`, `@v1.2.3`, `rev: v1.2.3`, `/raw/v1.2.3/`
PINNED_TAG = re.compile(r"(?:--branch |@|rev: |/raw/)(v\d+\.\d+\.\d+)\b")


def blocks(path: Path, language: str = "") -> list[str]:
    return [body for lang, body in BLOCK.findall(path.read_text(encoding="utf-8")) if lang == language or not language]


def without_comments(block: str) -> list[str]:
    lines = (re.sub(r"\s+#.*$", "", line).rstrip() for line in block.splitlines())
    return [line for line in lines if line and not line.lstrip().startswith("#")]


def test_the_chinese_readme_runs_the_english_readmes_commands() -> None:
    english, chinese = (
        [without_comments(b) for lang in ("bash", "yaml") for b in blocks(path, lang)] for path in READMES
    )
    english, chinese = list(english), list(chinese)
    assert len(chinese) == len(english)
    for ours, theirs in zip(english, chinese):  # the Chinese may add a line (its `--lang`), never lose one
        assert [line for line in theirs if line in ours] == ours


def test_no_snippet_pins_a_tag_the_repository_lacks() -> None:
    tags = set(subprocess.run(["git", "tag", "--list"], cwd=ROOT, capture_output=True, text=True).stdout.split())
    for readme in READMES:
        pinned = {tag for block in blocks(readme) for tag in PINNED_TAG.findall(block)}
        assert pinned <= tags, f"{readme.name} pins {sorted(pinned - tags)}"


def test_both_readmes_say_to_pin_a_commit_until_a_tag_exists() -> None:
    for readme in READMES:
        text = readme.read_text(encoding="utf-8")
        assert 'git -C fsdp-unpatch checkout "$REF"' in text and '"git+$REPO@$REF"' in text, readme.name


# the documented settings of each generic LSP client extension for VS Code (their package.json contributes)
EXTENSION_SETTINGS = {
    "zsol.vscode-glspc": {
        "glspc.serverPath",
        "glspc.serverCommandArguments",
        "glspc.languageId",
        "glspc.pathPrepend",
        "glspc.initializationOptions",
    },
}


def test_the_vs_code_snippet_uses_its_extensions_settings() -> None:
    text = INTEGRATIONS.read_text(encoding="utf-8")
    named = set(re.findall(r"`(\w+\.[\w-]+)`; the setting", text)) | set(re.findall(r"ext install ([\w.-]+)", text))
    assert len(named) == 1 and named <= EXTENSION_SETTINGS.keys(), named
    (extension,) = named
    settings = {key for block in blocks(INTEGRATIONS, "json") for key in re.findall(r'"(glspc\.[\w.]+)"', block)}
    assert settings and settings <= EXTENSION_SETTINGS[extension], settings - EXTENSION_SETTINGS[extension]


def test_the_neovim_save_advice_fixes_before_writing() -> None:
    lua = "\n".join(blocks(INTEGRATIONS, "lua"))
    assert "BufWritePre" in lua
    # the action's edit must be applied before the write: a synchronous request, not `code_action` (asynchronous)
    save = lua[lua.index("BufWritePre") :]
    assert "buf_request_sync" in save or "request_sync" in save
    assert "apply_workspace_edit" in save
    assert "vim.lsp.buf.code_action" not in save
