"""Which of two GPUs or families is cheaper, when no workload is named ("gn7i 和 gn8is 哪个便宜").

A spec sheet does not say what a card costs: each side is priced by its cheapest one-GPU instance type
(pay-as-you-go, in the price tool's default region), and the first line names the cheaper side with both
prices, or says which side has no list price at all. The spec comparison follows as before.
"""

from __future__ import annotations

from assistant import render
from assistant.messages import say
from assistant.run import Events, Run
from assistant.toolbox import price_of_instance
from tools.catalog import InstanceType

_TYPES_PRICED = 4  # one-GPU types per side whose prices are looked up (the cheapest is the side's price)

Quote = tuple[float, str, str]  # hourly price, instance type, region


class ComparePrices(Run):
    """The price lead of a spec comparison asked as "which is cheaper"."""

    def price_lead(self, sides: dict[str, list[InstanceType]]) -> Events:
        """Return the line naming the cheaper side by its cheapest one-GPU type, and that side, or None.

        The side is "" when only one side has a price; None: no side is priced.
        """
        priced: dict[str, Quote] = {}
        for label, types in sides.items():
            if (quote := (yield from self.cheapest_one_gpu(types))) is not None:
                priced[label] = quote
        unpriced = [label for label in sides if label not in priced]
        if not priced:
            return None
        ranked = sorted(priced.items(), key=lambda item: item[1][0])
        (label, (price, itype, region)) = ranked[0]
        if len(ranked) == 1:
            return say("compare.card_only_priced", self.lang, label=label, type=itype, price=render.fig(price),
                       region=region, others=self.t("、", ", ").join(unpriced)), ""  # fmt: skip
        other, (other_price, other_type, other_region) = ranked[-1]
        where = region if region == other_region else f"{region} / {other_region}"
        line = say("compare.card_cheaper", self.lang, label=label, type=itype, price=render.fig(price), other=other,
                   other_type=other_type, other_price=render.fig(other_price), region=where)  # fmt: skip
        if unpriced:
            line += say("compare.card_also_unpriced", self.lang, labels=self.t("、", ", ").join(unpriced))
        return line, label

    def cheapest_one_gpu(self, types: list[InstanceType]) -> Events:
        """Return (hourly price, type, region) of the cheapest priced one-GPU type among ``types``, or None."""
        best: Quote | None = None
        for inst in [t for t in types if t.gpu_count == 1 and not t.vgpu][:_TYPES_PRICED]:
            quote, _ = yield from self.call("price_of_instance", price_of_instance, instance_type=inst.instance_type)
            if quote is not None and quote.hourly is not None and (best is None or quote.hourly < best[0]):
                best = (quote.hourly, quote.instance_type, quote.region)
        return best
