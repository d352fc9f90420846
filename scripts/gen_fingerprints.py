#!/usr/bin/env python3
"""Write ``fsdp_unpatch/data/fingerprints.json`` from the FSDP2 sources of every torch release.

Reads the per-version sources laid out by ``scripts/fetch_torch_sources.py`` (default
``/work/torch_upstream/<version>/torch/...``), fingerprints each target listed in ``TARGETS`` with
``fsdp_unpatch.fingerprint.fingerprint_function`` and writes::

    {"format": 1, "generated_from": "...",
     "targets": {target: {version: {"hashes": [...], "shapes": [...], "slots": [...],
                                    "summaries": [...], "params": N}}}}

Item 0 of each list is the function header (parameters and kept decorators), items 1.. the
top-level statements of its body. To cover another FSDP2 function, add its id to ``TARGETS``:
``<module>.<function>``, ``<module>.<Class>.<method>`` or ``ops.<namespace>.<op>``.

Stdlib only (plus this package). Usage::

    python scripts/gen_fingerprints.py [SOURCES_DIR] [-o fsdp_unpatch/data/fingerprints.json]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from fsdp_unpatch import fingerprint as fp  # noqa: E402

TARGETS = (
    # removable: native FSDP2 covers them
    "_fsdp_collectives._get_param_all_gather_inputs",
    "ops.fsdp.all_gather_copy_in",
    "_fsdp_param_group.FSDPParamGroup.finalize_backward",
    # overridden by the enhance patch (kept) or worth a review: fingerprinted so that reports can
    # say which upstream version a copy follows
    "_fsdp_collectives.foreach_all_gather",
    "_fsdp_collectives.foreach_reduce",
    "_fsdp_collectives.DefaultAllGather.allocate",
    "_fsdp_collectives.DefaultReduceScatter.allocate",
    "_fsdp_param_group.FSDPParamGroup.__init__",
    "_fsdp_param_group.FSDPParamGroup.post_forward",
    "_fsdp_param_group.FSDPParamGroup.post_backward",
    "_fsdp_param_group.FSDPParamGroup._wait_all_gather_streams_on_event",
    "_fsdp_state.FSDPState._post_forward",
    # review targets that downstream copies follow (so a copy's message names what it changed)
    "_fsdp_state.FSDPState._root_pre_forward",
)


def generate(sources: Path, targets=TARGETS) -> dict:
    dirs = fp.upstream_version_dirs([sources])
    versions = sorted(dirs, key=fp.version_key)
    out: dict = {
        "format": fp.FORMAT,
        "generated_from": (
            f"torch {', '.join(versions)} (FSDP2 python sources of the released wheels), "
            "by scripts/gen_fingerprints.py"
        ),
        "targets": {},
    }
    for target in targets:
        per_version = {}
        for version in versions:
            source = fp.extract_target_source(dirs[version], target)
            if source is not None:
                per_version[version] = fp.print_to_json(fp.fingerprint_function(source))
        if per_version:
            out["targets"][target] = per_version
        else:
            print(f"warning: {target} found in no version", file=sys.stderr)
    return out


def dumps(data: dict) -> str:
    """JSON with one line per target-version (small diffs when torch changes, small file)."""
    lines = ["{", f' "format": {json.dumps(data["format"])},',
             f' "generated_from": {json.dumps(data["generated_from"])},', ' "targets": {']
    targets = list(data["targets"].items())
    for ti, (target, versions) in enumerate(targets):
        lines.append(f"  {json.dumps(target)}: {{")
        items = list(versions.items())
        for vi, (version, entry) in enumerate(items):
            comma = "," if vi < len(items) - 1 else ""
            lines.append(f"   {json.dumps(version)}: {json.dumps(entry, separators=(',', ':'))}{comma}")
        lines.append("  }" + ("," if ti < len(targets) - 1 else ""))
    lines += [" }", "}"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sources", nargs="?", type=Path, default=Path("/work/torch_upstream"))
    ap.add_argument("-o", "--output", type=Path, default=fp.DATA_PATH)
    args = ap.parse_args(argv)
    data = generate(args.sources)
    if not data["targets"]:
        print(f"no torch sources under {args.sources}", file=sys.stderr)
        return 2
    args.output.write_text(dumps(data), encoding="utf-8")
    n = sum(len(v) for v in data["targets"].values())
    print(f"wrote {args.output}: {len(data['targets'])} targets, {n} target-versions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
