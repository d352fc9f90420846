"""`upgrade` and `catalog` speak Chinese under a Chinese locale (issue 31): each override's notes, the kinds and
roles, the summary, the checklist, the errors and warnings; the English output is what it was, and the JSON
stays English whatever the language.

The project is made here from the bundled release data, moving from torch 2.14 down to 2.4 so that every kind
of break shows: a wrapper reading a moved position and a dropped keyword, a copy reading attributes the old
release does not set and dropping its changes, a copy of a method the old release lacks, and an import of a
name it does not define.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fsdp_unpatch import i18n
from fsdp_unpatch.i18n import translated
from tests.integration import cli
from tests.test_i18n import NO_LOCALE, ZH_LOCALE, _english_prose

CJK = re.compile("[\u3400-\u9fff]")
POST_BACKWARD = "_fsdp_param_group.FSDPParamGroup.post_backward"
ALLOCATE = "_fsdp_collectives.DefaultAllGather.allocate"
UPGRADE = ("upgrade", "--isolated", "--from", "2.14", "--to", "2.4")

HEAD = """\
from torch.distributed.fsdp._fully_shard import _fsdp_collectives
from torch.distributed.fsdp._fully_shard._fsdp_collectives import DefaultAllGather
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


def _patched_foreach_reduce(original):
    def wrapper(*args, **kwargs):
        comm = args[4]
        hook = kwargs.get("all_reduce_hook")
        comm.prepare()
        return original(*args, **kwargs)
    return wrapper


"""
INSTALLER = """

def _apply_fsdp_enhance_patch():
    _fsdp_collectives.foreach_reduce = _patched_foreach_reduce(_fsdp_collectives.foreach_reduce)
    FSDPParamGroup.post_backward = _npu_post_backward
    DefaultAllGather.allocate = _npu_allocate
"""


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    i18n.set_language(i18n.ENGLISH)


def _text_of(target: str, version: str = "2.14") -> str:
    from fsdp_unpatch.fingerprint.releases import bundled, pick

    release = pick({r.version: r for r in bundled()}, version)
    assert release is not None
    return release.functions[target]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    copy = _text_of(POST_BACKWARD).replace("def post_backward(", "def _npu_post_backward(", 1)
    allocate = _text_of(ALLOCATE).replace("def allocate(", "def _npu_allocate(", 1)
    (tmp_path / "patch.py").write_text(HEAD + copy + "\n\n" + allocate + INSTALLER, encoding="utf-8")
    return tmp_path


def _line(project: Path, text: str) -> int:
    lines = (project / "patch.py").read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


def _prose_outside_code(text: str) -> list[str]:
    """English sentences left, line by line, once the statements a note names (after its `：`) are set aside:
    they are code, the same in every language."""
    found = []
    for line in text.splitlines():
        if "的改动：" in line:
            line = line.split("的改动：", 1)[0]
        found.extend(_english_prose(line))
    return found


def test_upgrade_prints_its_notes_kinds_roles_and_summary_in_chinese(project: Path) -> None:
    run = cli(*UPGRADE, ".", cwd=project, env=ZH_LOCALE)
    assert run.returncode == 1, run.stderr  # something breaks
    out = run.stdout.decode()
    lines = out.splitlines()
    install = _line(project, "_fsdp_collectives.foreach_reduce = ")
    assert f"patch.py:{install}: _fsdp_collectives.foreach_reduce [包装函数]" in lines
    assert (
        "  ! 签名：读取第 4 号位置参数（`reduce_scatter_comm`），而新版本中这个位置的参数是 `orig_dtype`"
        f"（第 {_line(project, 'comm = args[4]')} 行）"
    ) in lines
    assert (
        "  ! 签名：读取关键字参数 `all_reduce_hook`，而新版本已不再接受这个参数"
        f"（第 {_line(project, 'kwargs.get')} 行）"
    ) in lines
    assert any(
        line.startswith(f"patch.py:{install + 1}: {POST_BACKWARD} [拷贝]（最接近的上游：torch 2.14") for line in lines
    )
    attribute = re.compile(
        r"  ! 属性：读取 `self\._all_reduce_hook_stream`，而 torch 2\.4\.1 的 `FSDPParamGroup` 已不再设置这个属性"
        r"（第 \d+ 行）"
    )
    assert any(attribute.fullmatch(line) for line in lines), out
    drops = next(line for line in lines if line.startswith("  ! 拷贝丢失了上游的改动："))
    assert drops.startswith(f"  ! 拷贝丢失了上游的改动：拷贝丢失了 torch 2.4.1 对 `{POST_BACKWARD}` 的改动：+ ")
    assert re.search(r"（另有 \d+ 条）$", drops) and "more)" not in drops, drops
    assert (
        f"  ! 目标已不存在：`{ALLOCATE}` 不在 torch 2.4.1 中：安装时会报错，或者补丁打在一个没人调用的名字上" in lines
    )
    assert "patch.py:2: 从 FSDP2 模块导入的名字 [导入]" in lines
    assert "  ! 私有名字：导入了 `_fsdp_collectives.DefaultAllGather`，而 torch 2.4.1 已不再定义它" in lines
    assert lines[-1] == "torch 2.14.1 -> 2.4.1：保留下来的覆写 4 个，其中 4 个需要处理"
    for english in ("[wrapper]", "[copy]", "[imports]", "(imports)", "reads ", "which torch", "is not in torch"):
        assert english not in out, english
    assert _prose_outside_code(out) == []


def test_the_checklist_is_chinese_too(project: Path) -> None:
    run = cli(*UPGRADE, "--report", "upgrade.md", ".", cwd=project, env=ZH_LOCALE)
    assert run.returncode == 1, run.stderr
    checklist = (project / "upgrade.md").read_text(encoding="utf-8")
    lines = checklist.splitlines()
    assert lines[0] == "# 将 torch 2.14.1 升级到 2.4.1"
    install = _line(project, "_fsdp_collectives.foreach_reduce = ")
    assert f"- [ ] `_fsdp_collectives.foreach_reduce`（包装函数）`patch.py:{install}`" in lines
    assert f"- [ ] `{ALLOCATE}`（拷贝）`patch.py:{install + 2}`" in lines
    assert "  - **签名**：读取关键字参数 `all_reduce_hook`，而新版本已不再接受这个参数" in lines
    assert "  - **私有名字**：导入了 `_fsdp_collectives.DefaultAllGather`，而 torch 2.4.1 已不再定义它" in lines
    assert "(wrapper)" not in checklist and "**signature**" not in checklist
    assert _prose_outside_code(checklist) == []


def test_upgrade_in_english_is_as_before_and_its_json_stays_english(project: Path) -> None:
    english = cli(*UPGRADE, ".", cwd=project, env=NO_LOCALE).stdout.decode()
    assert not CJK.search(english)
    assert (
        "  ! signature: reads keyword `all_reduce_hook`, which the new release no longer takes "
        f"(line {_line(project, 'kwargs.get')})"
    ) in english.splitlines()
    assert f"  ! target gone: {ALLOCATE} is not in torch 2.4.1: the install raises or patches a name nobody calls" in (
        english.splitlines()
    )
    assert re.search(r"\(and \d+ more\)\n", english)
    assert english.splitlines()[-1] == "torch 2.14.1 -> 2.4.1: 4 overrides that stay, 4 need work"
    as_json = [cli(*UPGRADE, "--format", "json", ".", cwd=project, env=env).stdout for env in (NO_LOCALE, ZH_LOCALE)]
    assert as_json[0] == as_json[1] and not CJK.search(as_json[1].decode())
    report = json.loads(as_json[1])
    messages = {(v["role"], c["kind"]): c["message"] for v in report["overrides"] for c in v["changes"]}
    assert messages[("imports", "name")] == (
        "imports _fsdp_collectives.DefaultAllGather, which torch 2.4.1 no longer defines"
    )
    assert messages[("copy", "gone")].startswith(f"{ALLOCATE} is not in torch 2.4.1")
    assert re.search(r" \(and \d+ more\)$", messages[("copy", "drops")])


def test_upgrade_and_catalog_errors_and_warnings_in_chinese(project: Path, tmp_path: Path) -> None:
    unknown = cli("upgrade", "--isolated", "--to", "9.9", ".", cwd=project, env=ZH_LOCALE).stderr.decode()
    assert re.fullmatch(
        r"fsdp-unpatch: 错误：未知的 torch 版本 9\.9（已知：2\.4\.0, .*, 2\.14\.1；可用 `catalog add` 学习新版本）\n",
        unknown,
    ), unknown
    missing = cli("upgrade", "--to", "2.14", "nosuch", cwd=project, env=ZH_LOCALE).stderr.decode()
    assert missing == "fsdp-unpatch: 错误：nosuch：没有这个文件或目录\n"
    store = tmp_path / "store"
    not_torch = cli("catalog", "add", ".", "--catalog-dir", str(store), cwd=project, env=ZH_LOCALE)
    assert not_torch.returncode == 2
    assert not_torch.stderr.decode() == (
        "fsdp-unpatch: 错误：.：这里没有带 FSDP2 的 torch（应有 `torch/distributed/fsdp/_fully_shard/`）\n"
    )
    (project / "junk.whl").write_bytes(b"not a zip")
    junk = cli("catalog", "add", "junk.whl", "--catalog-dir", str(store), cwd=project, env=ZH_LOCALE)
    assert junk.stderr.decode().startswith("fsdp-unpatch: 错误：junk.whl：不是 torch wheel（"), junk.stderr
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "torch-3.0.0.json").write_text('{"format": 0}')
    (bad / "torch-3.1.0.json").write_text("{not json")
    listed = cli("catalog", "list", "--catalog-dir", str(bad), cwd=project, env=ZH_LOCALE)
    assert listed.returncode == 2 and "2.14.1\t内置" in listed.stdout.decode().splitlines()
    errors = listed.stderr.decode().splitlines()
    assert f"fsdp-unpatch: 错误：{bad / 'torch-3.0.0.json'}：不是格式 1 的 FSDP2 版本数据" in errors
    assert any(
        line.startswith(f"fsdp-unpatch: 错误：{bad / 'torch-3.1.0.json'}：无法读取版本数据（") for line in errors
    )
    warned = cli(*UPGRADE, "--catalog-dir", str(bad), ".", cwd=project, env=ZH_LOCALE).stderr.decode()
    assert f"fsdp-unpatch: 警告：{bad / 'torch-3.0.0.json'}：不是格式 1 的 FSDP2 版本数据" in warned.splitlines()
    english = cli("catalog", "list", "--catalog-dir", str(bad), cwd=project, env=NO_LOCALE)
    assert "2.14.1\tbundled" in english.stdout.decode().splitlines()
    assert f"{bad / 'torch-3.0.0.json'}: not FSDP2 release data of format 1" in english.stderr.decode()


def test_the_count_of_statements_left_out_is_said_in_the_readers_language() -> None:
    from fsdp_unpatch.fingerprint.releases import named_changes

    named = named_changes(["a = 1", "b = 2"], ["c = 3", "d = 4"], shown=1)
    assert named == "+ c = 3; - a = 1 (and 2 more)"
    i18n.set_language(i18n.CHINESE)
    assert translated(named) == "+ c = 3; - a = 1（另有 2 条）"
    assert named_changes([], ["c = 3"]) == "+ c = 3"  # nothing left out: no count, in any language
