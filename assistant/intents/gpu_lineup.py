"""The GPUs Alibaba Cloud's instance families carry, as a whole: "what GPUs does Alibaba have?", "阿里云有哪些 GPU".

The first line says how many GPU models current instance types carry and which is cheapest per GPU-hour; a table
gives each GPU's memory, families and cheapest listed hour, the largest memory first.
"""

from __future__ import annotations

import re

from assistant import render
from assistant.answer import Language
from assistant.messages import say
from assistant.run import Events, Reply, Run
from assistant.toolbox import gpu_lineup
from assistant.understanding import Slots
from tools.gpu_lineup import GpuLineup, GpuLineupRow


def _name(row: GpuLineupRow, lang: Language) -> str:
    """Return the GPU's name; one Alibaba does not name is marked inferred (its families are beside it)."""
    name = re.sub(r"\s*\(unnamed,\s*[a-z0-9/\-]+\)", "", row.gpu)
    return name if row.named_by_alibaba else name + say("render.likely", lang)


class GpuLineupIntent(Run):
    """Answers about the catalog's GPU line-up."""

    def lineup(self, s: Slots) -> Events:
        found, err = yield from self.call("gpu_lineup", gpu_lineup)
        if err or not isinstance(found, GpuLineup):
            return self.error(err or "")
        priced = [r for r in found.rows if r.cny_per_gpu_hour is not None]
        cheapest = min(priced, key=lambda r: r.cny_per_gpu_hour or 0.0) if priced else None
        largest = found.rows[0]
        lead = say("lineup.lead", self.lang, count=len(found.rows), largest=_name(largest, self.lang),
                   largest_gib=render.fig(largest.memory_gib))  # fmt: skip
        if cheapest is not None:
            lead += say("lineup.cheapest", self.lang, gpu=_name(cheapest, self.lang),
                        hourly=render.fig(cheapest.cny_per_gpu_hour), instance_type=cheapest.cheapest_instance_type,
                        region=cheapest.cheapest_region)  # fmt: skip
        head = say("lineup.table_head", self.lang)
        rows = [
            f"| {_name(r, self.lang)} | {render.fig(r.memory_gib)} | {', '.join(r.families)} | "
            + (f"¥{render.fig(r.cny_per_gpu_hour)} ({r.cheapest_region})" if r.cny_per_gpu_hour is not None
               else say("lineup.unpriced", self.lang))
            + " |"
            for r in found.rows
        ]  # fmt: skip
        table = "\n".join([head, "|---|---|---|---|", *rows])
        return Reply(text="\n\n".join([lead, table, say("lineup.next", self.lang)]), kind="estimate")
