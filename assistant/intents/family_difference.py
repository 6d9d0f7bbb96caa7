"""Two families with one GPU ("gn7e vs ebmgn7e", "gn8is 和 ebmgn8is 有什么区别"): the machines differ, not the card.

A GPU spec comparison of a card with itself says nothing, so the answer leads with the GPU they share, then what
tells the families apart in the catalog rows: bare metal or virtualised, GPUs per instance, vCPUs and RAM, network,
then a table of their types and which to pick for which job.
"""

from __future__ import annotations

from assistant import render, render_tables
from assistant.messages import say
from assistant.run import Reply, Run
from tools.catalog import InstanceType


def _span(values: list[float]) -> str:
    low, high = min(values), max(values)
    return render.fig(low) if low == high else f"{render.fig(low)}–{render.fig(high)}"


class FamilyDifference(Run):
    """The lead and table for families that carry the same GPU."""

    def same_gpu_families(self, gpu: str, listed: dict[str, list[InstanceType]]) -> Reply:
        lines = [say("family_diff.lead", self.lang, families=" / ".join(listed), gpu=gpu)]
        for family, types in listed.items():
            bare = all(t.bare_metal for t in types)
            counts = [float(t.gpu_count or 0) for t in types]
            lines.append(say(
                "family_diff.bare" if bare else "family_diff.virtual", self.lang, family=family, types=len(types),
                gpus=_span(counts), vcpu=_span([float(t.vcpu or 0) for t in types]),
                ram=_span([float(t.memory_gib or 0) for t in types]),
                network=_span([float(t.network_gbps or 0) for t in types]),
            ))  # fmt: skip
        lines.append(say("family_diff.pick", self.lang))
        rows = [t for types in listed.values() for t in types]
        lines.append(render_tables.instances_table(rows, self.lang))
        return Reply(text="\n\n".join(lines), kind="guidance")
