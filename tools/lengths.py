"""Text lengths in the user's units (characters, words, pages) converted to tokens, with the ratio's source.

People size prompts as "800 个汉字" or "two pages of English"; the estimator needs tokens. The ratios are
published rules of thumb per language (``tools/data/token_ratios.yaml``, each with its source); the real
count depends on the model's tokenizer, so the result says which ratio it used.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tools.errors import input_problem

TextUnit = Literal["tokens", "zh_characters", "en_characters", "en_words", "pages"]
RATIOS_FILE = Path(__file__).parent / "data" / "token_ratios.yaml"
MAX_AMOUNT = 10_000_000


class TokenRatio(BaseModel):
    """Tokens per unit of text in one language, with where the figure comes from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    unit: Literal["zh_characters", "en_characters", "en_words", "pages"]
    tokens_per_unit: float = Field(gt=0)
    source: str = Field(min_length=8)
    note: str


class _RatioFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ratios: list[TokenRatio]


class TokenCount(BaseModel):
    """A length converted to tokens."""

    model_config = ConfigDict(extra="forbid")

    amount: float = Field(description="the length as the user gave it")
    unit: TextUnit
    tokens: int = Field(description="tokens, rounded up")
    tokens_per_unit: float
    source: str | None = Field(description="where the ratio comes from; None when the unit is already tokens")
    note: str | None = None


@cache
def load_ratios(path: Path = RATIOS_FILE) -> dict[str, TokenRatio]:
    """Read and validate the ratio table, keyed by unit."""
    try:
        table = _RatioFile.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except ValidationError as exc:
        raise ValueError(f"{path.name}: {exc}") from None
    return {r.unit: r for r in table.ratios}


def text_tokens(amount: float, unit: TextUnit) -> TokenCount:
    """Convert a text length in characters, words or pages into tokens (rounded up).

    Args:
        amount: How much text, in ``unit`` (positive, at most 10 million).
        unit: tokens, zh_characters (Chinese characters), en_characters, en_words or pages (English).

    Raises:
        ToolInputError: a length that is not positive or too large.
    """
    if not math.isfinite(amount) or amount <= 0 or amount > MAX_AMOUNT:
        raise input_problem("error.text_length", most=MAX_AMOUNT, amount=float(amount))
    if unit == "tokens":
        return TokenCount(amount=amount, unit=unit, tokens=math.ceil(amount), tokens_per_unit=1.0, source=None)
    ratio = load_ratios()[unit]
    return TokenCount(
        amount=amount,
        unit=unit,
        tokens=math.ceil(amount * ratio.tokens_per_unit),
        tokens_per_unit=ratio.tokens_per_unit,
        source=ratio.source,
        note=ratio.note,
    )
