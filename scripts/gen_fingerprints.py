#!/usr/bin/env python3
"""Write ``fsdp_unpatch/data/upstream.json`` from the FSDP2 sources of every supported torch release.

Reads the per-version sources laid out by ``scripts/fetch_torch_sources.py`` (default
``/work/torch_upstream/<version>/torch/...``) and records, for each target in ``TARGETS`` and each
release: the function's text (``ast.unparse``: no comments, no docstrings), its module, and what its
free names are bound to there; and, per target, every FSDP2 function that calls it with whether that
caller runs under ``torch.no_grad`` (the fact behind the ``no-grad`` normalisation).

It also writes ``fsdp_unpatch/data/upstream_releases.json``: every module-level function and every method of
the FSDP2 package of each release, deduplicated across releases (``fsdp_unpatch/fingerprint/releases.py``), which
``fsdp-unpatch upgrade`` compares.

``--check`` regenerates in memory and exits 1 when a file differs (CI runs it in the test suite). With the
sources of only some of the releases the file was generated from (a machine that fetched two), it checks
those releases' part: every entry of theirs, and every body and name list they reach, must be what the file holds.
To cover another FSDP2 function, add its id to ``TARGETS``: ``<module>.<function>``,
``<module>.<Class>.<method>`` or ``ops.<namespace>.<op>``.

Usage::

    python scripts/gen_fingerprints.py [SOURCES_DIR] [-o PATH] [--check]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from fsdp_unpatch.fingerprint import releases  # noqa: E402
from fsdp_unpatch.fingerprint import upstream as up  # noqa: E402

TARGETS = (
    # removable: native FSDP2 covers them
    "_fsdp_collectives._get_param_all_gather_inputs",
    "ops.fsdp.all_gather_copy_in",
    "_fsdp_param_group.FSDPParamGroup.finalize_backward",
    # overridden by the enhance patch (kept) or worth a review: recorded so that reports can say which
    # upstream release a copy follows and what it changed
    "_fsdp_collectives.foreach_all_gather",
    "_fsdp_collectives.foreach_reduce",
    "_fsdp_collectives.DefaultAllGather.allocate",
    "_fsdp_collectives.DefaultReduceScatter.allocate",
    "_fsdp_param_group.FSDPParamGroup.__init__",
    "_fsdp_param_group.FSDPParamGroup.post_forward",
    "_fsdp_param_group.FSDPParamGroup.post_backward",
    "_fsdp_param_group.FSDPParamGroup._wait_all_gather_streams_on_event",
    "_fsdp_state.FSDPState._post_forward",
    "_fsdp_state.FSDPState._root_pre_forward",
)


# Where scripts/fetch_torch_sources.py puts the sources (shared by the engineers of a machine).
DEFAULT_SOURCES = Path.home() / ".cache" / "fsdp-unpatch" / "torch"


def _catalog_newest() -> tuple[int, ...]:
    """The newest minor release the catalog knows: the comparisons of `check` follow the catalog's releases
    (a newer torch is in upstream_releases.json, for `upgrade`, until the catalog is regenerated for it)."""
    # the source, not its compiled form: that is older until scripts/compile_data.py runs
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python < 3.11
        import tomli as tomllib
    from fsdp_unpatch.data import DATA_DIR

    with open(DATA_DIR / "catalog.toml", "rb") as handle:
        return up.version_key(tomllib.load(handle)["catalog"]["newest_torch"])[:2]


def generate(sources: Path) -> str:
    dirs = up.version_dirs([sources])
    versions = [v for v in sorted(dirs, key=up.version_key) if up.version_key(v)[:2] <= _catalog_newest()]
    data = up.to_json(
        up.read_dirs({v: dirs[v] for v in versions}, TARGETS),
        f"torch {', '.join(versions)} (FSDP2 python sources of the released wheels), by scripts/gen_fingerprints.py",
    )
    for target in TARGETS:
        if target not in data["targets"]:
            print(f"warning: {target} found in no version", file=sys.stderr)
    return json.dumps(data, indent=1, sort_keys=False) + "\n"


def generate_releases(sources: Path) -> str:
    dirs = up.version_dirs([sources])
    versions = sorted(dirs, key=up.version_key)
    data = releases.to_json(
        {v: releases.read_package(dirs[v]) for v in versions},
        f"torch {', '.join(versions)} (FSDP2 python sources of the released wheels), by scripts/gen_fingerprints.py",
    )
    return json.dumps(data, indent=0, sort_keys=False) + "\n"


VERSION = re.compile(r"\d+\.\d+(\.\d+)?([a-z.+].*)?$")


def _versions_of(data: dict) -> set[str]:
    """The releases a data file was generated from (its `generated_from` line names them)."""
    named = data.get("generated_from", "").removeprefix("torch ").split(" (", 1)[0]
    return {v.strip() for v in named.split(",") if v.strip()}


def slice_differences(stored, generated, present: set[str], where: str = "") -> list[str]:
    """Where `generated` (from the sources of the `present` releases only) differs from the part of `stored`
    that concerns them: an entry keyed by a present release must be equal; one keyed by another release is
    not compared; any other key `generated` has must be in `stored`, with an equal slice."""
    if isinstance(stored, dict) and isinstance(generated, dict):
        found = []
        for key in sorted(set(stored) | set(generated)):
            if key == "generated_from" or (VERSION.match(key) and key not in present):
                continue
            at = f"{where}/{key}"
            if key not in generated:
                if VERSION.match(key):
                    found.append(f"{at}: not generated")
                continue  # an entry of other releases only
            if key not in stored:
                found.append(f"{at}: not in the file")
                continue
            found += slice_differences(stored[key], generated[key], present, at)
        return found
    if (
        isinstance(stored, list)
        and isinstance(generated, list)
        and all(isinstance(v, str) and VERSION.match(v) for v in stored)
    ):
        return [] if set(generated) <= set(stored) else [f"{where}: releases {sorted(set(generated) - set(stored))}"]
    return [] if stored == generated else [f"{where}: differs"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sources", nargs="?", type=Path, default=DEFAULT_SOURCES)
    ap.add_argument("-o", "--output", type=Path, default=up.DATA_PATH)
    ap.add_argument("--releases-output", type=Path, default=releases.DATA_PATH)
    ap.add_argument("--check", action="store_true", help="exit 1 if the data file is not up to date")
    args = ap.parse_args(argv)
    if not up.version_dirs([args.sources]):
        print(f"no torch sources under {args.sources}", file=sys.stderr)
        return 2
    outputs = {args.output: generate(args.sources), args.releases_output: generate_releases(args.sources)}
    stale = False
    for output, text in outputs.items():
        if args.check:
            current = output.read_text(encoding="utf-8") if output.is_file() else ""
            fresh = json.loads(text)
            stored = json.loads(current) if current else {}
            present = _versions_of(fresh)
            if current and present < _versions_of(stored):
                differences = slice_differences(stored, fresh, present)
                for difference in differences[:10]:
                    print(f"{output}{difference}", file=sys.stderr)
                stale |= bool(differences)
                verdict = "is out of date" if differences else "is up to date"
                print(f"{output} {verdict} for the {len(present)} of {len(_versions_of(stored))} releases here")
            elif current != text:
                print(f"{output} is out of date: run scripts/gen_fingerprints.py", file=sys.stderr)
                stale = True
            else:
                print(f"{output} is up to date")
            continue
        output.write_text(text, encoding="utf-8")
        print(f"wrote {output}")
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
