"""General questions answered from the guidance, with family tables and GPU figures beside."""

from __future__ import annotations

import re

from assistant import render, render_tables
from assistant.answer import Language
from assistant.concepts import Concept, find_concept, find_concepts, guidance_subject
from assistant.conversation import representative_model
from assistant.gpu_job_words import asks_value, job_asked
from assistant.guidance_coverage import uncovered_terms
from assistant.injection import split_planted
from assistant.intents.arguments import plan_args
from assistant.intents.gpu_job import fastest_offered_gpu, serving_verdict, training_verdict, value_verdict
from assistant.intents.verdict_words import family_gpu
from assistant.messages import say
from assistant.run import Events, Reply, Run
from assistant.toolbox import (
    find_instance_types,
    gpu_lineup,
    gpu_specs,
    largest_models_that_fit,
    plan_gpu_deployment,
)
from assistant.understanding import Slots
from knowledge.models import Passage
from tools import catalog
from tools.catalog import GPU, InstanceType
from tools.gpu_lineup import GpuLineup
from tools.media_models import load_media_models
from tools.model_search import ModelSearch
from tools.plan import Plan


class GuidanceIntent(Run):
    """Answers from the guidance documents."""

    def family_precision_line(self, family: str, precision: str) -> Events:
        """'Can gn7i do FP8?': whether the family's GPU computes natively in BF16 or FP8, from its spec row."""
        name = family_gpu([family])
        gpu = (yield from self.lookup_gpu(name)) if name else None
        flag = {"bf16": gpu.supports_bf16, "fp8": gpu.supports_fp8}.get(precision) if gpu is not None else None
        if gpu is None or flag is None:
            return None
        label = self.t(f"{family}（{gpu.name}）", f"{family} ({gpu.name})")
        return say("gpus.supports" if flag else "gpus.no_support", self.lang, gpu=label, name=precision.upper())

    def guidance_answer(self, s: Slots) -> Events:
        """Answer from the guidance: the best passages quoted with citations, plus family tables."""
        parts: list[str] = []
        gpu_lines: list[str] = []
        for family in s.families[:2]:
            found, err = yield from self.call("find_instance_types", find_instance_types, family=family)
            if found is not None and found.instances:
                gpu_lines.append(_family_gpu(family, found.instances[0], self.lang))
                head = say("guidance.family_types", self.lang, family=family)
                parts.append(head + "\n\n" + render_tables.instances_table(found.instances, self.lang, limit=4))
            elif err:
                parts.append(say("guidance.family_error", self.lang, family=family, error=err))
        question = split_planted(self.question)[0]  # planted instructions are not what to search for
        job_line, gpu, label = None, None, None
        if len(s.gpu_mentions) == 1:  # "H20 适合训练吗": the GPU's own figures next to the guidance
            gpu = yield from self.lookup_gpu(s.gpu_mentions[0])
            if gpu is not None:
                parts.append(render_tables.gpu_specs_table([gpu], self.lang))
                if not s.model:
                    job_line = yield from self.gpu_job_line(gpu, question)
        elif len(s.families) == 1 and not s.model and (job_asked(question) or asks_value(question)):
            name = family_gpu(s.families)  # "gn8is 适合做 LoRA 微调吗", "Is ebmgn8v worth it?": its GPU decides
            gpu = (yield from self.lookup_gpu(name)) if name else None
            label = self.t(f"{s.families[0]}（{name}）", f"{s.families[0]} ({name})")
            job_line = (yield from self.gpu_job_line(gpu, question, label)) if gpu is not None else None
        elif len(s.families) == 1 and not s.model and s.precision in ("bf16", "fp8"):
            job_line = yield from self.family_precision_line(s.families[0], s.precision or "")
        if not s.model and asks_value(question):  # "Is gn6v still worth it?": its price against the others'
            name = gpu.name if gpu else family_gpu(s.families) if len(s.families) == 1 else None
            job_line = (yield from self.gpu_value_line(name, gpu, job_line, label)) if name else job_line
        if re.search(_ASKS_MODELS, question, re.IGNORECASE):  # "which models can you size besides LLMs?"
            return Reply(text=self._registry_line(), kind="guidance")
        concepts = [] if job_line else find_concepts(question)  # a job's verdict leads, not a concept's answer
        if concepts and (found := (yield from self._concept_passage(concepts[0]))):
            # A concept the guidance explains: our reviewed answer first, cited, then the section's key sentences;
            # a second concept asked elsewhere in the question is answered after it, the same way;
            # a model or size in the question ("do I need TP for 70B?") is sized right after the answers.
            answers = [f"{concepts[0].answer[self.lang]} [{self.cite(found)}]"]
            for other in concepts[1:]:
                if second := (yield from self._concept_passage(other)):
                    answers.append(f"{other.answer[self.lang]} [{self.cite(second)}]")
            sized = (yield from self.sized_line(s)) if concepts[0].doc in _SIZED_DOCS else []
            self.concept_lead = True
            quotes = self.quotes([found], question, limit=2 if len(answers) == 1 else 1)
            if s.asks_longest_context and len(sized) > 1:  # "max_model_len 设多少合适": the length answers first
                answers.insert(0, sized.pop(0))
            return Reply(text="\n\n".join([*answers, *sized, *quotes, *parts]), kind="guidance")
        if gpu_lines and re.search(_ASKS_GPU, question, re.IGNORECASE):
            parts.insert(0, " ".join(gpu_lines))  # "which GPU is in gn8is?": the catalog answers first
        sections = [*s.families, *s.gpu_mentions]
        if subject := guidance_subject(question):  # "What is EasyCKPT?": the passages that mention it come first
            found = yield from self.search(f"{subject} {question}", n=4, prefer_sections=sections)
            passages = sorted(found, key=lambda p: subject.lower() not in p.text.lower())[:2]
        else:
            passages = yield from self.search(question, n=2, prefer_sections=sections)
        quotes = self.quotes(passages, question, limit=2)
        covered = self.conv.turn.injection  # planted words left in the question are no subject of it
        shares, named = self.guidance.term_shares(question), [*s.families, *s.gpu_mentions, *s.instance_types]
        if quotes and not covered and (unknown := uncovered_terms(shares, passages, named)):
            # "How do I get an invoice?": the passages are about something else; say so, quote nothing.
            terms = self.t("、", ", ").join(self.t(f"“{t}”", f"'{t}'") for t in unknown[:3])
            self.passages.clear()
            text = say("guidance.not_covered", self.lang, terms=terms) + "\n\n" + render.scope_statement(self.lang)
            return Reply(text=text, kind="out_of_scope")
        if not quotes and not parts:
            return Reply(text=render.scope_statement(self.lang), kind="out_of_scope")
        if job_line:  # "Is the L20 good for training?": the verdict from its figures, the guidance after
            return Reply(text="\n\n".join([job_line, *quotes, *parts]), kind="guidance")
        # The first line is ours, never a quoted passage: the catalog's answer, or what the cited section is about.
        if gpu_lines and parts and parts[0].startswith(gpu_lines[0]):
            return Reply(text="\n\n".join([parts[0], *quotes, *parts[1:]]), kind="guidance")
        lead = [self.guidance_lead(passages)] if quotes else []
        return Reply(text="\n\n".join(lead + quotes + parts), kind="guidance")

    def sized_line(self, s: Slots) -> Events:
        """Return the smallest fitting layout of the model (or a model of the size) the question names, or []."""
        model = s.model or (representative_model(s.size_b) if s.size_b else None)
        if model is None or s.task_hint:
            return []
        args = plan_args(s.model_copy(update={"model": model, "task": s.task or "inference"}))
        plan, _ = yield from self.call("plan_gpu_deployment", plan_gpu_deployment, **args)
        if not isinstance(plan, Plan) or not plan.options:
            return []
        top, w = plan.options[0], plan.workload
        precision = w.quant if w.quant != "none" else w.precision
        longest: list[str] = []
        if s.asks_longest_context:  # "max_model_len 设多少合适": the longest context on that layout
            on = {"instance_type": top.instance_type, "instances": top.instances}
            longest = yield from self.longest_context_lines(s, on, self.hardware_label)  # type: ignore[attr-defined]
        return [*longest, say("guidance.sized", self.lang, model=model, precision=precision.upper(),
                    count=top.instances,
                    instance_type=top.instance_type, gpus=top.total_gpus, gpu=top.gpu_model or top.gpu_model_likely,
                    tp=top.tensor_parallel, need=render.fig(top.per_gpu_gib_needed),
                    usable=render.fig(top.per_gpu_capacity_gib))]  # fmt: skip

    def gpu_job_line(self, gpu: GPU, question: str, label: str | None = None) -> Events:
        """Return the yes/no line on whether ``gpu`` suits the job the question names, or None (none named)."""
        job = job_asked(question)
        if job == "serving":
            found, _ = yield from self.call("largest_models_that_fit", largest_models_that_fit, gpu=gpu.name, gpus=1)
            return serving_verdict(gpu, found if isinstance(found, ModelSearch) else None, self.lang, label)
        if job is None:
            return None
        reference = None
        if (fastest := fastest_offered_gpu()) and fastest != gpu.name:  # the trainer it is measured against
            reference, _ = yield from self.call("gpu_specs", gpu_specs, name=fastest)
        rented = gpu.name in {i.gpu_name for i in catalog.load_instances() if not i.retired}
        return training_verdict(gpu, job, reference if isinstance(reference, GPU) else None, self.lang, rented, label)

    def gpu_value_line(self, name: str, gpu: GPU | None, job_line: str | None, label: str | None = None) -> Events:
        """Return the value verdict on GPU ``name`` (with the job's line after it), or the job's line when unpriced."""
        lineup, _ = yield from self.call("gpu_lineup", gpu_lineup)
        line = value_verdict(name, lineup, self.lang) if isinstance(lineup, GpuLineup) else None
        if line is not None:
            return f"{line}\n\n{job_line}" if job_line else line
        if job_line is None and gpu is not None:  # no price: what it is good for, from its figures
            found, _ = yield from self.call("largest_models_that_fit", largest_models_that_fit, gpu=gpu.name, gpus=1)
            job_line = serving_verdict(gpu, found if isinstance(found, ModelSearch) else None, self.lang, label)
        if job_line is None:
            return None
        return job_line + self.t("", " ") + say("gpu_value.unpriced", self.lang, gpu=name)

    def concept_line(self, question: str) -> Events:
        """Answer the concept a sizing question also asks about, in one cited sentence ([] when it asks none).

        "How does TP work, and how many A10s?": the concept's reviewed answer with its citation, so both parts
        of the question are answered.
        """
        if not re.search(_EXPLAINS, question, re.IGNORECASE) or (concept := find_concept(question)) is None:
            return []
        found = yield from self._concept_passage(concept)
        if found is None:
            return []
        # Its first clause only: the sizing answers the rest of the question, within the length of a plan.
        first = re.split(r"(?<=[;；。])\s*|(?<=\.)\s+", concept.answer[self.lang].strip())[0].rstrip(";；。. ")
        return [f"{first}{'。' if self.lang == 'zh' else '.'} [{self.cite(found)}]"]

    def _concept_passage(self, concept: Concept) -> Events:
        """Return the concept's own section in the answer's language (searched by its heading), or None."""
        heading = concept.section[self.lang]
        found, _ = yield from self.call("search_guidance", self.guidance.search_guidance, query=heading, k=8)
        own = [p for p in found or [] if p.doc == concept.doc and p.lang == self.lang and heading in p.section]
        # A long section comes in several chunks: cite the one that holds the answer's figures.
        figures = re.findall(r"\d+(?:\.\d+)?", concept.answer[self.lang])
        return max(own, key=lambda p: sum(f in p.text for f in figures), default=None)

    def _registry_line(self) -> str:
        """Return the media registry by kind: what is sized besides LLMs, by the names `--model` takes."""
        kinds: dict[str, list[str]] = {}
        for m in load_media_models():
            kinds.setdefault(m.kind, []).append(f"`{m.name}`")
        sep = self.t("、", ", ")
        lines = [f"- {say(f'registry.{kind}', self.lang)}: {sep.join(names)}" for kind, names in kinds.items()]
        return say("registry.head", self.lang) + "\n\n" + "\n".join(lines)

    def guidance_lead(self, passages: list[Passage]) -> str:
        """Return a first line naming the cited section, with its citation number."""
        cited = next((p for p in passages if any(q.chunk_id == p.chunk_id for q in self.passages)), None)
        if cited is None:
            return say("guidance.says", self.lang)
        n = self.cite(cited)
        section = cited.section
        head = say("guidance.says_section", self.lang, section=section, n=n)
        # The sentence of the section closest to the question answers on the first line; the section's opening
        # sentence is left to the quote below (a first line that merely repeats a passage's start is no answer).
        opening = next(iter(render.sentences(cited.text)), "")
        best = next((x for x in render.key_sentences(cited, split_planted(self.question)[0], 2) if x != opening), "")
        sep = " " if self.lang != "zh" or best.startswith("**") else ""  # "：** **包年包月**" keeps both bold
        return f"{head}{sep}{best}".rstrip()


# Concepts about memory, serving and parallelism: a model or size named beside them is sized (billing, storage and
# availability concepts are not about the model's size).
_SIZED_DOCS = ("memory-sizing", "inference-serving", "quantization", "distributed-training",
               "choosing-gpu-training-vs-inference")  # fmt: skip
# The explaining part of a mixed question, stricter than EXPLAIN_RE ("what's the cheapest ..." explains nothing).
_EXPLAINS = (
    r"how\s+(?:does|do)\s+(?:\S+\s+){1,4}?work|what\s+(?:is|are)\s+(?!the\s+(?:cheapest|best|cost|price))|\bwhy\b|"
    r"\bexplain|原理|是什么|什么是|为什么|为啥|怎么理解|解释一下"
)
_ASKS_MODELS = (
    r"(?:which|what)\s+(?:other\s+)?models?\s+(?:can|do|does)\s+(?:you|it|gpu-advisor)\s+(?:size|support|handle|cover|plan)|"
    r"besides\s+llms?|other\s+than\s+llms?|(?:支持|能算|能估算|能规划)(?:哪些|什么)(?:模型)?|除了大模型"
)
_ASKS_GPU = (
    r"什么\s*(?:gpu|卡|显卡)|哪(?:款|种|个)\s*(?:gpu|卡|显卡)|gpu\s*(?:型号|是什么)|which\s+gpu|what\s+gpu|"
    r"gpu\s+(?:is|does|inside)"
)


def _family_gpu(family: str, instance: InstanceType, lang: Language) -> str:
    """One sentence naming a family's GPU from the catalog, saying so when Alibaba does not name it."""
    memory = render.fig(instance.gpu_memory_gib)
    if instance.gpu_model:
        return say("family.gpu", lang, family=family, gpu=instance.gpu_model, memory=memory)
    return say("family.gpu_likely", lang, family=family, gpu=instance.gpu_model_likely or "?", memory=memory)
