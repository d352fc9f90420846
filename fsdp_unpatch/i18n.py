"""The language of what people read: English, or Simplified Chinese (`zh-CN`).

Chosen by `--lang` (read by the command line before click builds any help), else `lang` in the
configuration, else the locale (`LC_ALL`, `LC_MESSAGES`, `LANG`, the first one set; `zh...` is Chinese).
The catalog is a gettext `.mo` under `fsdp_unpatch/locale/`, loaded with the standard library the first
time a Chinese string is asked for: an English run never reads it. Messages are looked up by their English
text (the msgid), so English needs no catalog at all.
"""

from __future__ import annotations

import functools
import os
import sys
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Optional, Union

if TYPE_CHECKING:
    import gettext as _gettext

ENGLISH, CHINESE = "en", "zh-CN"
LANGUAGES = (ENGLISH, CHINESE)
DOMAIN = "fsdp_unpatch"
LOCALE_DIR = os.path.join(os.path.dirname(__file__), "locale")
# the gettext folder of each language but English
CATALOG_FOLDERS = {CHINESE: "zh_CN"}
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")  # POSIX order: the first one set wins

_state = {"language": ENGLISH, "explicit": False}


class LanguageError(ValueError):
    """A language the tool has no catalog for; the message names the value and the choices."""


def normalise(value: str, where: str = "--lang") -> str:
    """`zh-CN`, `zh_CN`, `zh` -> "zh-CN"; `en`, `en_US` -> "en"; anything else is refused."""
    if not value.strip():  # `--lang` at the end, `--lang=` or `lang = ""`: say what a value may be
        raise LanguageError(
            gettext(
                "{where}: no language given (choose one of: {choices}; zh, zh_CN and en_US are accepted too)"
            ).format(where=where, choices=", ".join(LANGUAGES))
        )
    code = value.strip().replace("_", "-").lower()
    if code in ("en", "c", "posix") or code.startswith("en-"):
        return ENGLISH
    if code in ("zh", "zh-cn", "zh-hans", "zh-sg") or code.startswith("zh-hans"):
        return CHINESE
    raise LanguageError(
        gettext("{where}: unknown language {value} (choose one of: {choices})").format(
            where=where, value=repr(value), choices=", ".join(LANGUAGES)
        )
    )


def from_locale(environ: Mapping[str, str]) -> str:
    """The language of the user's locale: Chinese when it names any `zh` locale, else English."""
    for variable in LOCALE_VARIABLES:
        value = environ.get(variable, "")
        if value:
            return CHINESE if value.lower().startswith("zh") else ENGLISH
    return ENGLISH


def set_language(language: str, *, explicit: bool = False) -> None:
    """Use `language` from now on; `explicit` (a `--lang` flag) keeps the configuration from changing it."""
    _state["language"] = language
    _state["explicit"] = explicit


def use_configured(language: Optional[str]) -> None:
    """The configuration's `lang`, unless `--lang` was given."""
    if language is not None and not _state["explicit"]:
        _state["language"] = _shown(language)


def language() -> str:
    return str(_state["language"])


def split_lang_option(args: Iterable[str]) -> tuple[Optional[str], list[str]]:
    """(the `--lang` value or None, the arguments without it): `--lang X` or `--lang=X` anywhere before `--`."""
    value, rest = None, []
    items = iter(args)
    for arg in items:
        if arg == "--":
            rest.append(arg)
            rest.extend(items)
            break
        if arg == "--lang":
            value = next(items, "")
        elif arg.startswith("--lang="):
            value = arg[len("--lang=") :]
        else:
            rest.append(arg)
    return value, rest


def choose(argv_language: Optional[str], environ: Mapping[str, str] = os.environ) -> None:
    """At the start of a command: `--lang` if given, else the locale (the configuration may come later)."""
    if argv_language is not None:
        set_language(_shown(normalise(argv_language)), explicit=True)
    else:
        set_language(_shown(from_locale(environ)))


def _shown(language: str) -> str:
    """`language`, or English (with one warning) when standard output or error cannot encode it.

    English rather than escapes: `\\u5728` is no help to a reader, and a stream that cannot show Chinese is
    usually a pipe or log set up for English. What is still unencodable (a path) is escaped, never a crash.
    """
    if language == ENGLISH:
        return language
    streams = [stream for stream in (sys.stdout, sys.stderr) if stream is not None]
    unfit = [stream for stream in streams if not _encodes(stream, "中文")]
    if not unfit:
        return language
    for stream in unfit:
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    if not _state.get("warned"):
        _state["warned"] = True
        sys.stderr.write(
            f"fsdp-unpatch: warning: the output encoding ({unfit[0].encoding}) cannot show Chinese; writing English "
            f"(set PYTHONIOENCODING=utf-8 or use a UTF-8 locale to read {language})\n"
        )
    return ENGLISH


def _encodes(stream, text: str) -> bool:
    try:
        text.encode(getattr(stream, "encoding", None) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


@functools.cache
def _catalog(language: str) -> _gettext.NullTranslations:
    import gettext

    try:
        with open(_mo_path(language), "rb") as file:
            return gettext.GNUTranslations(file)
    except OSError:  # an installation without the catalog: English rather than a crash
        return gettext.NullTranslations()


def _mo_path(language: str) -> str:
    return os.path.join(LOCALE_DIR, CATALOG_FOLDERS[language], "LC_MESSAGES", f"{DOMAIN}.mo")


def gettext(message: str) -> str:
    """`message` in the current language (itself in English, or when the catalog lacks it)."""
    if _state["language"] == ENGLISH or not message:
        return message
    return _catalog(str(_state["language"])).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    if _state["language"] == ENGLISH:
        return singular if count == 1 else plural
    return _catalog(str(_state["language"])).ngettext(singular, plural, count)


def reason(why: str) -> str:
    """A catalog target's `why` in the current language (the message catalog holds it without its last period)."""
    if _state["language"] == ENGLISH:
        return why
    translated = gettext(why.rstrip("."))
    return why if translated == why.rstrip(".") else translated + gettext(".")


def sentences(parts: list[str]) -> str:
    """Sentences one after the other: a space between English ones, none between Chinese ones (each ends in 。)."""
    return ("" if _state["language"] == CHINESE else " ").join(parts)


def listed(items: Iterable[str]) -> str:
    """Items of a list in a sentence: `a, b` in English, `a、b` in Chinese."""
    return ("、" if _state["language"] == CHINESE else ", ").join(items)


def N_(message: str) -> str:  # noqa: N802 (gettext's name for a string marked for extraction, not translated here)
    return message


def N_plural(singular: str, plural: str) -> tuple[str, str]:  # noqa: N802 (N_ for an `ngettext` pair)
    return singular, plural


class Phrase(str):
    """English text made of a template and its fields, remembering both: what a report prints later, in the
    reader's language, from a message made where the language does not matter yet (a probe's result, an
    audited call site, an error raised deep down).

    It is the English text, a `str`: machine formats (JSON), logs, comparisons and `in` see that. `translated`
    gives it in the current language, each field that is itself a `Phrase` (or has a `translated()` method)
    translated in turn; other fields (names, code, paths, numbers) stay as they are. `scripts/i18n_catalog.py`
    extracts the template, the first argument, which must be one string literal (no expression: the extractor
    would join its strings).
    """

    template: str
    fields: dict

    def __new__(cls, template: str, /, **fields: object) -> Phrase:
        phrase = super().__new__(cls, template.format(**fields))
        phrase.template = template
        phrase.fields = fields
        return phrase

    def __getnewargs_ex__(self) -> tuple[tuple[str], dict]:  # pickle rebuilds it from its parts
        return (self.template,), self.fields

    def __copy__(self) -> Phrase:
        return self

    def __deepcopy__(self, memo: dict) -> Phrase:  # `dataclasses.asdict` copies fields: it is immutable
        return self

    def to_json(self) -> dict:
        """Its parts, for another process to rebuild it (`from_json`): fields are text, numbers or phrases."""
        fields = {name: value.to_json() if isinstance(value, Phrase) else value for name, value in self.fields.items()}
        return {"template": self.template, "fields": fields}

    @classmethod
    def from_json(cls, data: dict) -> Phrase:
        fields = {
            name: cls.from_json(value) if isinstance(value, dict) else value for name, value in data["fields"].items()
        }
        return cls(data["template"], **fields)

    def translated(self, lookup: Optional[Callable[[str], str]] = None) -> str:
        """In the current language; `lookup` (a `gettext`) looks its templates up instead of the catalog."""
        if lookup is None and _state["language"] == ENGLISH:
            return str(self)
        fields = {name: _translated_field(value, lookup) for name, value in self.fields.items()}
        return (lookup or gettext)(self.template).format(**fields)


def _translated_field(value: object, lookup: Optional[Callable[[str], str]]) -> object:
    """A field of a `Phrase`: translated when it can say itself in the current language (a `Phrase`, or any
    text with a `translated()` method, such as a finding's message), else as it is."""
    if isinstance(value, Phrase):
        return value.translated(lookup)
    method = getattr(value, "translated", None)
    return method() if callable(method) else value


def translated(text: Union[str, BaseException]) -> str:
    """A `Phrase`, or the message of an exception raised with one, in the current language; other text (and
    other exceptions' messages) as it is."""
    if isinstance(text, BaseException):
        message = text.args[0] if len(text.args) == 1 else None
        return message.translated() if isinstance(message, Phrase) else str(text)
    return text.translated() if isinstance(text, Phrase) else text
