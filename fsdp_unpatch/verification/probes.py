"""The checks of `fsdp-unpatch doctor`: what removing the collectives patch depends on, on this machine.

Each probe returns `Check`s with a status:

- ok:   the precondition holds;
- warn: it cannot be confirmed here, or something looks off without being wrong;
- fail: it does not hold: removing the patch here would change behaviour;
- skip: the check does not apply (for example the device-async probe on a CPU-only machine).

A check's name and message are `Phrase`s: English in the JSON form, in the reader's language in the table.

Nothing here imports torch at module import time; torch's version is read from package metadata.
The (target, native-since version) pairs that the version check compares against are passed in as
data: the command builds them from the catalog and the overrides the engine finds in the scanned tree.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import statistics
import time
from dataclasses import asdict, dataclass, field
from typing import Iterable, Optional, Sequence

from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.i18n import Phrase

STATUSES = ("ok", "warn", "fail", "skip")

# device type -> the dispatch key its kernels are registered under
DISPATCH_KEYS = {"cpu": "CPU", "cuda": "CUDA", "xpu": "XPU", "hpu": "HPU", "mtia": "MTIA", "meta": "Meta"}
# The FSDP2 custom ops native FSDP2 calls on every step (copy-in, copy-out, reduce-scatter copy-in).
FSDP_OPS = ("fsdp::all_gather_copy_in", "fsdp::split_with_sizes_copy", "fsdp::chunk_cat")
# Accelerator plugins by distribution name -> (device type, the torch release they pair with is their X.Y)
KNOWN_PLUGINS = {
    "torch-npu": "npu",
    "torch_npu": "npu",
    "intel-extension-for-pytorch": "xpu",
    "habana-torch-plugin": "hpu",
    "torch-mlu": "mlu",
    "torch-musa": "musa",
    "torch-gcu": "gcu",
}


@dataclass
class Check:
    name: str
    status: str
    message: str
    details: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Requirement:
    """An override found in the scanned tree (or named by the catalog) and the torch release from
    which native FSDP2 covers it on non-CUDA devices."""

    target: str
    since: str
    where: Optional[str] = None  # "path:line" of the first install site found


def distribution_version(name: str) -> Optional[str]:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


# ---------------------------------------------------------------------------------------------
# torch version against the native-since versions
# ---------------------------------------------------------------------------------------------
INSTALL_TORCH = "pip install 'fsdp-unpatch[verify]'"


def check_torch_installed(installed: Optional[str], target_torch: Optional[str]) -> Check:
    if installed is None:
        if target_torch:
            return Check(
                "torch",
                "warn",
                Phrase("not installed here; the version checks use --target-torch {version}", version=target_torch),
            )
        return Check(
            "torch", "fail", Phrase("not installed: install the torch the project pins ({hint})", hint=INSTALL_TORCH)
        )
    if target_torch:
        message = Phrase(
            "{version} (package metadata); the version checks use --target-torch {target}",
            version=installed,
            target=target_torch,
        )
    else:
        message = Phrase("{version} (package metadata)", version=installed)
    return Check("torch", "ok", message, {"version": installed})


def check_torch_versions(version: Optional[str], source: str, requirements: Sequence[Requirement]) -> list[Check]:
    """One check per requirement: is `version` (from `source`) at least the native-since release?"""
    if version is None:
        return [
            Check(_requirement(r), "skip", Phrase("no torch version to compare (none installed)")) for r in requirements
        ]
    current = Version.parse(version)
    checks = []
    for r in requirements:
        where = Phrase(" (overridden at {where})", where=r.where) if r.where else ""
        details = {"target": r.target, "since": r.since, "torch": str(current), "source": source, "where": r.where}
        fields = {"source": source, "version": str(current), "since": r.since, "where": where}
        if current >= Version.parse(r.since):
            message = Phrase(
                "{source} {version}: the native path serves non-CUDA devices since {since}{where}", **fields
            )
            checks.append(Check(_requirement(r), "ok", message, details))
        else:
            message = Phrase(
                "{source} {version} is older than {since}, where the native path starts serving non-CUDA devices: "
                "keep this override on this branch{where}",
                **fields,
            )
            checks.append(Check(_requirement(r), "fail", message, details))
    return checks


def _requirement(requirement: Requirement) -> Phrase:
    return Phrase("torch >= {since} for {target}", since=requirement.since, target=requirement.target)


# ---------------------------------------------------------------------------------------------
# Kernels of the native FSDP ops
# ---------------------------------------------------------------------------------------------
def dispatch_key_for(device: str) -> str:
    device_type = device.split(":")[0]
    if device_type in DISPATCH_KEYS:
        return DISPATCH_KEYS[device_type]
    return "PrivateUse1"  # npu and every other out-of-tree backend


def check_fsdp_kernels(keys: Sequence[str], ops: Sequence[str] = FSDP_OPS) -> list[Check]:
    """Does each native FSDP op have a kernel for each dispatch key? (imports torch)"""
    import torch

    try:
        # Importing FSDP2's collectives module defines the torch.ops.fsdp ops and their kernels.
        importlib.import_module("torch.distributed.fsdp._fully_shard._fsdp_collectives")
    except ImportError:
        try:
            importlib.import_module("torch.distributed._composable.fsdp._fsdp_collectives")
        except ImportError as exc:
            return [
                Check(
                    Phrase("native FSDP ops"),
                    "fail",
                    Phrase("this torch has no FSDP2 collectives module ({error})", error=str(exc)),
                )
            ]
    checks = []
    for key in keys:
        have: list[str] = []
        missing: list[str] = []
        undefined: list[str] = []
        for op in ops:
            try:
                (have if torch._C._dispatch_has_kernel_for_dispatch_key(op, key) else missing).append(op)
            except RuntimeError:  # the op is not defined in this torch
                undefined.append(op)
        name = Phrase("native FSDP op kernels [{key}]", key=key)
        details = {"key": key, "registered": have, "missing": missing, "undefined": undefined}
        if not missing and not undefined:
            checks.append(Check(name, "ok", Phrase("registered: {ops}", ops=", ".join(have)), details))
            continue
        no_kernel = Phrase("no {key} kernel for {ops}", key=key, ops=", ".join(missing)) if missing else None
        not_defined = Phrase("not defined in this torch: {ops}", ops=", ".join(undefined)) if undefined else None
        parts = [part for part in (no_kernel, not_defined) if part is not None]
        problems = parts[0] if len(parts) == 1 else Phrase("{first}; {second}", first=parts[0], second=parts[1])
        message = Phrase(
            "{problems}: native FSDP2 cannot run there (the override, or a registration of the native kernel, is "
            "still needed)",
            problems=problems,
        )
        checks.append(Check(name, "fail", message, details))
    return checks


def check_foreach_copy_kernel(device: str) -> Check:
    """Whether `aten::_foreach_copy_` has a backend kernel (its fast path) for the device."""
    import torch

    key = dispatch_key_for(device)
    name = Phrase("kernel aten::_foreach_copy_ [{key}]", key=key)
    if device.split(":")[0] == "cpu":
        return Check(name, "skip", Phrase("does not apply on CPU: the copy runs on the host (composite kernel)"))
    if torch._C._dispatch_has_kernel_for_dispatch_key("aten::_foreach_copy_", key):
        return Check(name, "ok", Phrase("the backend registers its own _foreach_copy_ (the fast path exists)"))
    return Check(
        name,
        "warn",
        Phrase(
            "only the composite fallback (per-tensor copy_ honouring non_blocking): no backend fast path to be "
            "device-async"
        ),
    )


# ---------------------------------------------------------------------------------------------
# Accelerator plugins
# ---------------------------------------------------------------------------------------------
def installed_plugins() -> dict[str, str]:
    """Distribution name -> version of the accelerator plugins installed (no import)."""
    found: dict[str, str] = {}
    for name in KNOWN_PLUGINS:
        version = distribution_version(name)
        if version is not None:
            found[name.replace("_", "-")] = version
    try:
        for entry in importlib.metadata.entry_points(group="torch.backends"):
            dist = getattr(entry, "dist", None)
            if dist is not None and dist.metadata["Name"]:
                found.setdefault(dist.metadata["Name"], dist.version)
    except Exception:  # entry point metadata is best effort
        pass
    return found


def check_plugins(plugins: dict[str, str], torch_version: Optional[str]) -> list[Check]:
    if not plugins:
        return [
            Check(
                Phrase("accelerator plugin"),
                "warn",
                Phrase(
                    "none installed (torch_npu not found): the backend side of the migration (the device-async "
                    "_foreach_copy_ fast path of the op-plugin release) cannot be checked on this machine"
                ),
            )
        ]
    checks = []
    for name, version in sorted(plugins.items()):
        details = {"distribution": name, "version": version}
        message = f"{name} {version}"
        status = "ok"
        if torch_version is not None and name in ("torch-npu",):
            try:
                pairs = Version.parse(version)
                if pairs != Version.parse(torch_version):
                    status = "warn"
                    message = Phrase(
                        "{plugin} is built for torch {pairs}, but torch {torch} is installed",
                        plugin=message,
                        pairs=str(pairs),
                        torch=str(Version.parse(torch_version)),
                    )
            except ValueError:
                pass
        checks.append(Check(Phrase("accelerator plugin {name}", name=name), status, message, details))
    return checks


# ---------------------------------------------------------------------------------------------
# Runtime probe: does a large same-device _foreach_copy_ return before the copy completes?
# ---------------------------------------------------------------------------------------------
def classify_async(return_seconds: float, synced_seconds: float, minimum: float = 2e-4) -> tuple[str, str]:
    """Status and reason from the host-return time and the time until a forced synchronize."""
    ratio = return_seconds / synced_seconds if synced_seconds > 0 else 1.0
    timing = Phrase(
        "host returned after {returned:.3f} ms, copy done after {done:.3f} ms",
        returned=return_seconds * 1e3,
        done=synced_seconds * 1e3,
    )
    if synced_seconds < minimum:
        return "warn", Phrase("{timing}: too fast to tell, the probe is inconclusive", timing=timing)
    if ratio < 0.5:
        return "ok", Phrase("{timing}: device-async (the host does not wait for the copy)", timing=timing)
    return "fail", Phrase(
        "{timing}: the host waited for the copy. Without the Python patch's non_blocking=True, FSDP2's copy-in "
        "would block the host: install the op-plugin release with the device-async fast path first",
        timing=timing,
    )


ASYNC_PROBE = Phrase("_foreach_copy_ device-async probe")


def probe_foreach_copy_async(device: str, megabytes: int = 256, tensors: int = 8, repeats: int = 5) -> Check:
    name = ASYNC_PROBE
    device_type = device.split(":")[0]
    if device_type == "cpu":
        return Check(
            name,
            "skip",
            Phrase(
                "does not apply on a CPU-only machine: a CPU copy is host work, there is no device queue to return "
                "early from (run doctor on the accelerator machine)"
            ),
        )
    import torch

    if device_type == "npu":
        importlib.import_module("torch_npu")
    module = torch.get_device_module(device_type)
    numel = megabytes * 2**20 // 4 // tensors
    src = [torch.ones(numel, dtype=torch.float32, device=device) for _ in range(tensors)]
    dst = [torch.empty_like(t) for t in src]
    torch._foreach_copy_(dst, src)  # warm-up: kernels, allocator
    module.synchronize()
    returns, totals = [], []
    for _ in range(repeats):
        module.synchronize()
        start = time.perf_counter()
        torch._foreach_copy_(dst, src)  # as native FSDP2 calls it: no non_blocking argument
        returned = time.perf_counter()
        module.synchronize()
        done = time.perf_counter()
        returns.append(returned - start)
        totals.append(done - start)
    ret, total = statistics.median(returns), statistics.median(totals)
    status, message = classify_async(ret, total)
    return Check(name, status, message, {"return_seconds": ret, "synced_seconds": total, "megabytes": megabytes})


# ---------------------------------------------------------------------------------------------
# Devices
# ---------------------------------------------------------------------------------------------
def detect_device() -> str:
    """The accelerator's device type if there is one, else "cpu" (imports torch)."""
    import torch

    accelerator = getattr(torch, "accelerator", None)
    if accelerator is not None and accelerator.is_available():
        return accelerator.current_accelerator().type
    if importlib.util.find_spec("torch_npu") is not None:  # a plugin that does not autoload
        try:
            importlib.import_module("torch_npu")
            if torch.npu.is_available():  # type: ignore[attr-defined]  # torch_npu adds it
                return "npu"
        except Exception:
            pass
    if torch.cuda.is_available():
        return "cuda"
    return "cpu"


def summarize(checks: Iterable[Check]) -> dict[str, int]:
    counts = {status: 0 for status in STATUSES}
    for check in checks:
        counts[check.status] += 1
    return counts


def exit_code(checks: Iterable[Check]) -> int:
    return 1 if any(c.status == "fail" for c in checks) else 0


def requirements_for(targets: dict[str, Optional[str]], native_since: dict[str, str]) -> list[Requirement]:
    """Requirements for the found targets (target -> first install site) that have a native-since."""
    return [Requirement(t, native_since[t], where) for t, where in sorted(targets.items()) if t in native_since]


def native_since_table(categories: Optional[Sequence[str]] = None) -> dict[str, str]:
    """Catalog target id -> first torch release whose native FSDP2 covers it on non-CUDA devices
    (only targets of `categories`, when given)."""
    from fsdp_unpatch.catalog import load_catalog

    return {
        t.id: t.native_since
        for t in load_catalog().targets.values()
        if t.native_since and (categories is None or t.category in categories)
    }


def scan_overrides(paths: Sequence[str], target_torch: Version) -> dict[str, Optional[str]]:
    """Catalog targets that the tree under `paths` overrides -> "path:line" of the first site.

    Uses the analysis engine of `fsdp-unpatch check`. Raises discovery.MissingPath for a bad path.
    """
    from fsdp_unpatch.analysis.plan import Options
    from fsdp_unpatch.catalog import load_catalog
    from fsdp_unpatch.config.discovery import discover
    from fsdp_unpatch.model import RunOptions
    from fsdp_unpatch.run.batch import run

    result = run(
        list(discover(paths)), load_catalog(), RunOptions(analysis=Options(target_torch=target_torch), write=False)
    )
    found: dict[str, Optional[str]] = {}
    for finding in result.findings:
        if finding.target and finding.category != "error":
            found.setdefault(finding.target, f"{finding.path}:{finding.span.line}")
    return found
