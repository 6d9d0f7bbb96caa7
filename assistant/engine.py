"""The deterministic engine: rule-based understanding, the same tools as the LLM, rendered answers.

``OfflineEngine(kb).answer(question, history)`` works with no LLM and no network. It reads the
conversation (:mod:`assistant.conversation`), decides what the user asks for, calls the tools of
:mod:`assistant.toolbox` (recording every call with its arguments and JSON result), and renders the
answer with :mod:`assistant.render`. When the model or the task is missing it asks one question; when a
tool rejects the input it says why, with the tool's suggestions. Text that tries to change the rules is
ignored; the legitimate part of the question is still answered.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from assistant import render
from assistant.answer import Answer, AnswerEvent, Message
from assistant.bad_names import beyond_limits, per_gpu_memory_asked, unknown_instance_types
from assistant.form_leads import FormLeads
from assistant.intent_fallback import IntentFallback, using
from assistant.intents import HANDLERS
from assistant.intents.catalog import CatalogIntent
from assistant.intents.colocate import ColocateIntent
from assistant.intents.describe import DescribeIntent
from assistant.intents.fleet import hosts_together
from assistant.intents.gpu_lineup import GpuLineupIntent
from assistant.intents.gpus import GpuIntent
from assistant.intents.guidance import GuidanceIntent
from assistant.intents.hardware import HardwareIntent
from assistant.intents.lengths import LengthsIntent
from assistant.intents.media import MediaIntent
from assistant.intents.model_search import ModelSearchIntent
from assistant.intents.plan import PlanIntent
from assistant.intents.prices import PricesIntent
from assistant.intents.reach import ReachIntent
from assistant.intents.serving_limits import ServingLimits
from assistant.intents.verdicts import VerdictIntent
from assistant.intents.workload import WorkloadIntent
from assistant.messages import say
from assistant.money_words import asks_in_foreign_currency
from assistant.run import Events, Reply, Run, answer_language
from assistant.toolbox import GuidanceSearch
from assistant.workload_names import media_beside_llm, rag_pipeline
from knowledge.base import KnowledgeBase
from tools.errors import ToolInputError

_TOKEN_CHUNK = 48

__all__ = ["OfflineEngine", "answer_language"]  # answer_language: the faces pick a reply language


_EXISTS_RE = r"\bexists?\b|\breal\b|\bvalid\b|存在|有没有这个|有这个规格|真的有"

class OfflineEngine:
    """Answers from rules and tools alone; stateless, safe to share between threads."""

    def __init__(self, kb: KnowledgeBase, *, intent_fallback: bool | IntentFallback = True) -> None:
        """Bind the engine to a knowledge base (searched through the ``search_guidance`` tool).

        With ``intent_fallback`` the knowledge base's embedder, if it is the bundled one, decides the intent
        where the rules are unsure (:mod:`assistant.intent_fallback`); an ``IntentFallback`` is used as given.
        """
        self._guidance = GuidanceSearch(kb)
        if isinstance(intent_fallback, IntentFallback):
            self._fallback: IntentFallback | None = intent_fallback
        else:
            self._fallback = IntentFallback.for_embedder(kb.embedder) if intent_fallback else None

    def answer(self, question: str, history: Sequence[Message] = ()) -> Answer:
        """Answer ``question`` in the context of ``history`` (earlier turns, oldest first)."""
        final = None
        for event in self.stream(question, history):
            if event.type == "answer":
                final = event.answer
        assert final is not None
        return final

    def stream(self, question: str, history: Sequence[Message] = ()) -> Iterator[AnswerEvent]:
        """Yield tool_start/tool_end events as tools run, then the text in chunks, then the answer."""
        with using(self._fallback):  # the turns are understood while the run is built
            run = _Answering(self._guidance, question, history)
        reply = yield from run.execute()
        answer = run.finish(reply)
        for start in range(0, len(answer.text), _TOKEN_CHUNK):
            yield AnswerEvent(type="token", text=answer.text[start : start + _TOKEN_CHUNK])
        yield AnswerEvent(type="answer", answer=answer)


class _Answering(
    FormLeads,
    VerdictIntent,
    WorkloadIntent,
    ModelSearchIntent,
    HardwareIntent,
    ServingLimits,
    PlanIntent,
    DescribeIntent,
    CatalogIntent,
    GpuIntent,
    GpuLineupIntent,
    GuidanceIntent,
    ReachIntent,
    MediaIntent,
    ColocateIntent,
    PricesIntent,
    LengthsIntent,
    Run,
):
    """One answer: the plumbing of :class:`Run` plus every intent's handlers."""

    def execute(self) -> Events:
        """Decide what the question needs and produce the reply."""
        s = self.conv.slots
        if self.conv.turn.injection:
            self.warnings.append(say("run.ignored_injection", self.lang))
            if s.intent == "out_of_scope":
                return self.refusal()
        if self.conv.turn.greeting:
            return Reply(text=render.introduction(self.lang), kind="guidance")
        if s.gpu_memory_gb and s.gpu:  # "显存 24G": say which card of that size the answer evaluates
            self.warnings.append(say("memory_card.read_as", self.lang, size=s.gpu_memory_gb, gpu=s.gpu))
        if self.conv.turn.invalid:  # "那并发改成负 8 呢": the value is refused even where no other word is ours
            return self.invalid_values(self.conv.turn.invalid)
        foreign = self.conv.turn.foreign_money and not self.conv.turn.injection
        if foreign and not s.budget_cny_month and s.intent != "out_of_scope":
            # "$2000/month": the prices are CNY and no exchange rate is shipped; ask rather than drop or guess
            amount = self.conv.turn.foreign_money
            return Reply(text=say("money.foreign", self.lang, amount=amount), kind="clarification")
        if s.intent == "out_of_scope":
            return Reply(text=render.scope_statement(self.lang), kind="out_of_scope")
        if s.intent not in ("guidance", "out_of_reach") and (unknown_setting := self.unknown_setting()):
            return unknown_setting  # "region mars-north-1", "int3": the valid values, not the default silently
        if not s.model and (asked := per_gpu_memory_asked(self.question)):  # "单卡 5000TB 显存的实例"
            if (none := (yield from self.no_gpu_that_large(*asked))) is not None:
                return none
        if too_large := beyond_limits(self.conv.turn):  # "100 亿人同时在线": the tool's own bound, in the user's words
            return (yield from self.beyond_limits(self.conv.slots, too_large))
        # A workload on an instance type that does not exist: the closest catalog types, never a substitute.
        unknown = unknown_instance_types(s.instance_types) if s.intent in ("plan", "memory", "media") else []
        if s.intent == "instances" and not s.gpu_mentions:  # "price of ecs.gn99..": every named type unknown
            named = unknown_instance_types(s.instance_types)
            unknown = named if s.instance_types and len(named) == len(s.instance_types) else []
        # A GPU named beside it plans on that GPU (the type's absence is said first by the plan), unless the type's
        # existence is all that is asked ("does that type exist?")
        if unknown and (not s.gpu or re.search(_EXISTS_RE, self.question, re.I)):
            return self.unknown_instances(unknown)
        try:
            reply = yield from HANDLERS[s.intent](self, s)
        except ToolInputError as exc:  # a tool rejected input the engine derived; say so plainly
            reply = self.error(str(exc))
        reply = yield from self.lead_for_form(s, reply)  # a yes/no question is answered yes or no first
        reply.text = render.unique_paragraphs(reply.text)  # two handlers leading with the same verdict say it once
        if self.conv.turn.injection:  # the legitimate part is answered; the rest is refused in one line
            reply.text += "\n\n" + say("injection.refused", self.lang)
        reply = self.with_other_cloud(reply)  # "the Alibaba equivalent of a p4d", "is RunPod cheaper?"
        if not foreign and reply.kind not in ("out_of_scope", "error") and asks_in_foreign_currency(self.question):
            reply.text += "\n\n" + say("money.cny_only", self.lang)  # "budget in USD": said once, not converted
        fleet = hosts_together(self.question, self.conv.turn)  # every model, the embedder too, is already sized
        beside = rag_pipeline(s) or (media_beside_llm(s) and s.intent not in ("media", "out_of_reach"))
        if reply.kind not in ("out_of_scope", "error", "clarification") and beside and not fleet:
            reply = yield from self.with_retrieval_part(s, reply)  # the embedder of a RAG pipeline, sized after
        return self.with_side_part(reply, s)  # "... and a TTS voice": the LLM is sized, the TTS part named as not
