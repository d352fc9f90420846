"""`--show-settings`: the settings a run resolves to, one `key = value` line each (TOML values)."""

from __future__ import annotations

import json
import os

from fsdp_unpatch import i18n
from fsdp_unpatch.config.request import Request
from fsdp_unpatch.run.session import Plan


def _value(value) -> str:
    if isinstance(value, (set, frozenset)):
        value = sorted(value)
    if isinstance(value, tuple):
        value = [list(v) if isinstance(v, tuple) else v for v in value]
    return json.dumps(value)


def settings_text(plan: Plan, request: Request) -> str:
    settings = plan.settings
    if not request.no_cache and not request.fix:
        cache = os.path.abspath(plan.cache.folder) if plan.cache is not None else "none (standard input)"
    else:
        cache = "none (--no-cache)" if request.no_cache else "none (fix never caches)"
    rows = [
        ("config", settings.config or "none (defaults)"),
        ("root", os.path.abspath(settings.root)),
        ("target-torch", f"{plan.target_torch} ({plan.target_torch_origin})"),
        ("select", settings.select),
        ("extend-select", settings.extend_select),
        ("ignore", settings.ignore),
        ("per-file-ignores", dict((glob, list(codes)) for glob, codes in settings.per_file_ignores)),
        ("exclude", settings.exclude if settings.exclude is not None else "default"),
        ("extend-exclude", settings.extend_exclude),
        ("respect-gitignore", settings.respect_gitignore),
        ("force-exclude", settings.force_exclude),
        ("keep", settings.keep),
        ("fixable", settings.fixable),
        ("unfixable", settings.unfixable),
        ("lang", i18n.language()),  # as chosen: --lang, else the configuration, else the locale
        # `fix --report`'s template as chosen: --template, else the configuration, else by the language
        ("report-template", settings.report_template or ("ascend" if i18n.language() == i18n.CHINESE else "plain")),
        ("design-doc", settings.design_doc or "none"),
        ("unsafe-fixes", request.unsafe_fixes),
        ("ignore-noqa", request.ignore_noqa),
        ("cache-dir", cache),
    ]
    return "".join(f"{key} = {_value(value)}\n" for key, value in rows)
