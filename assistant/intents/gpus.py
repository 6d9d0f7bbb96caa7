"""GPU questions: one spec sheet, or two or three GPUs side by side with verdicts."""

from __future__ import annotations

import re

from assistant import render, render_tables
from assistant.answer import AnswerDetail
from assistant.concepts import find_concept
from assistant.intents.arguments import (
    suggestions,
)
from assistant.intents.compare_prices import ComparePrices
from assistant.intents.family_difference import FamilyDifference
from assistant.intents.gpu_claims import comparison_line, number_claim
from assistant.intents.gpu_lead import spec_lead
from assistant.intents.guidance import GuidanceIntent
from assistant.intents.verdict_words import COST_RE
from assistant.intents.workload import catalog_gpu
from assistant.messages import say
from assistant.run import Events, Reply
from assistant.toolbox import (
    find_instance_types,
    gpu_specs,
)
from assistant.understanding import Slots
from tools.catalog import GPU, InstanceType

_SERVING_JOB_RE = r"\b(?:inference|serving|serve|decode|deploy\w*|chat\w*)\b|推理|部署|在线服务|解码"
_TRAINING_JOB_RE = r"\b(?:train\w*|fine[\s\-]?tun\w*|pre[\s\-]?train\w*|lora)\b|训练|微调|预训练"


class GpuIntent(FamilyDifference, ComparePrices):
    """Answers from the GPU spec sheets."""

    def specs(self, s: Slots) -> Events:
        """One GPU's spec sheet, plus the guidance passage about it."""
        gpu = yield from self.lookup_gpu(s.gpu_mentions[0])
        if gpu is None:
            return self.error(self.calls[-1].error or s.gpu_mentions[0])
        parts = [render_tables.gpu_specs_table([gpu], self.lang)]
        if line := self.precision_support(gpu, s.precision):
            parts.insert(0, line)
        elif claim := number_claim(self.question, gpu, self.lang):  # "A100 does 312 TFLOPS, true?": yes/no first
            parts.insert(0, say(claim.code, self.lang, **claim.figures))
        else:  # "A10 显存多大？": the figure asked for answers first, the table follows
            parts.insert(0, spec_lead(self.question, gpu, self.lang))
            # "L20 没有 NVLink，多卡推理会很慢吗": the concept asked about is answered from its own section, cited
            if (concept := find_concept(self.question)) and (
                found := (yield from GuidanceIntent._concept_passage(self, concept))  # type: ignore[arg-type]
            ):
                parts.insert(1, f"{concept.answer[self.lang]} [{self.cite(found)}]")
                return Reply(text="\n\n".join(parts), kind="guidance")
        if gpu.notes and self.lang == "en":  # the catalog's notes are English; a Chinese answer leaves them out
            parts.append(f"Notes: {gpu.notes}")
        passages = yield from self.search(
            self.question, n=1, prefer_docs=("gpu-specs-comparison", "original-article-corrections")
        )
        parts += self.quotes(passages, self.question)
        return Reply(text="\n\n".join(parts), kind="guidance")

    def precision_support(self, gpu: GPU, precision: str | None) -> str | None:
        """Whether ``gpu`` computes natively in BF16 or FP8, from its spec row (None: not asked)."""
        flag = {"bf16": gpu.supports_bf16, "fp8": gpu.supports_fp8}.get(precision or "")
        if flag is None:
            return None
        name = (precision or "").upper()
        return say("gpus.supports" if flag else "gpus.no_support", self.lang, gpu=gpu.name, name=name)

    def compare(self, s: Slots) -> Events:
        """Two or three GPUs (or the GPUs of families) side by side, verdicts, and the guidance."""
        names = list(s.gpu_mentions)
        family_lines = []
        by_family: dict[str, list[InstanceType]] = {}
        for family in s.families[: 3 - len(names)]:
            listed, err = yield from self.call("find_instance_types", find_instance_types, family=family)
            if listed is not None and listed.instances and (gpu_name := listed.instances[0].gpu_name):
                names.append(gpu_name)
                by_family[family] = listed.instances
                family_lines.append(f"{family} → {render.gpu_label(listed.instances[0], self.lang)}")
            elif err:
                family_lines.append(f"{family}: {err}")
        if len(by_family) >= 2 and not s.gpu_mentions and len(set(names)) == 1:
            return self.same_gpu_families(names[0], by_family)  # "gn7e vs ebmgn7e": one card
        gpus: list[GPU] = []
        for name in names[:3]:
            gpu = yield from self.lookup_gpu(name)
            if gpu is not None:
                gpus.append(gpu)
        if len(gpus) < 2:
            return self.error("; ".join(c.error for c in self.calls if c.error) or "need two GPUs")
        parts = [self.pick(gpus), *self.verdicts(gpus[0], gpus[1])]
        if claim := comparison_line(self.question, gpus[0], gpus[1], self.lang):
            parts.insert(0, say(claim.code, self.lang, **claim.figures))  # the claim or "which is faster" first
        elif re.search(COST_RE, self.question, re.IGNORECASE):  # "gn7i 和 gn8is 哪个便宜": each side's price first
            sides = dict(by_family)
            for name in s.gpu_mentions[:3]:
                listed, _ = yield from self.call("find_instance_types", find_instance_types, gpu=catalog_gpu(name))
                sides[name] = listed.instances if listed is not None else []
            if len(sides) >= 2 and (line := (yield from self.price_lead(sides))):
                parts.insert(0, line)
        if family_lines:
            parts.append(" · ".join(family_lines))
        parts.append(render_tables.gpu_specs_table(gpus, self.lang))
        # Families compared are searched by their GPUs too: "gn7i 和 gn8is 怎么选" is about the A10 and the L20.
        query = " ".join([self.question, *(g.name for g in gpus)]) if family_lines else self.question
        passages = yield from self.search(
            query, n=2, prefer_docs=("gpu-specs-comparison", "original-article-corrections")
        )
        details = []
        if quotes := self.quotes(passages, self.question):
            details.append(AnswerDetail(title=say("guidance.head", self.lang), markdown="\n\n".join(quotes)))
        return Reply(text="\n\n".join(parts), kind="guidance", details=details)

    def pick(self, gpus: list[GPU]) -> str:
        """Which GPU to pick for which job: compute for training, bandwidth for decoding, memory for size."""

        def best(field: str) -> str:
            return max(gpus, key=lambda g: getattr(g, field) or 0).name

        compute, bandwidth, memory = best("bf16_dense_tflops"), best("memory_bandwidth_gb_s"), best("memory_gib")
        if len({g.memory_gib for g in gpus}) == 1:
            memory = bandwidth  # the same memory on every card: no card wins on it ("A100 vs H100", both 80 GB)
            if compute == bandwidth:
                return say("compare.pick_same_memory", self.lang, gpu=compute, gib=render.fig(gpus[0].memory_gib))
        elif compute == bandwidth == memory:
            return say("compare.pick_one", self.lang, gpu=compute)
        # "what's better for inference, H20 or A100?": the job is named, so its winner answers first
        if re.search(_SERVING_JOB_RE, self.question, re.I) and not re.search(_TRAINING_JOB_RE, self.question, re.I):
            code = "compare.pick_serving" if bandwidth == memory else "compare.pick_serving_split"
            return say(code, self.lang, bandwidth=bandwidth, memory=memory, compute=compute)
        if re.search(_TRAINING_JOB_RE, self.question, re.I) and not re.search(_SERVING_JOB_RE, self.question, re.I):
            return say("compare.pick_training", self.lang, compute=compute, memory=memory)
        return say("compare.pick", self.lang, compute=compute, bandwidth=bandwidth, memory=memory)

    def verdicts(self, a: GPU, b: GPU) -> list[str]:
        """Which GPU is ahead on dense BF16, memory bandwidth and memory, stating both figures."""
        out = []
        for field, unit in (("bf16_dense_tflops", "TFLOPS"), ("memory_bandwidth_gb_s", "GB/s"), ("memory_gib", "GB")):
            va, vb = getattr(a, field), getattr(b, field)
            if va is None or vb is None or va == vb:
                continue
            hi, lo, vh, vl = (a, b, va, vb) if va > vb else (b, a, vb, va)
            what = say(f"gpus.what_{field}", self.lang)
            out.append(say("gpus.higher", self.lang, what=what, gpu=hi.name, high=render.fig(vh), low=render.fig(vl),
                           unit=unit))  # fmt: skip
        return out

    def lookup_gpu(self, name: str) -> Events:
        """``gpu_specs(name)``; an ambiguous family name ("A100") falls back to its first variant."""
        gpu, err = yield from self.call("gpu_specs", gpu_specs, name=name)
        if gpu is None and err:
            named = suggestions(err)
            if named and named[0].lower().startswith(name.lower().replace(" ", "-")[:4]):
                gpu, err = yield from self.call("gpu_specs", gpu_specs, name=named[0])
                if gpu is not None:
                    self.warnings.append(say("gpus.variant_shown", self.lang, name=name, variant=named[0]))
        return gpu

    # ------------------------------------------------------------------ general guidance
