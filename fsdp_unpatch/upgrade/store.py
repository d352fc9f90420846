"""`fsdp-unpatch catalog add`: learn a torch release into the user catalog, one JSON file a release.

The folder is `catalog/learnt.py`'s (`--catalog-dir`, else `$FSDP_UNPATCH_CATALOG_DIR`, else the user data
folder of the platformdirs convention). A file is data only: the format of `data/upstream_releases.json` for
that one release (every FSDP2 function and method, each module's names), with an `upstream` part in the
format of `data/upstream.json` for the targets the proofs compare (their text, and what their free names are
bound to), so that `check` proves a copy of that release. It is validated when read: a bad file is an error
naming it, never a crash.
"""

from __future__ import annotations

import json
import re
import tempfile
import zipfile
from pathlib import Path
from typing import Optional

from fsdp_unpatch.catalog.learnt import ENVIRONMENT, catalog_folder
from fsdp_unpatch.data import read_data
from fsdp_unpatch.fingerprint import upstream
from fsdp_unpatch.fingerprint.releases import Release, learnt_releases, read_package, to_json
from fsdp_unpatch.fingerprint.upstream import FSDP2_DIRS
from fsdp_unpatch.i18n import Phrase

__all__ = ["ENVIRONMENT", "SourceError", "add", "catalog_folder", "learnt", "read_source"]


class SourceError(ValueError):
    """A SOURCE that holds no torch with FSDP2; the message (a `Phrase`) names it."""


def _version_from_metadata(text: str) -> Optional[str]:
    for line in text.splitlines():
        if not line.strip():
            break
        key, _, value = line.partition(":")
        if key.strip().lower() == "version":
            return value.strip().split("+")[0]
    return None


def _read_unpacked(root: Path) -> tuple[str, tuple]:
    """(version, package data) of a folder holding `torch/` (an unpacked wheel or a site-packages)."""
    package = next((root / rel for rel in FSDP2_DIRS if (root / rel / "_fsdp_collectives.py").is_file()), None)
    if package is None:
        raise SourceError(
            Phrase("{root}: no torch with FSDP2 here (expected torch/distributed/fsdp/_fully_shard/)", root=str(root))
        )
    version = None
    for info in sorted(root.glob("torch-*.dist-info")):
        metadata = info / "METADATA"
        if metadata.is_file():
            version = _version_from_metadata(metadata.read_text(encoding="utf-8", errors="replace"))
            break
    if version is None and (root / "torch" / "version.py").is_file():
        found = re.search(r"""^__version__\s*=\s*["']([^"']+)""", (root / "torch" / "version.py").read_text(), re.M)
        version = found.group(1).split("+")[0] if found else None
    if version is None:
        raise SourceError(
            Phrase(
                "{root}: the torch version is unknown (no torch-*.dist-info/METADATA, no torch/version.py)",
                root=str(root),
            )
        )
    return version, (*read_package(package), _proof_part(version, package))


def _proof_part(version: str, package: Path) -> dict:
    """The release's text of each target the proofs compare, in the format of `data/upstream.json`."""
    targets = upstream.from_json(read_data(upstream.DATA_PATH)).functions
    return upstream.to_json(upstream.read_dirs({version: package}, targets), f"torch {version}")


def read_source(source: Path) -> tuple[str, tuple]:
    """(version, package data) of a torch wheel, an unpacked torch, or a site-packages: (functions, names,
    the proof targets' part)."""
    if source.is_dir():
        return _read_unpacked(source.parent if source.name == "torch" else source)
    if not source.is_file():
        raise SourceError(Phrase("{path}: no such file or directory", path=str(source)))
    try:
        with zipfile.ZipFile(source) as wheel, tempfile.TemporaryDirectory() as tmp:
            wanted = [
                n
                for n in wheel.namelist()
                if n.endswith("/METADATA")
                and n.startswith("torch-")
                or n == "torch/version.py"
                or any(n.startswith(d + "/") and n.endswith(".py") and "/" not in n[len(d) + 1 :] for d in FSDP2_DIRS)
            ]
            for name in wanted:
                wheel.extract(name, tmp)
            return _read_unpacked(Path(tmp))
    except (zipfile.BadZipFile, OSError) as error:
        raise SourceError(
            Phrase("{source}: not a torch wheel ({error})", source=str(source), error=str(error))
        ) from None


def add(source: Path, folder: Path) -> tuple[str, Path]:
    """Learn the release of `source` into `folder`; (version, file written)."""
    version, (functions, names, proofs) = read_source(source)
    data = to_json({version: (functions, names)}, f"torch {version} from {source}, by fsdp-unpatch catalog add")
    data["source"] = str(source)
    data["upstream"] = proofs
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"torch-{version}.json"
    partial = path.with_suffix(".json.partial")
    partial.write_text(json.dumps(data, indent=0) + "\n", encoding="utf-8")
    partial.replace(path)  # a reader never sees half a file
    return version, path


def learnt(folder: Path) -> tuple[list[Release], list[str]]:
    """The releases of the user catalog, and an error per file that cannot be used (naming the file)."""
    return learnt_releases(folder)
