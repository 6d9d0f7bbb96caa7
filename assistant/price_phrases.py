"""Price wording in zh and en: billing modes, the basis of a monthly figure, a price's source line.

The tools speak English in fixed forms (``tools.prices.Price.provenance``); these functions translate
the fixed parts, so every price an answer shows says its region, billing mode, date and source.
"""

from __future__ import annotations

import re

from assistant.answer import Language
from tools.price_quotes import RegionComparison
from tools.regions import region_names

_BILLING_ZH = {
    "pay-as-you-go": "按量付费",
    "subscription-monthly": "包月",
    "subscription-yearly": "包年",
    "reserved-no-upfront": "预留实例（无预付）",
    "reserved-partial-upfront": "预留实例（部分预付）",
    "spot": "抢占式",
}
_AUTHORITY_ZH = {
    "Alibaba's official China-site price file": "阿里云中国站官方价格文件",
    "third-party transcription of Alibaba's buy page": "第三方从购买页转录",
    "third-party DescribePrice quote, includes a system disk": "第三方 DescribePrice 询价，含系统盘",
    "community article, not a list price": "社区文章，非目录价",
}


def basis_label(basis: str | None, lang: Language) -> str:
    """Name the basis of a monthly price ("monthly subscription" -> "包月价"); tool wording in English."""
    if not basis:
        return ""
    m = re.fullmatch(r"pay-as-you-go x (\d+(?:\.\d+)?) h/month", basis)
    if lang == "en":
        return f"{m.group(1)} h of pay-as-you-go, not a subscription" if m else basis
    if basis == "monthly subscription":
        return "包月价"
    if m:
        return f"按量价 × {m.group(1)} 小时/月，非包月价"
    return f"{basis}（工具原文）"


_URL_RE = re.compile(r"https?://([^/\s;,，。；）)]+)[^\s;,，。；）)]*")


def link_urls(text: str) -> str:
    """Turn raw URLs into markdown links named by their host; CJK punctuation ends a URL."""
    return _URL_RE.sub(lambda m: f"[{m.group(1).removeprefix('www.')}]({m.group(0)})", text)


def source_label(source: str, lang: Language) -> str:
    """Translate the fixed part of a price source (region, billing mode, date, kind of source) into zh.

    Forms: "cn-shanghai pay-as-you-go list price, CNY, as of 2024-12-30 (KIND): URL" and
    "live price from DescribePrice, cn-beijing, as of 2026-12-01T22:10:00Z (pay-as-you-go)".
    """
    if lang == "en":
        return link_urls(source)
    live = re.match(
        r"live price from (?P<call>\w+), (?P<where>[^,]+), as of (?P<when>\S+) \((?P<billing>[a-z-]+)\)", source
    )
    if live:
        billing = _BILLING_ZH.get(live["billing"], live["billing"])
        return f"{live['call']} 实时价格，{live['where']}，截至 {live['when']}（{billing}）"
    pattern = (
        r"(?P<region>\S+?)(?: (?P<billing>[a-z-]+))? list price, (?P<cur>[A-Z]+), as of (?P<date>[\d-]+)"
        r"(?: \((?P<kind>[^)]*)\))?: (?P<rest>.*)"
    )
    m = re.match(pattern, source, re.S)
    if not m:
        return link_urls(source)
    rest = m["rest"].replace("(flagged as inconsistent with sibling prices; verify)", "（与同族价格不一致，请核实）")
    billing = _BILLING_ZH.get(m["billing"], m["billing"]) if m["billing"] else ""
    kind = f"（{_AUTHORITY_ZH.get(m['kind'], m['kind'])}）" if m["kind"] else ""
    return f"{m['region']} {billing}目录价，{m['cur']}，截至 {m['date']}{kind}：{link_urls(rest)}"


def billing_label(billing: str, lang: Language) -> str:
    """Name a billing mode ("spot" -> "抢占式")."""
    return _BILLING_ZH.get(billing, billing) if lang == "zh" else billing


def region_comparison_phrase(comparison: RegionComparison, lang: Language) -> str:
    """One sentence naming the cheapest region of a comparison, with its price, billing mode and date."""
    name, billing = comparison.instance_type, billing_label(comparison.billing, lang)
    best = comparison.cheapest
    if best is None:
        return f"没有地域的价格表列出 `{name}`（{billing}）。" if lang == "zh" else (
            f"No region's price list names `{name}` ({billing})."
        )
    unit = ("/月" if lang == "zh" else "/month") if comparison.billing == "subscription-monthly" else (
        "/小时" if lang == "zh" else "/h"
    )
    n = len(comparison.regions)
    if lang == "zh":
        return (f"`{name}` 在 {n} 个地域有{billing}价格，最便宜的是 {best.region}：¥{best.price_cny:,.4g}{unit}"
                f"（截至 {best.as_of}）。")
    return (f"`{name}` is priced ({billing}) in {n} region(s); cheapest is {best.region} at "
            f"¥{best.price_cny:,.4g}{unit} (as of {best.as_of}).")


def region_label(region: str, lang: Language) -> str:
    """Name a region for the reader: "北京（cn-beijing）" in a zh answer (the console's city name), the id in en."""
    if lang != "zh":
        return region
    named = next((r for r in region_names() if r.id == region), None)
    if named is None:
        return region
    city = re.search(r"（([^）]+)）", named.name_zh)
    return f"{city.group(1) if city else named.name_zh}（{region}）"
