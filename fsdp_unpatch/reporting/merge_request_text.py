"""Every sentence of the merge-request description (`fix --report`), in one place, marked for translation.

Each template is marked with `N_` where it is defined and translated with `gettext` where it is used
(`say`), so a catalog extracted from this module translates the whole description; placeholders are
`{name}` fields, filled after translation. Codes, paths, names and `status` words stay as they are.
"""

from __future__ import annotations

from fsdp_unpatch.i18n import N_, N_plural, Phrase
from fsdp_unpatch.i18n import gettext as _
from fsdp_unpatch.i18n import ngettext as _n

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

# Both templates -------------------------------------------------------------------------------------------
S_DESIGN = N_("Design document: {link}")
OUTSIDE_TARGET = N_(
    "No release of the target torch has the upstream body this copy matches: the proof names the newest "
    "release it matches."
)
H_CALL_SITES = N_("`_foreach_copy_` call sites")
CALL_SITES_INTRO = N_plural(
    "Every `torch._foreach_copy_` call site of the tree this change starts from, as `fsdp-unpatch audit "
    "foreach-copy` reports it: {count} in {files} file. Native FSDP2 and the call sites that stay reach the "
    "op-plugin fast path this change relies on; re-test them as the Re-test column says.",
    "Every `torch._foreach_copy_` call site of the tree this change starts from, as `fsdp-unpatch audit "
    "foreach-copy` reports it: {count} in {files} files. Native FSDP2 and the call sites that stay reach the "
    "op-plugin fast path this change relies on; re-test them as the Re-test column says.",
)
NO_CALL_SITES = N_("No `torch._foreach_copy_` call site (`fsdp-unpatch audit foreach-copy` found none).")
COLUMN_SITE = N_("Call site")
COLUMN_KIND = N_("Kind")
COLUMN_FAST_PATH = N_("Same-device fast path")
COLUMN_DECIDED = N_("What decides it")
COLUMN_RETEST = N_("Re-test")
COLUMN_CHANGE = N_("This change")
SITE_REMOVED = N_("removed")
SITE_STAYS = N_("stays")
SITE_ADDED = N_("added")

# The Ascend template (`--template ascend`): the sections of an Ascend merge request, whose headings and fixed
# choices are the template's own words (never translated); the sentences are the run's, in the reader's language.
ASCEND_SOURCE = "【合入来源】"
ASCEND_CHANGE = "【修改方案】"
ASCEND_DOCS = "【资料变更】"
ASCEND_INTERFACE = "【接口变更】"
ASCEND_VERIFY = "【功能验证】"
ASCEND_CHECKLIST = "【CheckList】"
ASCEND_HEADINGS = (ASCEND_SOURCE, ASCEND_CHANGE, ASCEND_DOCS, ASCEND_INTERFACE, ASCEND_VERIFY, ASCEND_CHECKLIST)
ASCEND_KINDS = ("需求", "问题单", "issue/工单", "重构优化", "资料更新")
ASCEND_KIND = "重构优化"  # removing overrides that native FSDP2 covers
# The template's own self-checks: the submitter ticks them
ASCEND_SELF_CHECKS = (
    "代码注释完备，正确记录错误日志",
    "代码实现进行了返回值、空指针等校验",
    "PR标题正确使用类型标签，如：feat、fix、refactor、docs、test等",
    "PR持续集成流水线（CI）执行通过，代码检查无异常",
)
A_SOURCE = N_(
    "Removes the FSDP2 collectives overrides that native FSDP2 now covers: the replacements were written only "
    "to pass `non_blocking=True` to a same-device `torch._foreach_copy_`, which the op-plugin fast path now "
    "does. Written by `fsdp-unpatch fix --report` from this change."
)
A_DESIGN = N_("Detailed design: {link}")
A_PLAN = N_(
    "Native FSDP2's own functions are used again; the op-plugin backend gives same-device copies the "
    "semantics the overrides added:"
)
A_REMOVED = N_("Delete {count} overrides that native FSDP2 now covers, each with its proof:")
A_NONE_REMOVED = N_("No override is deleted.")
A_ALSO = N_("Delete the code that goes with them (replacement functions, installers, their calls and references):")
A_KEPT = N_("Keep the patches that have no native counterpart (the enhance patch), byte for byte:")
A_NONE_KEPT = N_("No patch is kept.")
A_REVIEW = N_("Left for review (the tool did not change them; each needs a person's decision):")
A_NONE_REVIEW = N_("Nothing is left for review.")
A_FILES = N_("Files changed ({count}):")
A_NONE_FILES = N_("No file is changed.")
A_TORCH = N_("Target torch: {torch} ({origin}).")
A_PRECONDITION = N_("Precondition:")
A_DOCS_NONE = N_("Not involved: no documentation file is changed.")
A_DOCS_CHANGED = N_("Documentation files changed: {files}.")
A_INTERFACE_NONE = N_(
    "Not involved: no interface a user sees changes. The removed code overrode private FSDP2 internals and "
    "is private itself; FSDP2 is used as before."
)
A_INTERFACE_PUBLIC = N_("Names without a leading underscore are removed: {names}. Check that no user imports them.")
A_SCENARIOS = N_("Test scenarios:")
A_SCENARIO_NATIVE = N_("FSDP2 runs its native {targets} again, without the overrides.")
A_SCENARIO_KEPT = N_("The enhance patch is still installed ({count} patches kept).")
A_SCENARIO_SITES = N_("What the `_foreach_copy_` call sites of the table reach gives the same results; re-test:")
A_METHOD = N_("Test method:")
A_METHOD_VERIFY = N_(
    "`fsdp-unpatch verify PATH` trains a small FSDP2 job with the old patch and with the migrated code and "
    "compares them."
)
A_METHOD_DOCTOR = N_(
    "`fsdp-unpatch doctor` on the accelerator machine checks the precondition (the device-async probe)."
)
A_RESULTS = N_("Results:")
A_CHECK_PROOF = N_("Every deleted override carries its proof against a release of the target torch")
A_CHECK_PRECONDITION = N_("The precondition holds: doctor's device-async probe passed")
A_CHECK_VERIFY = N_("verify: the patched and migrated trainings match, and the enhance patch is still installed")
A_CHECK_REVIEW = N_("Nothing is left for review")


def say(template: str, /, **fields: object) -> str:
    """`template` in the reader's language, its placeholders filled."""
    return _(template).format(**fields)


def say_count(templates: tuple[str, str], count: int, /, **fields: object) -> str:
    """The form of a (singular, plural) pair for `count`, in the reader's language, its placeholders filled."""
    return _n(templates[0], templates[1], count).format(**fields)


def word(text: str) -> str:
    """A text marked for translation where it is made (the audit's labels), in the reader's language."""
    return _(text)


def sentence(text: str) -> str:
    """An audit's sentence (an `i18n.Phrase`: what decides a call site, what to re-test), in the reader's
    language; its templates are looked up here, like every other text of the description."""
    return text.translated(_) if isinstance(text, Phrase) else _(text)
