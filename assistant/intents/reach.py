"""Workloads the tools cannot size (image generation, speech, embeddings, video): say so, honestly and briefly.

The answer states what the assistant cannot compute and what it can, plus guidance passages only when
they are about that workload (never the nearest unrelated passage).
"""

from __future__ import annotations

import re

from assistant.answer import AnswerDetail
from assistant.messages import say
from assistant.phrases import out_of_reach
from assistant.run import Events, Reply, Run
from assistant.understanding import Slots


class ReachIntent(Run):
    """Answers a question about a workload outside the tools' reach."""

    def out_of_reach(self, s: Slots) -> Events:
        """State the limit, what can be computed, and any passage that is about this workload."""
        topic = s.reach or out_of_reach(self.question) or "image"
        text = say(f"reach.{topic}", self.lang) + "\n\n" + say("reach.can", self.lang)
        passages = yield from self.search(self.question, n=2)
        about = [p for p in passages if out_of_reach(f"{p.section} {p.text}") == topic]
        details = []
        if quotes := self.quotes(about, self.question):
            details.append(AnswerDetail(title=say("guidance.head", self.lang), markdown="\n\n".join(quotes)))
        return Reply(text=re.sub(r"\n{3,}", "\n\n", text), kind="out_of_scope", details=details)
