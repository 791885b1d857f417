"""Every string that autogradviz shows a learner, in English and Simplified Chinese.

One table, so a translation is a table edit, and a test (tests/test_ui_text.py)
checks that every key has both languages and the same `{fields}` in each.

    agv.set_language("zh")     # every drawing, stepper and monitor made after this
    text("stepper.next")       # "前进 ▶"

English is the default. Objects that show text take `language=` too, so one
cell can show Chinese while the rest of the notebook is English.
"""

from __future__ import annotations

import string

LANGUAGES = ("en", "zh")
_ALIASES = {"zh-cn": "zh", "zh_cn": "zh", "zh-hans": "zh", "cn": "zh", "en-us": "en", "en_us": "en"}

_current = {"language": "en"}


def _normalise(language: str) -> str:
    if not isinstance(language, str):
        raise TypeError(f"set_language(): language must be a string such as 'en' or 'zh', got {language!r}")
    key = language.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in LANGUAGES:
        raise ValueError(f"set_language(): unknown language {language!r}; autogradviz speaks 'en' and 'zh'")
    return key


def set_language(language: str) -> None:
    """Choose the language of everything autogradviz shows from now on: 'en' or 'zh'."""
    _current["language"] = _normalise(language)


def get_language() -> str:
    """The language set by `set_language` ('en' unless changed)."""
    return _current["language"]


def resolve_language(language: str | None) -> str:
    """`language` if given (checked), else the current one."""
    return get_language() if language is None else _normalise(language)


def text(key: str, language: str | None = None, **fields) -> str:
    """The string `key` in `language` (default: the current one), with `{fields}` filled in."""
    entry = TABLE[key]
    template = entry[resolve_language(language)]
    return template.format(**fields) if fields else template


def fields_of(template: str) -> set[str]:
    """The `{names}` a template expects (used by the table's test)."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


# key: {"en": ..., "zh": ...}. Keep the sections; each belongs to one part of the UI.
TABLE: dict[str, dict[str, str]] = {
    # --- drawings (viz/) ---
    # --- the BackwardStepper (widgets/stepper.*) ---
    # --- the TrainingMonitor (widgets/monitor.py) ---
    # --- lessons and exercises (checks, hints) ---
}
