"""General questions answered from the guidance, with family tables and GPU figures beside."""

from __future__ import annotations

from assistant import render
from assistant.run import Events, Reply, Run
from assistant.toolbox import (
    find_instance_types,
)
from assistant.understanding import Slots


class GuidanceIntent(Run):
    """Answers from the guidance documents."""

    def guidance_answer(self, s: Slots) -> Events:
        """Answer from the guidance: the best passages quoted with citations, plus family tables."""
        parts: list[str] = []
        for family in s.families[:2]:
            found, err = yield from self.call("find_instance_types", find_instance_types, family=family)
            if found is not None and found.instances:
                head = self.t(f"**{family} 的实例规格：**", f"**{family} instance types:**")
                parts.append(head + "\n\n" + render.instances_table(found.instances, self.lang, limit=8))
            elif err:
                parts.append(self.t(f"`{family}`：{err}", f"`{family}`: {err}"))
        if len(s.gpu_mentions) == 1:  # "H20 适合训练吗": the GPU's own figures next to the guidance
            gpu = yield from self.lookup_gpu(s.gpu_mentions[0])
            if gpu is not None:
                parts.append(render.gpu_specs_table([gpu], self.lang))
        sections = [*s.families, *s.gpu_mentions]
        passages = yield from self.search(self.question, n=2, prefer_sections=sections)
        quotes = self.quotes(passages, self.question, limit=3)
        if not quotes and not parts:
            return Reply(text=render.scope_statement(self.lang), kind="out_of_scope")
        return Reply(text="\n\n".join(quotes + parts), kind="guidance")


# ---------------------------------------------------------------------------------------------- arguments
