#!/usr/bin/env python3
"""Per-version facts of torch's FSDP2, read from its sources with ``ast`` (torch is never imported).

Reads ``<dir>/<version>/torch/distributed/...`` as laid out by ``scripts/fetch_torch_sources.py``
(default ``/work/torch_upstream``) and prints one markdown table per fact, then the first version
from which native FSDP2 serves a non-CUDA (PrivateUse1) device on each removable path.

Stdlib and the package's pure-``ast`` helpers (no libcst): run it from a checkout. Usage::

    python scripts/torch_version_facts.py [DIR] [--json]
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from fsdp_unpatch.fingerprint.same_device import dotted_name  # noqa: E402  (ast only, no libcst)

DEFAULT_DIR = Path("/work/torch_upstream")
ROOTS = ("torch/distributed/fsdp/_fully_shard", "torch/distributed/_composable/fsdp")
OP = "all_gather_copy_in"

# symbol -> (module, class or None, name)
SYMBOLS = {
    "FSDPParamGroup.__init__": ("_fsdp_param_group", "FSDPParamGroup", "__init__"),
    "FSDPParamGroup.post_forward": ("_fsdp_param_group", "FSDPParamGroup", "post_forward"),
    "FSDPParamGroup.post_backward": ("_fsdp_param_group", "FSDPParamGroup", "post_backward"),
    "FSDPParamGroup._wait_all_gather_streams_on_event": (
        "_fsdp_param_group",
        "FSDPParamGroup",
        "_wait_all_gather_streams_on_event",
    ),
    "FSDPParamGroup.finalize_backward": ("_fsdp_param_group", "FSDPParamGroup", "finalize_backward"),
    "FSDPState._post_forward": ("_fsdp_state", "FSDPState", "_post_forward"),
    "DefaultAllGather.allocate": ("_fsdp_collectives", "DefaultAllGather", "allocate"),
    "DefaultReduceScatter.allocate": ("_fsdp_collectives", "DefaultReduceScatter", "allocate"),
    "foreach_reduce": ("_fsdp_collectives", None, "foreach_reduce"),
    "foreach_all_gather": ("_fsdp_collectives", None, "foreach_all_gather"),
    "_get_param_all_gather_inputs": ("_fsdp_collectives", None, "_get_param_all_gather_inputs"),
}


def version_key(v: str) -> tuple[int, ...]:
    return tuple(int(re.sub(r"\D", "", p) or 0) for p in v.split("+")[0].split("."))


class Version:
    def __init__(self, version: str, base: Path) -> None:
        self.version = version
        self.root_rel = next((r for r in ROOTS if (base / r / "_fsdp_collectives.py").is_file()), None)
        self.root = base / self.root_rel if self.root_rel else None
        self.trees: dict[str, ast.Module] = {}

    def tree(self, module: str) -> ast.Module | None:
        if module not in self.trees:
            path = self.root / f"{module}.py" if self.root else None
            self.trees[module] = ast.parse(path.read_text(encoding="utf-8")) if path and path.is_file() else None
        return self.trees[module]

    def function(self, module: str, cls: str | None, name: str):
        """(node, defined_in_class) of a module function or class method (through same-module bases)."""
        tree = self.tree(module)
        if tree is None:
            return None, None
        if cls is None:
            for node in tree.body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                    return node, None
            return None, None
        todo, seen = [cls], set()
        while todo:
            c = todo.pop(0)
            if c in seen:
                continue
            seen.add(c)
            for node in tree.body:
                if isinstance(node, ast.ClassDef) and node.name == c:
                    for item in node.body:
                        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name:
                            return item, c
                    todo += [(dotted_name(b) or "").split(".")[-1] for b in node.bases]
        return None, None

    # -- the all_gather_copy_in op -------------------------------------------------------------

    def op_schema(self) -> list[str] | None:
        tree = self.tree("_fsdp_collectives")
        for node in ast.walk(tree) if tree else ():
            if (
                isinstance(node, ast.Call)
                and dotted_name(node.func) == "lib.define"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
                and re.search(rf"\b{OP}\s*\(", node.args[0].value)
            ):
                text = node.args[0].value
                inner = text[text.index("(") + 1 : text.index(")")]
                return [p.split()[-1].split("=")[0] for p in inner.split(",") if p.strip()]
        return None

    def op_impls(self) -> list[tuple[str, ast.FunctionDef]]:
        """(dispatch key, kernel) for each ``torch.library.impl(lib, OP, key)``."""
        out = []
        tree = self.tree("_fsdp_collectives")
        for node in tree.body if tree else ():
            if isinstance(node, ast.FunctionDef):
                for d in node.decorator_list:
                    if (
                        isinstance(d, ast.Call)
                        and (dotted_name(d.func) or "").endswith("library.impl")
                        and len(d.args) >= 3
                        and isinstance(d.args[1], ast.Constant)
                        and d.args[1].value == OP
                    ):
                        out.append((d.args[2].value, node))
        return out


def _args(fn: ast.FunctionDef) -> list[str]:
    a = fn.args
    return [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]


def _stream_kind(call: ast.Call) -> str | None:
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "current_stream"):
        return None
    owner = dotted_name(call.func.value) or ast.unparse(call.func.value)
    return f"{owner}.current_stream()"


def _non_agnostic(fn: ast.AST) -> list[str]:
    """CUDA-specific spellings: torch.cuda.*, .cuda(...), the string "cuda"."""
    found = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Attribute):
            name = dotted_name(node) or ""
            if name.startswith("torch.cuda"):
                found.append(name)
            elif node.attr == "cuda":
                found.append("." + node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("cuda"):
            found.append(repr(node.value))
    return sorted(set(found))


def facts_for(v: Version) -> dict:
    f: dict = {"version": v.version, "root": v.root_rel}
    schema = v.op_schema()
    f["op_schema_params"] = schema
    impls = v.op_impls()
    f["op_dispatch_keys"] = [k for k, _ in impls]
    kernels = {fn.name: fn for k, fn in impls if k != "Meta"}
    if kernels:
        name, fn = next(iter(kernels.items()))
        f["op_kernel"] = {"name": name, "params": _args(fn)}
    else:
        f["op_kernel"] = None
    f["op_privateuse1"] = "PrivateUse1" in f["op_dispatch_keys"]

    fb, _ = v.function("_fsdp_param_group", "FSDPParamGroup", "finalize_backward")
    if fb is None:
        f["finalize_backward_streams"] = None
    else:
        kinds = []
        for node in ast.walk(fb):
            if isinstance(node, ast.Call):
                k = _stream_kind(node)
                if k and k not in kinds:
                    kinds.append(k)
        f["finalize_backward_streams"] = kinds
        f["finalize_backward_non_agnostic"] = _non_agnostic(fb)

    g, _ = v.function("_fsdp_collectives", None, "_get_param_all_gather_inputs")
    if g is None:
        f["get_param_all_gather_inputs"] = None
    else:
        copies = [
            ast.unparse(n)
            for n in ast.walk(g)
            if isinstance(n, ast.Call) and dotted_name(n.func) == "torch._foreach_copy_"
        ]
        f["get_param_all_gather_inputs"] = {
            "foreach_copy_calls": copies,
            "non_agnostic": _non_agnostic(g),
            "decorators": [ast.unparse(d) for d in g.decorator_list],
        }

    fag, _ = v.function("_fsdp_collectives", None, "foreach_all_gather")
    if fag is not None:
        f["foreach_all_gather_streams"] = sorted(
            {
                ast.unparse(n.func)
                for n in ast.walk(fag)
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "stream"
            }
        )
        f["foreach_all_gather_copy_in"] = (
            "torch.ops.fsdp.all_gather_copy_in"
            if any(
                isinstance(n, ast.Attribute) and dotted_name(n) == "torch.ops.fsdp.all_gather_copy_in"
                for n in ast.walk(fag)
            )
            else "inline (no custom op)"
        )

    exists = {}
    for sym, (mod, cls, name) in SYMBOLS.items():
        node, owner = v.function(mod, cls, name)
        if node is None:
            exists[sym] = "no"
        elif cls and owner != cls:
            exists[sym] = f"inherited ({owner})"
        else:
            exists[sym] = "yes"
    f["exists"] = exists
    return f


def native_since(all_facts: list[dict]) -> dict[str, tuple[str | None, str]]:
    def first(pred):
        return next((f["version"] for f in all_facts if pred(f)), None)

    ag = first(lambda f: f["op_privateuse1"])
    fb = first(lambda f: f["finalize_backward_streams"] is not None and not f["finalize_backward_non_agnostic"])
    gp = first(
        lambda f: f["get_param_all_gather_inputs"] is not None and not f["get_param_all_gather_inputs"]["non_agnostic"]
    )
    return {
        "ops.fsdp.all_gather_copy_in": (ag, "first version with a PrivateUse1 kernel registration"),
        "_fsdp_param_group.FSDPParamGroup.finalize_backward": (
            fb,
            "first version whose finalize_backward does not hard-code torch.cuda streams",
        ),
        "_fsdp_collectives._get_param_all_gather_inputs": (
            gp,
            "first version where the function exists and uses only device-agnostic calls",
        ),
    }


def load(directory: Path) -> list[Version]:
    out = []
    for sub in directory.iterdir():
        if not sub.is_dir():
            continue
        info = sub / "SOURCE.json"
        version = json.loads(info.read_text())["version"] if info.is_file() else sub.name
        v = Version(version, sub)
        if v.root is not None:
            out.append(v)
    return sorted(out, key=lambda v: version_key(v.version))


def _cell(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(f"`{x}`" for x in value) if value else "(none)"
    return f"`{value}`" if value else "—"


def markdown(all_facts: list[dict]) -> str:
    out = []

    def table(title, header, rows):
        out.append(f"### {title}\n")
        out.append("| " + " | ".join(header) + " |")
        out.append("|" + "---|" * len(header))
        for r in rows:
            out.append("| " + " | ".join(r) + " |")
        out.append("")

    table("Module root", ["torch", "FSDP2 package"], [[f["version"], _cell(f["root"])] for f in all_facts])
    rows = []
    for f in all_facts:
        s, k = f["op_schema_params"], f["op_kernel"]
        rows.append(
            [
                f["version"],
                str(len(s)) if s else "—",
                _cell(s),
                _cell(k["name"]) if k else "—",
                str(len(k["params"])) if k else "—",
            ]
        )
    table(
        "`all_gather_copy_in` op: schema and python kernel",
        ["torch", "schema params", "schema parameter names", "kernel def", "kernel params"],
        rows,
    )
    table(
        "`all_gather_copy_in` dispatch keys (`torch.library.impl`)",
        ["torch", "keys", "PrivateUse1"],
        [
            [
                f["version"],
                _cell(f["op_dispatch_keys"]) if f["op_dispatch_keys"] else "— (no op)",
                _cell(f["op_privateuse1"]),
            ]
            for f in all_facts
        ],
    )
    table(
        "`FSDPParamGroup.finalize_backward`: how it waits on streams",
        ["torch", "current-stream calls", "CUDA-specific spellings"],
        [
            [f["version"], _cell(f["finalize_backward_streams"]), _cell(f.get("finalize_backward_non_agnostic"))]
            for f in all_facts
        ],
    )
    rows = []
    for f in all_facts:
        g = f["get_param_all_gather_inputs"]
        rows.append(
            [
                f["version"],
                "yes" if g else "no",
                _cell(g["decorators"]) if g else "—",
                _cell(g["foreach_copy_calls"]) if g else "—",
                _cell(g["non_agnostic"]) if g else "—",
            ]
        )
    table(
        "`_get_param_all_gather_inputs`",
        ["torch", "exists", "decorators", "`torch._foreach_copy_` calls", "CUDA-specific spellings"],
        rows,
    )
    table(
        "`foreach_all_gather`: copy-in and streams",
        ["torch", "copy-in", "stream contexts"],
        [
            [f["version"], f.get("foreach_all_gather_copy_in", "—"), _cell(f.get("foreach_all_gather_streams"))]
            for f in all_facts
        ],
    )
    syms = list(SYMBOLS)
    table(
        "Symbols present",
        ["symbol"] + [f["version"] for f in all_facts],
        [[f"`{s}`"] + [f["exists"][s] for f in all_facts] for s in syms],
    )
    out.append("### Native device-agnostic since\n")
    out.append("| target | first torch | criterion |")
    out.append("|---|---|---|")
    for target, (version, why) in native_since(all_facts).items():
        out.append(f"| `{target}` | {version or 'not yet'} | {why} |")
    out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", nargs="?", type=Path, default=DEFAULT_DIR)
    ap.add_argument("--json", action="store_true", help="print the facts as JSON")
    args = ap.parse_args(argv)
    versions = load(args.dir)
    if not versions:
        print(f"no torch sources under {args.dir}", file=sys.stderr)
        return 2
    all_facts = [facts_for(v) for v in versions]
    if args.json:
        print(json.dumps({"facts": all_facts, "native_since": native_since(all_facts)}, indent=1))
    else:
        print(markdown(all_facts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
