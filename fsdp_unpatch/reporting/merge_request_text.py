"""Every sentence of the merge-request description (`fix --report`), in one place, marked for translation.

Each template is marked with `N_` where it is defined and translated with `gettext` where it is used
(`say`), so a catalog extracted from this module translates the whole description; placeholders are
`{name}` fields, filled after translation. Codes, paths, names and `status` words stay as they are.
"""

from __future__ import annotations

from fsdp_unpatch.i18n import N_
from fsdp_unpatch.i18n import gettext as _

TITLE = N_("Remove the FSDP2 collectives overrides that native FSDP2 now covers")
PREVIEW = N_("Preview (`fix --diff`): nothing was written; this is what `fix` would change.")

H_SUMMARY = N_("Summary")
S_REMOVED = N_("Overrides removed: {count}")
S_ALSO = N_("Code removed with them (replacement functions, installers, their calls and references): {count}")
S_KEPT = N_("Patches kept on purpose: {count}")
S_REVIEW = N_("Findings left for review: {count}")
S_FILES = N_("Files changed: {count}")
S_TORCH = N_("Target torch: {torch} ({origin})")
S_TORCH_NEWER = N_("Target torch: {torch} ({origin}), newer than every release known ({newest}): judged as {newest}")

H_REMOVED = N_("Removed overrides")
REMOVED_INTRO = N_(
    "Each override below replaced an FSDP2 internal only to pass `non_blocking=True` to a same-device "
    "`torch._foreach_copy_` (or to use a hard-coded NPU stream). Its replacement is proven to be the upstream "
    "function plus that tweak; the proof is on its line."
)
REMOVED_ITEM = N_("`{target}` at `{where}`: {proof}")
NONE_REMOVED = N_("No override was removed.")

H_ALSO = N_("Removed with them")
ALSO_ITEM = N_("{code} {name} at `{where}`: {message}")

H_KEPT = N_("Kept on purpose")
KEPT_INTRO = N_(
    "These patches have no native counterpart (the enhance patch: the NPU memory cache, the allocate "
    "overrides, the `foreach_reduce` wrapper, the forward and backward state handling). They are left byte "
    "for byte as they were."
)
KEPT_ITEM = N_("`{target}` at `{where}`: {why}")
NONE_KEPT = N_("Nothing is kept.")

H_REVIEW = N_("Left for review")
REVIEW_INTRO = N_("The tool did not change these; each needs a person's decision.")
REVIEW_ITEM = N_("{code} [{category}] at `{where}`: {message}")
HELD_BACK = N_("its fix is held back: {why}")
UNSAFE = N_("its fix changes what a test suite checks: apply it with `fsdp-unpatch fix --unsafe-fixes`")
NONE_REVIEW = N_("Nothing is left for review.")

H_FILES = N_("Files changed")
FILE_CHANGED = N_("`{path}`")
FILE_DELETED = N_("`{path}` (deleted)")
NONE_FILES = N_("No file was changed.")

H_PRECONDITION = N_("Precondition")
PRECONDITION = N_(
    "Merge this only together with the op-plugin release whose `_foreach_copy_` fast path gives same-device "
    "copies device-async semantics (section 3.1 of the design review). Without it, native FSDP2's copy-in "
    "makes the host wait for every copy."
)
DOCTOR_NOT_RUN = N_(
    "Not checked with this report. On the accelerator machine, run "
    "`fsdp-unpatch doctor --output-format json > doctor.json` and pass `--doctor-report doctor.json`."
)
DOCTOR_SOURCE = N_(
    "`fsdp-unpatch doctor` ({file}): torch {torch}, device {device}; {ok} ok, {warn} warn, {fail} fail, {skip} skip."
)
DOCTOR_CHECK = N_("{status}: {name}: {message}")
DOCTOR_HOLDS = N_("The device-async probe passed: the precondition holds where doctor ran.")
DOCTOR_FAILS = N_(
    "The device-async probe failed: install the op-plugin release with the device-async fast path before merging."
)
DOCTOR_UNDECIDED = N_(
    "The device-async probe did not decide ({status}): run doctor on the accelerator machine, with the "
    "op-plugin release installed."
)
UNKNOWN = N_("unknown")

H_VERIFY = N_("Verification")
VERIFY_NOT_RUN = N_(
    "Not given. `fsdp-unpatch verify PATH --output-format json > verify.json` trains a small FSDP2 job with "
    "the old patch and with the migrated code; pass `--verify-report verify.json`."
)
VERIFY_MATCH = N_(
    "`fsdp-unpatch verify` ({file}): the patched and migrated runs match: {steps} steps and {tensors} tensors "
    "compared, {comparison}; device {device}, {world} processes."
)
VERIFY_DIFFER = N_(
    "`fsdp-unpatch verify` ({file}): the patched and migrated runs differ ({comparison}), first at step {step} "
    "of configuration {config}. Find out why before merging."
)
VERIFY_TARGETS_DIFFER = N_(
    "`fsdp-unpatch verify` ({file}): the losses and tensors match ({comparison}), but the migrated run no "
    "longer installs every enhance target."
)
VERIFY_ENHANCE_KEPT = N_("The migrated run still installs the enhance patch ({count} targets).")
VERIFY_ENHANCE_MISSING = N_("Enhance targets the migrated run no longer installs: {targets}.")

FOOTER = N_("Written by fsdp-unpatch {version} (`fsdp-unpatch fix --report`).")


def say(template: str, /, **fields: object) -> str:
    """`template` in the reader's language, its placeholders filled."""
    return _(template).format(**fields)
