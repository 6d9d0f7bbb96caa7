"""Memory variants of one GPU compared in one breath: "A100 40GB or 80GB", "V100 有 16G 和 32G 两种".

The GPU is named once and two or more memory sizes are joined by a comparison word; each size that names a
catalog GPU of that base ("A100" + 40 -> A100-40GB) becomes a side of its own, so the comparison plans both
variants with the same workload instead of one of them. Sizes the catalog does not list for that GPU are left
alone ("A100 40G 还是 48G" names no second A100).
"""

from __future__ import annotations

import re

from tools import catalog
from tools.errors import UnknownNameError

_SIZE = r"(\d{2,3})\s*(?:gi?b|g|gigs?)(?![a-z])"
_JOIN = (
    r"\s*(?:的|版本?|version|model|card)?\s*(?:,|，|、|/|or|和|与|跟|还是|或者?|vs\.?|versus|against)\s*"
    r"(?:the\s+|a\s+|an\s+)?"
)
_SIZES_RE = re.compile(rf"(?<![\d.]){_SIZE}(?:{_JOIN}(?<![\d.]){_SIZE}){{1,2}}", re.IGNORECASE)
_BASE_RE = re.compile(r"^[A-Za-z]+\d+[A-Za-z]?")


def _sizes(question: str) -> list[int]:
    """Return the memory sizes joined by a comparison word ("40GB or 80GB" -> [40, 80]), else []."""
    m = _SIZES_RE.search(question)
    return [int(n) for n in re.findall(r"\d{2,3}", m.group(0))] if m else []


def with_memory_variants(question: str, gpu_mentions: list[str]) -> list[str]:
    """Return ``gpu_mentions`` with a GPU named once but in several memory sizes split into those variants."""
    sizes = _sizes(question)
    if len(sizes) < 2 or len(gpu_mentions) != 1:
        return gpu_mentions
    base = _BASE_RE.match(gpu_mentions[0])
    if base is None:
        return gpu_mentions
    variants: list[str] = []
    for size in sizes:
        try:
            name = catalog.get_gpu(f"{base.group(0)} {size}GB").name
        except UnknownNameError:
            continue
        if name not in variants:
            variants.append(name)
    return variants if len(variants) >= 2 else gpu_mentions


def with_stated_memory(question: str, gpu_mentions: list[str]) -> list[str]:
    """Return ``gpu_mentions`` with a size said apart from the name read into it: "V100 那个 16G 的" is V100-16GB.

    A size next to the name ("V100 16G") is read by the GPU vocabulary itself; this reads one across a few
    words ("the 16GB V100", "V100 那个 16G 的", "32G 的 V100") when the catalog lists that variant.
    """
    out = []
    for mention in gpu_mentions:
        base = _BASE_RE.match(mention)
        name = re.escape(mention)
        m = base and mention == base.group(0) and (
            re.search(rf"{name}\s*(?:那个|那款|那种|的|是)?\s*(?<![\d.]){_SIZE}", question, re.IGNORECASE)
            or re.search(rf"(?<![\d.]){_SIZE}\s*(?:的|版本?的?|version|model)?\s*(?:nvidia\s+)?{name}", question, re.I)
        )
        if not m:
            out.append(mention)
            continue
        try:
            out.append(catalog.get_gpu(f"{mention} {m.group(1)}GB").name)
        except UnknownNameError:
            out.append(mention)
    return out


def catalog_variants(gpu: str) -> set[str]:
    """Return the catalog GPUs a name covers: "A100" is both the 40 GB and the 80 GB card (unknown: the name)."""
    try:
        return catalog.gpu_names_for_filter(gpu)
    except UnknownNameError:
        return {gpu}
