"""Hardware and place names in a question: GPUs, GPU counts, regions, instance types and families.

GPU names come from the catalog vocabulary (``tools/vocabulary.py``) plus the spellings users type.
"""

from __future__ import annotations

import re

from assistant.reading import NUM, Scan, as_int, parse_number
from tools import vocabulary
from tools.regions import region_aliases

GPU_NAME = (
    r"(?:rtx\s*)?4090|a100(?:\s*[\-_]?\s*(?:80|40)\s*g(?:b|ib)?)?|a800|a10|a30|a16|h800|h100|h200|h20|"
    r"l40s|l20|l4|t4|v100(?:\s*[\-_]?\s*(?:16|32)\s*g(?:b|ib)?)?|p100|p4|m40|b200"
)
# "1024 张 H800" is a real cluster: every count is honoured up to the size that bad_names refuses as impossible.
MAX_GPU_COUNT = 100_000
_GPU_RE = re.compile(
    rf"(?:(?<![A-Za-z0-9])|(?<=\d[x×]))(?:nvidia\s*)?({GPU_NAME})(?![0-9])(?:\s*(24|48|96)\s*g(?:b|ib)?\b)?", re.I
)


def find_gpu_count(scan: Scan) -> int | None:
    if m := scan.find(r"单卡|单张|单\s*gpu|single\s+(?:gpu|card)|one\s+(?:gpu|card)\b"):
        return 1
    if m := scan.find(r"双卡|两卡|dual[\s\-]gpu"):
        return 2
    # The lookbehind keeps the digits of a GPU name ("L20 卡", "2 a10 gpus") from reading as a count.
    m = scan.first(
        rf"(?<![A-Za-z0-9.]){NUM}\s*(?:张|块)\s*(?:{GPU_NAME})?\s*(?:卡|显卡|gpu)?",
        rf"(?<![A-Za-z0-9.]){NUM}[\s\-]*(?:个)?\s*(?:卡|gpus?|cards?)(?![a-z])",
        rf"(?<![A-Za-z0-9.]){NUM}\s*[x×*]\s*(?:nvidia\s*)?(?:{GPU_NAME})",
        # "2 nos. of A10 GPU", "4 units of L20", "2 pcs A10" (Indian and trade English)
        rf"(?<![A-Za-z0-9.]){NUM}\s*(?:nos?\.?|numbers?|units?|pcs\.?|pieces?)\s*(?:of\s+)?(?:nvidia\s*)?(?:{GPU_NAME})",
        rf"(?:{GPU_NAME})\s*(?:gpus?\s*)?[x×*]\s*{NUM}",
        rf"(?<![\w.]){NUM}\s+(?:nvidia\s*)?(?:{GPU_NAME})s?\s*(?:gpus?|cards?)\b",  # "2048 H800 GPUs"
        # "128 H800s": a plural GPU name counts cards, of any size
        rf"(?<![\w.])(\d{{1,5}})\s+(?:nvidia\s*)?(?:{GPU_NAME})s\b(?!\s*(?:instances?|servers?|nodes?|machines?)\b)",
        # "2 A10 instances" counts machines, not cards (spelled numbers arrive here as digits: "one A10").
        rf"(?<![\w.])(\d{{1,2}})\s+(?:nvidia\s*)?(?:{GPU_NAME})s?\b"
        r"(?!\s*(?:instances?|servers?|boxe?s?|nodes?|machines?)\b)",
    )
    if not m:
        # Only then "a single RTX 4090", "one A10", "a 16 GB card like the T4": one card of the named GPU.
        single = scan.find(
            rf"(?<![\w.])(?:a\s+single|single|one|an?\s+lone|a\s+solitary|just\s+one|only\s+one)\s+(?:nvidia\s*)?"
            rf"(?:{GPU_NAME})(?![0-9])"
            r"(?!\s*(?:instances?|servers?|boxe?s?|nodes?|family|series)\b)|"
            rf"(?<![\w.])a\s+\d{{1,3}}\s*gi?b\s+(?:card|gpu\b|(?:nvidia\s*)?(?:{GPU_NAME})(?![0-9]))|"
            # "is a T4 good enough", "on an A10": the article counts one card (not "a T4 instance/box")
            rf"(?<![\w.])an?\s+(?:nvidia\s*)?(?:{GPU_NAME})(?![0-9\-])"
            r"(?!\s*(?:\d+\s*g\w*\s*)?(?:instances?|servers?|boxe?s?|nodes?|machines?|family|series|cluster|vms?|types?)\b)"
        )
        return 1 if single else None
    count = as_int(parse_number(m.group(1)))
    return count if 0 < count <= MAX_GPU_COUNT else None


# A GPU-looking name the catalog does not know ("H9000 GPU", "用 X100 卡"): kept as written so the tools
# answer with "Unknown GPU ... Did you mean ...?" instead of silently planning on every GPU.
_UNKNOWN_GPU_RE = re.compile(r"(?<![A-Za-z0-9.\-])([A-Za-z]{1,3}\d{2,4}[A-Za-z]{0,2})\s*(?:gpus?\b|显卡|卡)", re.I)


def find_unknown_gpu(scan: Scan) -> list[str]:
    m = _UNKNOWN_GPU_RE.search(scan.text)
    return [m.group(1).upper()] if m else []


# "something 4090-class", "4090 级别的卡": a class of card, not the one GPU to plan on (often none is offered).
_CLASS_RE = re.compile(r"[\s\-]*(?:class\b|tier\b|level\b|grade\b|级别|级的|同级|档次|档的)", re.I)


def find_gpus(scan: Scan) -> list[str]:
    found: list[tuple[int, str]] = []
    covered: list[tuple[int, int]] = []
    # Every GPU name and alias in the catalog ("A100 SXM4 80GB", "L40S"), read to its canonical name.
    for m in vocabulary.gpu_pattern().finditer(scan.text):
        if _CLASS_RE.match(scan.text, m.end()):
            covered.append(m.span())
            continue
        if not scan.is_used(m.start(), m.start() + 1) and (name := vocabulary.gpu_of_label(m.group(1))):
            found.append((m.start(), name))
            covered.append(m.span())
    # Then what users type beyond the aliases ("A100", "v100 32g"): ambiguous names stay as written.
    for m in _GPU_RE.finditer(scan.text):
        if scan.is_used(m.start(), m.start() + 1) or any(a <= m.start() < b for a, b in covered):
            continue
        if _CLASS_RE.match(scan.text, m.end()):
            continue
        name = m.group(1).upper().replace("RTX", "RTX ").replace("  ", " ")
        found.append((m.start(), f"{name} {m.group(2)}GB" if m.group(2) else name))
    return list(dict.fromkeys(name for _, name in sorted(found)))


# "not on A10s", "without a T4", "anything but the V100", "L20 rather than A10", "不要 A10", "不考虑 T4 和 V100":
# GPUs the user rules out. They are claimed, so they never become the GPU the plan is restricted to.
_NOT_EN = (
    r"(?:(?<![\w'])not\s+(?:on|with|using|use|an?|the|any)?|(?<![\w'])no|without|avoid(?:ing)?|except(?:\s+for)?|"
    r"other\s+than|anything\s+but|rather\s+than|instead\s+of|excluding|exclude|skip(?:ping)?|never|"
    # "anything cheaper than an A100?": the named card is the one to beat, not the one to plan on
    r"(?:cheaper|less\s+expensive|more\s+affordable)\s+than|(?:cheaper\s+)?alternatives?\s+to)"
    r"\s+(?:the\s+|any\s+|an?\s+|our\s+)?"
)
_NOT_ZH = r"(?:不要|不用|别用|不想用|不考虑|排除|不能用|不上|除了|替代|代替)\s*(?:用)?\s*"
_ONE_GPU = rf"(?:nvidia\s*)?(?:{GPU_NAME})s?(?![0-9a-z])"
_EXCLUDED_RE = re.compile(
    rf"(?:{_NOT_EN}|{_NOT_ZH})({_ONE_GPU}(?:\s*(?:,|/|、|和|或|及|or|and|nor)\s*(?:the\s+)?{_ONE_GPU}){{0,3}})"
    # "比 A100 更便宜的卡", "比 A100 便宜的方案": the card to beat
    rf"|比\s*({_ONE_GPU})\s*(?:还|更)?\s*(?:便宜|省钱|实惠|划算)",
    re.I,
)


# "Should we go with the A10 instead of the T4?", "is the L20 rather than the A10 better?": a question weighing
# the two, where "instead of" names the other side (not a GPU ruled out, as in "plan it on L20 rather than A10").
_WEIGHED_RE = re.compile(
    r"^\W*(?:so\s+)?(?:should|would|shall|is\s+it|do\s+you\s+think|does\s+it\s+make)\b|"
    r"\b(?:better|cheaper|faster|worth\s+it)\b",
    re.I,
)
_INSTEAD_RE = re.compile(r"(?:instead\s+of|rather\s+than)\b", re.I)


_CHEAPER_RE = re.compile(r"(?:cheaper|less\s+expensive|more\s+affordable)\s+than|比", re.I)


def find_excluded_gpus(scan: Scan) -> list[str]:
    """Return the GPUs the user rules out (canonical names where known), claiming their words."""
    out: list[str] = []
    weighed = _WEIGHED_RE.search(scan.text) is not None
    for m in _EXCLUDED_RE.finditer(scan.text):
        group = 1 if m.group(1) else 2
        if scan.is_used(*m.span(group)) or (weighed and _INSTEAD_RE.match(m.group(0))):
            continue
        if _CHEAPER_RE.match(m.group(0)) and find_gpus(Scan(scan.text[: m.start()])):
            continue  # "Is the A10 cheaper than the T4?", "A10 比 T4 便宜吗": two sides weighed, none ruled out
        names = find_gpus(Scan(m.group(group)))
        if names:
            scan.claim(m.span())
            out += [n for n in names if n not in out]
    return out


_TO_BEAT_RE = re.compile(
    rf"(?:(?:cheaper|less\s+expensive|more\s+affordable)\s+than|cheaper\s+alternatives?\s+to)\s+"
    rf"(?:the\s+|an?\s+|our\s+)?({_ONE_GPU})|比\s*({_ONE_GPU})\s*(?:还|更)?\s*(?:便宜|省钱|实惠)",
    re.I,
)


def find_gpu_to_beat(text: str) -> str | None:
    """Return the GPU a cheaper option is asked for ("anything cheaper than an A100?", "比 A100 更便宜的卡"), if any."""
    m = _TO_BEAT_RE.search(text)
    names = find_gpus(Scan(m.group(1) or m.group(2))) if m else []
    return names[0] if names else None


# "swap the L20s for A10s", "replace our T4 with an L20", "把 L20 换成 A10": the first GPU is the one being
# replaced, so it is not the hardware of this turn (nor ruled out for good).
_REPLACED_RE = re.compile(
    rf"(?:swap|switch|replac|trad|chang)\w*\s+(?:out\s+)?(?:the\s+|our\s+|those\s+|these\s+|my\s+)?({_ONE_GPU})"
    rf"(?=\s+(?:out\s+)?(?:for|with|to|by)\b)|把\s*({_ONE_GPU})\s*(?:换成|改成|换为|改为|替换成|替换为)|"
    # "A100 instead of the L20", "rather than an L20", "用 A100 代替 L20": the GPU after the phrase is replaced
    rf"\b(?:instead\s+of|rather\s+than|in\s+place\s+of)\s+(?:the\s+|an?\s+|our\s+)?({_ONE_GPU})|"
    rf"(?:代替|替换|替代|取代)(?:掉)?\s*({_ONE_GPU})",
    re.I,
)


def find_replaced_gpus(scan: Scan) -> list[str]:
    """Return the GPUs a turn replaces ("swap the L20s for A10s"), claiming their words."""
    out: list[str] = []
    for m in _REPLACED_RE.finditer(scan.text):
        group = next(i for i in range(1, (m.re.groups or 0) + 1) if m.group(i))
        if not scan.is_used(*m.span(group)) and (names := find_gpus(Scan(m.group(group)))):
            scan.claim(m.span(group))
            out += [n for n in names if n not in out]
    return out


# ------------------------------------------------------------------------------------------ region, catalog names

REGIONS = region_aliases()  # alias -> region id, from tools/data/regions.yaml
_REGION_ID_RE = r"\b(?:" + "|".join(sorted(map(re.escape, set(REGIONS.values())), key=len, reverse=True)) + r")\b"


def find_region(scan: Scan) -> str | None:
    if m := scan.find(_REGION_ID_RE):  # only real ids: "us-west" alone is an alias of us-west-1
        return m.group(0).lower()
    for word, region in REGIONS.items():
        if scan.find(rf"(?<![a-z]){re.escape(word)}(?![a-z])"):
            return region
    if m := scan.find(r"\b(?:cn|ap|us|eu|me|na|sa)-[a-z]+-?\d*\b"):
        return m.group(0).lower()  # an id we do not know: the price tool says so and lists the real ones
    return None


def named_regions(text: str) -> list[str]:
    """Every region the text names (ids and aliases, "Singapore vs Hangzhou"), in the order written, once each."""
    low, found = text.lower(), []
    for m in re.finditer(_REGION_ID_RE, low):
        found.append((m.start(), m.group(0)))
    for word, region in REGIONS.items():
        for m in re.finditer(rf"(?<![a-z]){re.escape(word)}(?![a-z])", low):
            found.append((m.start(), region))
    ordered = [region for _, region in sorted(found)]
    return list(dict.fromkeys(ordered))


_INSTANCE_RE = (
    r"(?<![\w.])(?:ecs\.)[a-z0-9\-]{1,40}\.[a-z0-9]{1,20}|"
    r"(?<![\w.])(?:ebm|scc|v|s)?gn\d{1,3}[a-z]{0,6}(?:-[a-z0-9]{1,12}){0,4}\.\d{0,3}x?large"
)
_FAMILY_RE = r"(?<![\w.])(?:ecs\.)?((?:ebm|scc|v|s)?gn\d{1,3}[a-z]{0,6}(?:-(?:tee|vws))?)(?![\w])"


def find_catalog_names(scan: Scan) -> tuple[list[str], list[str]]:
    instances, families = [], []
    for m in scan.find_all(_INSTANCE_RE):
        name = m.group(0).lower()
        instances.append(name if name.startswith("ecs.") else f"ecs.{name}")
        if fam := re.match(r"ecs\.((?:ebm|scc|v|s)?gn\d+[a-z]*)", instances[-1]):
            families.append(fam.group(1))
    for m in scan.find_all(_FAMILY_RE):
        families.append(m.group(1).lower())
    for m in scan.find_all(vocabulary.family_pattern()):  # catalog families the generic pattern misses ("ga1")
        families.append(m.group(1).lower())
    return list(dict.fromkeys(instances)), list(dict.fromkeys(families))
