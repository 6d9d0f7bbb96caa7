"""The message catalogue: every code in both languages, with the same placeholders."""

from __future__ import annotations

import string

from assistant.messages import catalogue


def _names(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_code_has_zh_and_en_with_the_same_placeholders() -> None:
    for code, texts in catalogue().items():
        assert _names(texts["zh"]) == _names(texts["en"]), code


def test_chinese_text_has_no_english_sentence_and_english_has_no_chinese() -> None:
    for code, texts in catalogue().items():
        assert not any("\u4e00" <= ch <= "\u9fff" for ch in texts["en"]), code
        # a zh text is Chinese words, or at least Chinese punctuation ("、", "（…）") around figures and names
        chinese = any(
            "\u4e00" <= ch <= "\u9fff" or "\u3000" <= ch <= "\u303f" or "\uff00" <= ch <= "\uffef" for ch in texts["zh"]
        )
        assert chinese or code.startswith("hardware."), code
