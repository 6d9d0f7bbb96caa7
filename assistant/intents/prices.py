"""Region and billing questions: "哪个地域 A10 最便宜", "gn7i 包月多少钱", "subscription vs pay-as-you-go".

The answer comes first (the cheapest region with its price, or the price asked for); every price says its
region, billing mode and as-of date, the sources and the per-region table are folded into the details, and a
spot price carries the guidance's interruption caveat. A follow-up that names only a billing mode
("那按量呢?") takes its subject from the latest earlier turn that named one.
"""

from __future__ import annotations

import re

from assistant.answer import AnswerDetail
from assistant.billing_words import asked_hours, asks_price_gap, asks_region, asks_type_gap, billings
from assistant.gpu_variants import catalog_variants
from assistant.hardware_words import named_regions
from assistant.intents.compare_yes_no import asks_whether_better, asks_whether_worse
from assistant.messages import say
from assistant.price_phrases import basis_label, billing_label, region_label, source_label
from assistant.render import fig
from assistant.run import Events, Reply, Run
from assistant.toolbox import (
    cheapest_region_for_gpu,
    compare_instance_prices,
    compare_region_prices,
    find_instance_types,
    nearest_known_price,
    price_of_instance,
)
from assistant.understanding import Slots, understand
from tools.price_gap import InstancePriceGap
from tools.price_nearest import NearestPrice
from tools.price_quotes import RegionComparison, RegionPrice
from tools.prices import HOURS_PER_MONTH

_MODES = ("pay-as-you-go", "subscription-monthly", "spot")
_FAMILY_TYPES = 3  # a family question shows its smallest types; the catalog intent lists them all
_MONTH_ASK = r"一个月|每个?月|/\s*月|月租|\bper\s+month\b|\ba\s+month\b|\bmonthly\b|/\s*mo\b"


# "gn7e 是 A10", "gn7e = A10", "gn7e has an A10": a claim of which GPU a family has
_CLAIM_RE = r"是|=|\bis\b|\bhas\b|\bhave\b|\bwith\b|配的?|用的?"


class PricesIntent(Run):
    """Answers price questions by region and billing mode from the price tools."""

    def prices(self, s: Slots) -> Events:
        """Price the named instance types, family or GPU by billing mode, or find the cheapest region."""
        subject, words = self._subject(s)
        modes = billings(self.question) or billings(words) or ["pay-as-you-go"]
        region_ask = asks_region(self.question) or (subject is not s and asks_region(words))
        region = s.region or subject.region
        lines: list[str] = []
        details: list[AnswerDetail] = []
        sources: list[str] = []
        names = list(subject.instance_types)
        claim: list[str] = []
        for family in [] if names else subject.families[:1]:
            found, _ = yield from self.call("find_instance_types", find_instance_types, family=family)
            names += [i.instance_type for i in (found.instances if found else [])][:_FAMILY_TYPES]
            gpus = {i.gpu_name for i in (found.instances if found else [])}
            claimed = [g for g in subject.gpu_mentions if not (catalog_variants(g) & gpus)]
            if found and claimed and re.search(_CLAIM_RE, self.question, re.IGNORECASE):
                # "文章说 gn7e 是 A10，那 gn7e 多少钱": the family's real GPU corrects the claim beside its prices
                where = yield from self.families_with(claimed[0])  # type: ignore[attr-defined]
                claim.append(self.family_verdict(family, found.instances, claimed[0], where))  # type: ignore[attr-defined]
        regions = named_regions(self.question)
        if not names and subject.gpu_mentions and len(regions) >= 2:  # "an A10 box, Beijing or Shenzhen?"
            names += yield from self.type_in_regions(subject, regions, modes[0])
        gap = len(names) >= 2 and len(regions) < 2 and asks_type_gap(self.question)
        if gap:  # "比 gn7i-c8g1.2xlarge 贵多少": the gap between the types leads, on one billing basis
            lines += yield from self.type_gap_line(names[:_FAMILY_TYPES], modes, region)
        if names and len(regions) >= 2:  # "in Singapore vs Hangzhou": each region named, the cheaper first
            for name in names[:_FAMILY_TYPES]:
                for where in regions:
                    yield from self._instance(name, modes, where, False, lines, details, sources)
            lines[:0] = yield from self.cheaper_region_line(names[0], regions, modes)
        elif names:
            for name in names[:_FAMILY_TYPES]:
                yield from self._instance(name, modes, region, region_ask, lines, details, sources, not gap)
            lines[:0] = yield from self.hours_line(s, names[0], region)
        elif subject.gpu_mentions:
            picked = yield from self._gpu(subject, modes, None if region_ask else region, lines, details, sources)
            lines[:0] = (yield from self.hours_line(s, *picked)) if picked else []
        else:
            lines.append(say("prices.no_subject", self.lang))
        lines[1:1] = claim  # the price asked answers first; the premise it rests on is corrected right after
        usage = s.usage_hours or subject.usage_hours
        if usage and {"subscription-monthly", "pay-as-you-go"} <= set(modes):  # "一个月用 300 小时，包月还是按量"
            lines[:0] = yield from self.hours_billing_line(subject, names, usage.per_month, region)
        if "spot" in modes:
            lines.append(say("prices.spot_caveat", self.lang))
        query = (
            self.t(
                "抢占式实例 价格 供需 相比按量付费 最多可节省",
                "preemptible price supply demand save compared with pay-as-you-go",
            )
            if "spot" in modes
            else self.t("计费方式 包年包月 按量付费", "billing subscription pay-as-you-go")
        )
        sections = ("抢占式", "spot") if "spot" in modes else ()
        passages = yield from self.search(query, n=1, prefer_docs=("cost-optimization",), prefer_sections=sections)
        if (quotes := self.quotes(passages, query)) and not (names or subject.gpu_mentions):
            lines[:0] = quotes  # nothing to price: the guidance's own figures are the answer
        elif quotes:
            details.append(AnswerDetail(title=say("guidance.head", self.lang), markdown="\n\n".join(quotes)))
        if sources:
            markdown = "\n".join(f"- {source_label(line, self.lang)}" for line in dict.fromkeys(sources))
            details.append(AnswerDetail(title=say("prices.sources_head", self.lang), markdown=markdown))
        return Reply(text="\n\n".join(lines), kind="guidance", details=details)

    def _subject(self, s: Slots) -> tuple[Slots, str]:
        """Return the turn that names what to price: this one, else the latest earlier user turn naming one."""
        if s.instance_types or s.families or s.gpu_mentions:
            return s, self.question
        for message in reversed(self.history):
            if message.role == "user":
                earlier = understand(message.content)
                if earlier.instance_types or earlier.families or earlier.gpu_mentions:
                    return earlier, message.content
        return s, self.question

    def hours_billing_line(self, s: Slots, names: list[str], hours: float, region: str | None) -> Events:
        """Return [the month's pay-as-you-go for ``hours`` against the subscription], or [] when a price is missing."""
        name = names[0] if names else None
        if name is None and s.gpu_mentions:  # a GPU: its type with the cheapest subscription, in that region
            found, _ = yield from self.call("cheapest_region_for_gpu", cheapest_region_for_gpu, gpu=s.gpu_mentions[0],
                                            gpu_count=s.gpus or 1, billing="subscription-monthly")  # fmt: skip
            if found is not None and found.cheapest is not None:
                name, region = found.cheapest_instance_type, found.cheapest.region
        if name is None:
            return []
        quote, _ = yield from self.call("price_of_instance", price_of_instance, instance_type=name, region=region)
        if quote is None or quote.hourly is None or quote.subscription_monthly is None:
            return []
        used = quote.hourly * hours
        code = "billing.hourly_part_time" if used < quote.subscription_monthly else "billing.subscription_part_time"
        return [say(code, self.lang, type=quote.instance_type, sub=fig(quote.subscription_monthly, self.lang),
                    payg=fig(quote.hourly), used=fig(used, self.lang), hours=fig(hours))]  # fmt: skip

    def hours_line(self, s: Slots, name: str, region: str | None) -> Events:
        """'3 days of an 8xA100 box', '8 卡 A100 一天多少钱': the pay-as-you-go for those hours answers first."""
        hours = asked_hours(self.question, s.rental_hours)
        if not hours or self.conv.turn.asks_verdict or self.conv.turn.budget_cny_month:  # a yes/no leads instead
            return []
        quote, _ = yield from self.call("price_of_instance", price_of_instance, instance_type=name, region=region,
                                        hours=hours)  # fmt: skip
        if quote is None or quote.payg_for_hours is None:
            return []
        return [say("prices.for_hours", self.lang, total=fig(quote.payg_for_hours), hours=fig(hours),
                    type=quote.instance_type, hourly=fig(quote.hourly), region=quote.region,
                    as_of=quote.as_of)]  # fmt: skip

    def type_in_regions(self, s: Slots, regions: list[str], mode: str) -> Events:
        """Return [the GPU's cheapest type listed in every region named], or [] when none is listed in all."""
        found, _ = yield from self.call("cheapest_region_for_gpu", cheapest_region_for_gpu, gpu=s.gpu_mentions[0],
                                        gpu_count=s.gpus or 1, billing=mode)  # fmt: skip
        listed = []
        for option in found.options if found is not None else []:
            prices = {row.region: row.price_cny for row in option.regions}
            if all(r in prices for r in regions):
                listed.append((max(prices[r] for r in regions), option.instance_type))
        return [min(listed)[1]] if listed else []

    def _unit(self, mode: str) -> str:
        return say("prices.unit_month" if mode == "subscription-monthly" else "prices.unit_hour", self.lang)

    def cheaper_region_line(self, name: str, regions: list[str], modes: list[str]) -> Events:
        """Name the region where ``name`` costs least per month among those asked, on one billing basis for all."""
        quotes = []
        for where in regions:
            quote, _ = yield from self.call("price_of_instance", price_of_instance, instance_type=name, region=where)
            if quote is not None and quote.region == where:
                quotes.append(quote)
        if len(quotes) < 2:
            return []
        listed = [q for q in quotes if q.subscription_monthly is not None]
        if "subscription-monthly" in modes and 0 < len(listed) < len(quotes):  # "包月哪个便宜": only some list one
            best = min(listed, key=lambda q: q.subscription_monthly or 0.0)
            missing = [q.region for q in quotes if q.subscription_monthly is None]
            return [say("prices.subscription_only_in", self.lang, instance_type=best.instance_type, region=best.region,
                        monthly=fig(best.subscription_monthly), missing=self.t("、", ", ").join(missing))]  # fmt: skip
        # The same basis in every region: subscriptions where all list one, else 730 h of pay-as-you-go.
        if all(q.subscription_monthly is not None for q in quotes):
            monthly, basis = {q.region: q.subscription_monthly for q in quotes}, "monthly subscription"
        elif all(q.hourly is not None for q in quotes):
            monthly = {q.region: round((q.hourly or 0.0) * HOURS_PER_MONTH, 2) for q in quotes}
            basis = "pay-as-you-go x 730 h/month"
        else:
            return []
        low, high = min(monthly, key=lambda r: monthly[r] or 0.0), max(monthly, key=lambda r: monthly[r] or 0.0)
        if monthly[low] == monthly[high]:
            return [say("prices.same_in_regions", self.lang, instance_type=quotes[0].instance_type,
                        regions=self.t("、", ", ").join(region_label(r, self.lang) for r in monthly),
                        monthly=fig(monthly[low]), basis=basis_label(basis, self.lang))]  # fmt: skip
        # the regions as the user wrote them: "乌兰察布（cn-wulanchabu）" in a zh answer
        line = say("prices.cheaper_region", self.lang, instance_type=quotes[0].instance_type,
                   region=region_label(low, self.lang), monthly=fig(monthly[low]),
                   other=region_label(high, self.lang), other_monthly=fig(monthly[high]),
                   basis=basis_label(basis, self.lang))  # fmt: skip
        written = [r for r in named_regions(self.question) if r in monthly]
        if len(monthly) == 2 and written and asks_whether_better(self.question):
            # "Is Hong Kong more expensive than Shanghai?": yes or no about the region named first
            yes = (low == written[0]) != asks_whether_worse(self.question)
            line = f"{say('lead.yn_yes' if yes else 'lead.yn_no', self.lang)} {line}"
        return [line]

    def _instance(
        self,
        name: str,
        modes: list[str],
        region: str | None,
        by_region: bool,
        lines: list[str],
        details: list[AnswerDetail],
        sources: list[str],
        billing_gap: bool = True,
    ) -> Events:
        """Price one instance type: its cheapest region per mode asked, or its prices in one region.

        ``billing_gap`` False: the gap asked is between types, not between this type's billing modes.

        ``region`` None without ``by_region``: the price tool's default region (the first of the big four
        regions that lists the type).
        """
        comparisons: dict[str, RegionComparison] = {}
        for mode in modes if by_region else _MODES:
            found, err = yield from self.call(
                "compare_region_prices", compare_region_prices, instance_type=name, billing=mode
            )
            if err:
                lines.append(f"`{name}`: {err}")
                return
            comparisons[mode] = found
        label = f"`{comparisons[modes[0]].instance_type}`"
        if by_region:
            for mode in modes:
                self._cheapest_line(label, label, comparisons[mode], lines, details, sources)
            return
        quote, _ = yield from self.call("price_of_instance", price_of_instance, instance_type=name, region=region)
        where = quote.region if quote else region
        if where is None:
            lines.append(say("prices.no_region", self.lang, subject=label, billing=billing_label(modes[0], self.lang)))
            lines += yield from self.nearest_line(name, region)
            return
        own: list[str] = []  # one paragraph per instance type
        others = []
        for mode in _MODES:
            row = next((r for r in comparisons[mode].regions if r.region == where), None)
            if mode not in modes:
                if row:
                    others.append(f"{billing_label(mode, self.lang)} ¥{fig(row.price_cny)}{self._unit(mode)}")
                    sources.append(row.source_line)
                continue
            billing = billing_label(mode, self.lang)
            if row is None:
                own.append(say("prices.no_billing", self.lang, name=label, region=where, billing=billing))
                if quote is None:  # nothing known for this type here: say so once, then the nearest known price
                    own += yield from self.nearest_line(name, region)
                continue
            monthly = ""
            if mode == "pay-as-you-go" and quote and quote.payg_monthly:  # the hour as a month, beside a subscription
                month = f"¥{fig(quote.payg_monthly)}{self._unit('subscription-monthly')}"
                basis = basis_label(f"pay-as-you-go x {fig(HOURS_PER_MONTH)} h/month", self.lang)
                monthly = say("prices.payg_month", self.lang, price=month, basis=basis)
            own.append(self._quote_line(label, row, mode, monthly))
            sources.append(row.source_line)
        if others:
            own.append(say("prices.other_modes", self.lang, parts="; ".join(others)))
        lines.append(" ".join(own))
        gap = quote.subscription_saving_monthly if quote else None
        # "cost difference", or both billing modes named ("subscription versus pay-as-you-go"): the month's gap first
        weighed = asks_price_gap(self.question) or {"pay-as-you-go", "subscription-monthly"} <= set(modes)
        if billing_gap and weighed and quote and gap is not None:
            lines.insert(len(lines) - 1, say("prices.month_gap", self.lang, name=label, payg=fig(quote.payg_monthly),
                                             hours=fig(HOURS_PER_MONTH), subscription=fig(quote.subscription_monthly),
                                             gap=fig(abs(gap))))  # fmt: skip

    def type_gap_line(self, names: list[str], modes: list[str], region: str | None) -> Events:
        """Say how much more the dearer type costs a month than the cheaper, on the billing asked (else 730 h)."""
        basis = "subscription" if modes == ["subscription-monthly"] else "pay-as-you-go"
        gap, _ = yield from self.call(
            "compare_instance_prices", compare_instance_prices, instance_types=names, region=region, basis=basis
        )
        priced = [t for t in gap.types if t.monthly_cny is not None] if isinstance(gap, InstancePriceGap) else []
        if len(priced) < 2:
            return []  # an unpriced type is said by its own line, with the nearest known price
        cheap, dear = priced[0], priced[-1]
        label = basis_label("monthly subscription" if basis == "subscription" else "pay-as-you-go x 730 h/month",
                            self.lang)  # fmt: skip
        where = cheap.region if cheap.region == dear.region else f"{dear.region} / {cheap.region}"
        code = "prices.type_gap" if dear.more_than_cheapest_cny else "prices.type_same"
        return [say(code, self.lang, dear=dear.instance_type, cheap=cheap.instance_type, basis=label,
                    gap=fig(dear.more_than_cheapest_cny), dear_month=fig(dear.monthly_cny),
                    cheap_month=fig(cheap.monthly_cny), region=where, as_of=dear.as_of or "?")]  # fmt: skip

    def nearest_line(self, name: str, region: str | None) -> Events:
        """Say the nearest known price for a type with none (same type elsewhere, else a similar type)."""
        near, _ = yield from self.call("nearest_known_price", nearest_known_price, instance_type=name, region=region)
        if not isinstance(near, NearestPrice) or near.quote.hourly is None:
            return []
        why = say(f"prices.nearest_{'same_type' if near.basis == 'same_type_other_region' else 'similar'}", self.lang)
        return [
            say("prices.nearest", self.lang, name=near.quote.instance_type, gpus=near.gpu_count or "?",
                gpu=near.gpu or "?", region=near.quote.region, price=fig(near.quote.hourly),
                monthly=fig(round(near.quote.monthly or 0)), as_of=near.quote.as_of, why=why)
        ]  # fmt: skip

    def _quote_line(self, label: str, row: RegionPrice, mode: str, monthly: str) -> str:
        return say(
            "prices.quote",
            self.lang,
            name=label,
            region=row.region,
            billing=billing_label(mode, self.lang),
            price=fig(row.price_cny),
            unit=self._unit(mode),
            as_of=row.as_of,
            monthly=monthly,
        )

    def _cheapest_line(
        self,
        subject: str,
        name: str,
        comparison: RegionComparison,
        lines: list[str],
        details: list[AnswerDetail],
        sources: list[str],
    ) -> None:
        mode, best = comparison.billing, comparison.cheapest
        billing = billing_label(mode, self.lang)
        if best is None:
            lines.append(say("prices.no_region", self.lang, subject=subject, billing=billing))
            return
        lines.append(
            say(
                "prices.cheapest_region",
                self.lang,
                subject=subject,
                billing=billing,
                region=best.region,
                price=fig(best.price_cny),
                unit=self._unit(mode),
                name=name,
                as_of=best.as_of,
                count=len(comparison.regions),
            )
        )
        sources.append(best.source_line)
        rows = [f"| {r.region} | ¥{fig(r.price_cny)}{self._unit(mode)} | {r.as_of} |" for r in comparison.regions]
        head = say("prices.table_head", self.lang)
        title = f"{comparison.instance_type} · " + say("prices.regions_head", self.lang, billing=billing)
        details.append(AnswerDetail(title=title, markdown="\n".join([head, "|---|---|---|", *rows])))

    def _gpu(
        self,
        s: Slots,
        modes: list[str],
        region: str | None,
        lines: list[str],
        details: list[AnswerDetail],
        sources: list[str],
    ) -> Events:
        """Price a GPU and count: the cheapest region per mode, or the cheapest type listed in the named region.

        Returns the type and region priced first (the cheapest), or None when none is.
        """
        gpu, count, assumed, picked = s.gpu_mentions[0], s.gpus or 1, "", None
        for mode in [modes[0]] if region else modes:
            found, err = yield from self.call(
                "cheapest_region_for_gpu", cheapest_region_for_gpu, gpu=gpu, gpu_count=count, billing=mode
            )
            if err or found is None:
                lines.append(f"{gpu}: {err}")
                return None
            assumed = say("prices.gpu_assumed", self.lang, written=gpu, gpu=found.gpu) if found.assumed else ""
            subject = say("hardware.gpus", self.lang, count=count, gpu=found.gpu).strip()
            if region is None:
                if found.cheapest_instance_type is None:
                    lines.append(
                        say("prices.no_region", self.lang, subject=subject, billing=billing_label(mode, self.lang))
                    )
                    if found.unpriced and mode == modes[0]:  # the types exist: name them and a price to go by
                        types = say("catalog.list_sep", self.lang).join(f"`{t}`" for t in found.unpriced)
                        lines.append(say("prices.unpriced_types", self.lang, types=types))
                        lines.extend((yield from self.nearest_line(found.unpriced[0], None)))
                    continue
                best = next(o for o in found.options if o.instance_type == found.cheapest_instance_type)
                self._cheapest_line(subject, f"`{best.instance_type}`", best, lines, details, sources)
                if best.cheapest and picked is None:
                    picked = (best.instance_type, best.cheapest.region)
                turn = self.conv.turn  # "is 500 RMB a month enough for a T4?": the yes/no leads, not the month
                month_asked = re.search(_MONTH_ASK, self.question, re.IGNORECASE) and not (
                    turn.asks_verdict or turn.budget_cny_month
                )
                if mode == modes[0] == "pay-as-you-go" and best.cheapest and month_asked:
                    month: list[str] = []  # "A100 一个月多少钱": that type's month in that region answers first
                    yield from self._instance(best.instance_type, [mode], best.cheapest.region, False, month,
                                              details, sources)  # fmt: skip
                    lines[:0] = month
                continue
            listed = [o for o in found.options if any(r.region == region for r in o.regions)] or found.options
            if not listed:
                lines.append(
                    say("prices.no_region", self.lang, subject=subject, billing=billing_label(mode, self.lang))
                )
                if mode == "spot":  # "a spot A10 in Hangzhou?": none is known; the pay-as-you-go price there is
                    return (yield from self._gpu(s, ["pay-as-you-go"], region, lines, details, sources))
                return None
            yield from self._instance(listed[0].instance_type, modes, region, False, lines, details, sources)
            picked = picked or (listed[0].instance_type, region)
        if assumed:
            lines.append(assumed)
        return picked
