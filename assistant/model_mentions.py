"""Model names in a question: family words from the model registry, then the longest name that resolves.

"Qwen2.5 72B AWQ", "千问72B", "R1-Distill-Qwen-7B" and "llama 3 70b" all resolve through
:func:`tools.models.resolve_model`; a name with a size that resolves to nothing is kept as a failed lookup
so the answer can say which name it did not know, with suggestions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from assistant.reading import NUM, Scan, parse_number
from tools import vocabulary
from tools.errors import UnknownNameError
from tools.models import resolve_model

_FAMILY_WORDS = (
    r"通义千问|千问|qwen|qwq|llama|羊驼|deepseek|深度求索|chatglm|glm|智谱|mistral|mixtral|baichuan|百川|"
    r"gemma|phi|internlm|书生|yi|falcon|gpt-oss|minimax|kimi"
)


@lru_cache(maxsize=1)
def _model_start() -> re.Pattern[str]:
    """Words that start a model name: the Chinese nicknames here plus every family in the model registry."""
    words = "|".join(re.escape(w) for w in vocabulary.model_family_words())
    # A family word inside a longer hyphenated name ("R1-Distill-Qwen-7B") does not start a name.
    return re.compile(rf"(?<![A-Za-z])(?<![A-Za-z0-9]-)({_FAMILY_WORDS}|{words})", re.IGNORECASE)


# A dot inside a name ("Qwen2.5"), not the full stop after it ("... on Qwen2.5-7B. Expect 200 chats").
_PIECE = re.compile(r"[\s\-_]*([A-Za-z0-9](?:[A-Za-z0-9.]*[A-Za-z0-9])?|[\u4e00-\u9fff]+)")
# Words that may follow a family name inside a model name; anything else ends the name.
_NAME_WORDS = {
    "instruct",
    "chat",
    "coder",
    "math",
    "base",
    "vl",
    "moe",
    "distill",
    "it",
    "hf",
    "preview",
    "turbo",
    "plus",
    "max",
    "qwen",
    "llama",
    "r1",
    "v3",
    "v2",
    "v2.5",
    "v3.1",
    "v3.2",
    "lite",
    "air",
    "flash",
    "awq",
    "gptq",
    "int4",
    "int8",
    "fp8",
    "thinking",
}
_FORMAT_WORDS = {"awq", "gptq", "int4", "int8", "fp8"}
_CJK_NAME_WORDS = {"蒸馏版": "-distill", "蒸馏": "-distill"}
_SIZE_RE = re.compile(r"(?<![\d.])(\d{1,6}(?:\.\d{1,3})?)\s*[bB](?![A-Za-z])")


@dataclass
class ModelFind:
    name: str | None = None
    mention: str | None = None
    error: str | None = None
    span: tuple[int, int] | None = None


def _model_candidates(text: str, start: int) -> list[tuple[str, int]]:
    """Candidate names starting at a family word, longest first, each with the index where it ends."""
    family = _model_start().match(text, start)
    assert family is not None
    pieces = [(family.group(1), family.end())]
    pos = family.end()
    while len(pieces) < 6 and (m := _PIECE.match(text, pos)):
        word = m.group(1)
        if cjk_word := next((w for w in _CJK_NAME_WORDS if word.startswith(w)), None):
            # "R1 蒸馏版 32B" is the distilled model, not R1 itself
            pieces.append((_CJK_NAME_WORDS[cjk_word], m.start(1) + len(cjk_word)))
            pos = pieces[-1][1]
            continue
        is_cjk = bool(re.match(r"[\u4e00-\u9fff]", word))
        if is_cjk or (not any(ch.isdigit() for ch in word) and word.lower() not in _NAME_WORDS):
            break
        # A gap before a plain number ends the name ("qwen 72b 20 并发") unless a size follows ("llama 3 70b").
        if m.group(0)[:1].isspace() and re.fullmatch(r"\d+", word):
            after = _PIECE.match(text, m.end())
            if not (after and re.fullmatch(r"\d+(?:\.\d+)?[bB]", after.group(1))):
                break
        pieces.append((m.group(0), m.end()))
        pos = m.end()
    out = []
    for n in range(len(pieces), 0, -1):
        joined = "".join(p for p, _ in pieces[:n]).strip()
        out.append((joined, pieces[n - 1][1]))
    # Dropping "distill" names another model (R1 distilled to 32B is not the 671B R1): never fall back past it.
    distilled = [i for i, (cand, _) in enumerate(out) if "distill" in cand.lower()]
    return out[: distilled[-1] + 1] if distilled else out


@lru_cache(maxsize=4096)
def _resolved(name: str) -> str | None:
    """Return the canonical name ``name`` resolves to (None: unknown); cached for repeated names."""
    try:
        return resolve_model(name).name
    except UnknownNameError:
        return None


@lru_cache(maxsize=1024)
def _resolve_error(name: str) -> str | None:
    try:
        resolve_model(name)
    except UnknownNameError as exc:
        return str(exc)
    return None


def find_model(scan: Scan) -> ModelFind:
    found = ModelFind()
    for start in (m.start() for m in _model_start().finditer(scan.text)):
        if scan.is_used(start, start + 1):
            continue
        candidates = _model_candidates(scan.text, start)
        for cand, end in candidates:
            for variant in dict.fromkeys((cand, re.sub(r"\s+", "-", cand), re.sub(r"\s+", "", cand))):
                if (resolved := _resolved(variant)) is None:
                    continue
                scan.claim((start, end))
                return ModelFind(name=resolved, mention=cand, span=(start, end))
        # Report the name without trailing format words: "Qwen-70B INT4" was looked up as "Qwen-70B".
        trimmed = [c for c in candidates if c[0].split()[-1].lower() not in _FORMAT_WORDS] or candidates
        longest, end = trimmed[0]
        # Only a name with a size or version is a failed lookup worth reporting ("Qwen2.5-70B").
        if found.error is None and any(ch.isdigit() for ch in longest):
            if error := _resolve_error(longest):
                found = ModelFind(mention=longest, error=error, span=(start, end))
    if found.span and found.mention and (sized := _with_bare_size(scan, found.mention)):
        return sized  # "72B 的 BF16 版本（Qwen2.5）": the family named apart from its size
    if found.span:
        scan.claim(found.span)
        return found
    # Names that start with no family word ("R1-Distill-Qwen-7B", "ds-v3", "Mistral-Nemo-12B"): the registry's own.
    for m in vocabulary.model_pattern().finditer(scan.text):
        if not scan.is_used(m.start(), m.start() + 1) and (name := vocabulary.model_of_label(m.group(1))):
            scan.claim(m.span())
            return ModelFind(name=name, mention=m.group(1), span=m.span())
    return _bare_distill(scan) or found


# "蒸馏版 32B", "the distilled 14B": R1's distilled models, named by their size alone
_DISTILL_RE = re.compile(
    r"(?:蒸馏版?|distill(?:ed)?)\s*(?:的|版)?\s*(?:model\s+)?(\d{1,3}(?:\.\d)?)\s*[bB]\b", re.IGNORECASE
)


def _bare_distill(scan: Scan) -> ModelFind | None:
    """Return the R1 distilled model a bare "蒸馏版 32B" names (Qwen-based first, then Llama-based), or None."""
    m = _DISTILL_RE.search(scan.text)
    if m is None or scan.is_used(*m.span()):
        return None
    for base in ("Qwen", "Llama"):
        if name := _resolved(f"DeepSeek-R1-Distill-{base}-{m.group(1)}B"):
            scan.claim(m.span())
            return ModelFind(name=name, mention=m.group(0), span=m.span())
    return None


def _with_bare_size(scan: Scan, family: str) -> ModelFind | None:
    """Join a family written without a size ("Qwen2.5") to the one bare size elsewhere in the text ("72B")."""
    if re.search(r"\d\s*[bB]\b", family):
        return None
    sizes = [m for m in re.finditer(r"(?<![\w.])(\d{1,4}(?:\.\d)?)\s*[bB](?![A-Za-z])", scan.text)]
    if len(sizes) != 1 or scan.is_used(*sizes[0].span()):
        return None
    name = _resolved(f"{family.strip()}-{sizes[0].group(1)}B")
    if name is None:
        return None
    scan.claim(sizes[0].span())
    start = scan.text.find(family)
    if start >= 0:
        scan.claim((start, start + len(family)))
    return ModelFind(name=name, mention=f"{family.strip()} {sizes[0].group(0)}", span=sizes[0].span())


def find_size(scan: Scan) -> float | None:
    m = scan.find(
        rf"{NUM}\s*([bB])(?![A-Za-z])(?!\s*tokens?)|{NUM}\s*亿\s*参数|"
        # "a 1 trillion parameter model", "1 万亿参数", "a 1T model"; "1T tokens" is a training volume
        rf"{NUM}\s*(?:trillion|万亿|[tT])[\s\-]*(?:param\w*|参数|model|模型)|{NUM}\s*billion[\s\-]*(?:param\w*|model)"
    )
    if not m:
        return None
    if m.group(1):
        size = parse_number(m.group(1))
    elif m.group(3):
        size = parse_number(m.group(3)) / 10  # 70 亿 = 7B
    elif m.group(4):
        size = parse_number(m.group(4)) * 1000
    else:
        size = parse_number(m.group(5))
    return size if 0.1 <= size <= 2000 else None
