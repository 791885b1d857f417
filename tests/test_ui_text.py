"""The one table of UI strings: every key in both languages, with the same fields."""

import pytest

import autogradviz as agv
from autogradviz import ui_text


@pytest.mark.parametrize("key", sorted(ui_text.TABLE))
def test_every_key_has_both_languages_with_the_same_fields(key):
    entry = ui_text.TABLE[key]
    assert set(entry) == set(ui_text.LANGUAGES), key
    for language in ui_text.LANGUAGES:
        assert entry[language].strip(), (key, language)
    assert ui_text.fields_of(entry["en"]) == ui_text.fields_of(entry["zh"]), key


def test_chinese_strings_are_chinese():
    # a key whose Chinese is its English is an untranslated key (symbols-only strings excepted)
    untranslated = [
        key
        for key, entry in ui_text.TABLE.items()
        if entry["zh"] == entry["en"]
        and any(ch.isalpha() and ch.isascii() for ch in entry["en"])
        and not key.endswith(".same")
    ]
    assert untranslated == []


def test_set_language_switches_and_checks():
    assert agv.get_language() == "en"
    try:
        agv.set_language("zh-CN")
        assert agv.get_language() == "zh"
        agv.set_language("en")
        assert agv.get_language() == "en"
        with pytest.raises(ValueError, match=r"unknown language 'fr'; autogradviz speaks 'en' and 'zh'"):
            agv.set_language("fr")
        assert agv.get_language() == "en"
        with pytest.raises(TypeError, match="language must be a string"):
            agv.set_language(None)
    finally:
        agv.set_language("en")
