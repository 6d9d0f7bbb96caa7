"""General questions answered from the guidance, with family tables and GPU figures beside."""

from __future__ import annotations

from assistant import render
from assistant.concepts import Concept, find_concept
from assistant.injection import split_planted
from assistant.run import Events, Reply, Run
from assistant.toolbox import (
    find_instance_types,
)
from assistant.understanding import Slots
from knowledge.models import Passage


class GuidanceIntent(Run):
    """Answers from the guidance documents."""

    def guidance_answer(self, s: Slots) -> Events:
        """Answer from the guidance: the best passages quoted with citations, plus family tables."""
        parts: list[str] = []
        for family in s.families[:2]:
            found, err = yield from self.call("find_instance_types", find_instance_types, family=family)
            if found is not None and found.instances:
                head = self.t(f"**{family} 的实例规格：**", f"**{family} instance types:**")
                parts.append(head + "\n\n" + render.instances_table(found.instances, self.lang, limit=4))
            elif err:
                parts.append(self.t(f"`{family}`：{err}", f"`{family}`: {err}"))
        if len(s.gpu_mentions) == 1:  # "H20 适合训练吗": the GPU's own figures next to the guidance
            gpu = yield from self.lookup_gpu(s.gpu_mentions[0])
            if gpu is not None:
                parts.append(render.gpu_specs_table([gpu], self.lang))
        question = split_planted(self.question)[0]  # planted instructions are not what to search for
        if (concept := find_concept(question)) and (found := (yield from self._concept_passage(concept))):
            # A concept the guidance explains: our reviewed answer first, cited, then the section's key sentences.
            lead = f"{concept.answer[self.lang]} [{self.cite(found)}]"
            return Reply(text="\n\n".join([lead, *self.quotes([found], question, limit=2), *parts]), kind="guidance")
        sections = [*s.families, *s.gpu_mentions]
        passages = yield from self.search(question, n=2, prefer_sections=sections)
        quotes = self.quotes(passages, question, limit=2)
        if not quotes and not parts:
            return Reply(text=render.scope_statement(self.lang), kind="out_of_scope")
        # The first line is ours, never a quoted passage: what the cited section is about, then the quotes.
        lead = [self.guidance_lead(passages)] if quotes else []
        return Reply(text="\n\n".join(lead + quotes + parts), kind="guidance")

    def _concept_passage(self, concept: Concept) -> Events:
        """Return the concept's own section in the answer's language (searched by its heading), or None."""
        heading = concept.section[self.lang]
        found, _ = yield from self.call("search_guidance", self.guidance.search_guidance, query=heading, k=8)
        return next((p for p in found or [] if p.doc == concept.doc and p.lang == self.lang and heading in p.section),
                    None)

    def guidance_lead(self, passages: list[Passage]) -> str:
        """Return a first line naming the cited section, with its citation number."""
        cited = next((p for p in passages if any(q.chunk_id == p.chunk_id for q in self.passages)), None)
        if cited is None:
            return self.t("**参考资料的说法：**", "**What the guidance says:**")
        n = self.cite(cited)
        return self.t(
            f"**参考资料的说法（{cited.section}）[{n}]：**", f"**What the guidance says ({cited.section}) [{n}]:**"
        )
