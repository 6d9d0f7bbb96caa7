"""Which model fits the hardware: "一张 L20 最大能跑多大的模型？", "biggest Qwen on 8 H20s at 32k?".

The hardware is fixed and the model is the unknown, so the answer leads with the largest model that fits
(its weight format, size and per-GPU need), then the largest at full BF16 quality, then a table of every
weight format with the next larger model and what it would need: the limit in the user's own terms.
"""

from __future__ import annotations

from typing import Any

from assistant import render
from assistant.answer import AnswerDetail
from assistant.intents.hardware import HardwareIntent
from assistant.messages import say
from assistant.model_search_words import family_named
from assistant.run import Events, Reply
from assistant.toolbox import largest_models_that_fit, largest_models_within_budget
from assistant.understanding import Slots
from tools.model_search import BudgetSearch, FormatResult, ModelFit, ModelSearch


class ModelSearchIntent(HardwareIntent):
    """Searches the model registry for the largest models the named hardware serves."""

    def largest_models(self, s: Slots) -> Events:
        family = family_named(self.question)
        workload: dict[str, Any] = {"family": family, "context": s.context, "concurrency": s.concurrency}
        hardware = yield from self.searched_hardware(s)
        if hardware is None and s.budget_cny_month:
            within, err = yield from self.call(
                "largest_models_within_budget", largest_models_within_budget, budget_cny_month=s.budget_cny_month,
                region=s.region, **workload,
            )  # fmt: skip
            if err or not isinstance(within, BudgetSearch):
                return self.error(err or "")
            if (within.search is None or within.quote is None) and within.part_time is not None:
                found, lead = within.part_time.search, self.part_time_lead(within)  # hours, not a month
            elif within.search is None or within.quote is None:
                budget = render.fig(s.budget_cny_month)
                return Reply(text=say("search.budget_none", self.lang, budget=budget), kind="estimate")
            else:
                found, lead = within.search, self.budget_lead(within)
        elif hardware is None:
            return Reply(text=say("search.which_hardware", self.lang), kind="clarification")
        else:
            found, err = yield from self.call(
                "largest_models_that_fit", largest_models_that_fit, **hardware, **workload
            )
            if err or not isinstance(found, ModelSearch):
                return self.error(err or "")
            lead = self.lead(found)
        lines = [lead, self.table(found), self.basis(found)]
        passages = yield from self.search(say("search.query", self.lang), n=1, prefer_docs=("quantization",))
        quotes = self.quotes(passages, say("search.query", self.lang), limit=1)
        details = [AnswerDetail(title=say("guidance.head", self.lang), markdown="\n\n".join(quotes))] if quotes else []
        return Reply(text="\n\n".join(line for line in lines if line), kind="estimate", details=details)

    def searched_hardware(self, s: Slots) -> Events:
        """Return the hardware as named; a GPU without a count is one card, a family alone its widest type."""
        named = yield from self.named_hardware(s)
        if named is not None:
            return named
        if s.gpu:
            return {"gpu": self.one_gpu(s.gpu), "gpus": 1, "instances": s.instances or 1}
        if s.families:
            return (yield from self.widest_in_family(s.families[0], s.instances or 1))
        return None

    def lead(self, found: ModelSearch) -> str:
        """Lead with the largest fitting model over every format, then the largest at BF16 when that differs."""
        hardware = self.hardware_label(found.hardware)
        top = _top(found)
        if top is None or top.largest is None:
            return say("search.none", self.lang, hardware=hardware, family=found.family or "")
        lead = say("search.lead", self.lang, hardware=hardware, **self.fit_figures(top.largest),
                   weights=say(f"search.weights.{top.weights}", self.lang))  # fmt: skip
        return lead + self.tail(found, top.largest)

    def budget_lead(self, within: BudgetSearch) -> str:
        """Lead with the largest model and the one instance the budget buys for it, with its price."""
        quote, found = within.quote, within.search
        top = _top(found) if found is not None else None
        assert quote is not None and quote.monthly is not None and found is not None
        assert top is not None and top.largest is not None  # the tool only picks a type that fits a model
        basis = say(f"search.basis.{'subscription' if quote.subscription_monthly else 'payg'}", self.lang)
        lead = say("search.budget_lead", self.lang, budget=render.fig(within.budget_cny_month),
                   hardware=self.hardware_label(found.hardware), monthly=render.fig(quote.monthly), basis=basis,
                   region=quote.region, weights=say(f"search.weights.{top.weights}", self.lang),
                   **self.fit_figures(top.largest))  # fmt: skip
        return lead + self.tail(found, top.largest)

    def part_time_lead(self, within: BudgetSearch) -> str:
        """Lead with the hours a month the budget buys on the cheapest type by the hour, and what that serves."""
        part = within.part_time
        assert part is not None and part.quote.hourly is not None
        top = _top(part.search)
        assert top is not None and top.largest is not None  # the tool only picks a type that fits a model
        lead = say("search.part_time_lead", self.lang, budget=render.fig(within.budget_cny_month),
                   hours=render.fig(part.hours_per_month), hourly=render.fig(part.quote.hourly),
                   hardware=self.hardware_label(part.search.hardware), region=part.quote.region,
                   as_of=part.quote.as_of, weights=say(f"search.weights.{top.weights}", self.lang),
                   **self.fit_figures(top.largest))  # fmt: skip
        return lead + self.tail(part.search, top.largest)

    def tail(self, found: ModelSearch, top: ModelFit) -> str:
        """Say a tight fit is tight, and name the largest model at full BF16 quality when it is another."""
        gap, parts = self.t("", " "), []
        if top.tight:
            parts.append(say("search.tight", self.lang, pct=render.fig(top.headroom_pct)))
        bf16 = next((r.largest for r in found.results if r.weights == "bf16" and r.largest and r.largest.fits), None)
        if bf16 is not None and bf16.model != top.model:
            parts.append(say("search.lead_bf16", self.lang, model=bf16.model, params=render.fig(bf16.params_b)))
        return "".join(gap + part for part in parts)

    def table(self, found: ModelSearch) -> str:
        head = say("search.table_head", self.lang)
        rows = [self.row(r) for r in found.results]
        return "\n".join([head, "|---|---|---|---|", *rows])

    def row(self, r: FormatResult) -> str:
        weights = say(f"search.weights.{r.weights}", self.lang)
        best = (
            say("search.cell", self.lang, **self.fit_figures(r.largest))
            if r.largest is not None and r.largest.fits
            else say("search.cell_none", self.lang)
        )
        if r.similar:
            best += say("search.cell_similar", self.lang, models=self.t("、", ", ").join(r.similar))
        fits = r.largest is not None and r.largest.fits
        headroom = f"{render.fig(r.largest.headroom_pct)}%" if r.largest is not None and fits else "—"
        above = say("search.cell_above", self.lang, **self.fit_figures(r.next_larger)) if r.next_larger else "—"
        return f"| {weights} | {best} | {headroom} | {above} |"

    def basis(self, found: ModelSearch) -> str:
        return say("search.basis", self.lang, context=render.fig(found.context),
                   concurrency=render.fig(found.concurrency), candidates=found.candidates,
                   family=found.family or say("search.every_family", self.lang))  # fmt: skip

    @staticmethod
    def fit_figures(fit: ModelFit) -> dict[str, str]:
        return {"model": fit.model, "params": render.fig(fit.params_b), "need": render.fig(fit.per_gpu_needed_gib),
                "usable": render.fig(fit.per_gpu_usable_gib)}  # fmt: skip


def _top(found: ModelSearch) -> FormatResult | None:
    """Return the weight format whose largest fitting model is the largest of all; None when nothing fits."""
    fitting = [r for r in found.results if r.largest is not None and r.largest.fits]
    return max(fitting, key=lambda r: r.largest.params_b if r.largest else 0.0, default=None)
