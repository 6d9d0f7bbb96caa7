"""GPU questions: one spec sheet, or two or three GPUs side by side with verdicts."""

from __future__ import annotations

import re

from assistant import render, render_tables
from assistant.answer import AnswerDetail
from assistant.concepts import find_concept
from assistant.intent_rules import SUPERLATIVE_RE
from assistant.intents.arguments import (
    suggestions,
)
from assistant.intents.compare_prices import ComparePrices
from assistant.intents.compare_yes_no import asks_whether_better, asks_whether_worse, subject_of, yes_no_lead
from assistant.intents.family_difference import FamilyDifference
from assistant.intents.gpu_claims import comparison_line, number_claim
from assistant.intents.gpu_lead import SUPPORT_ASK, asked_figure, spec_lead
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

# A price asked of two cards: "which is cheaper", "is the H20 more expensive than the A100?", "哪个贵"
_PRICE_ASK = rf"{COST_RE}|expensive|costlier|dearer|贵"

_SERVING_JOB_RE = r"\b(?:inference|serving|serve|decode|deploy\w*|chat\w*)\b|推理|部署|在线服务|解码"
_TRAINING_JOB_RE = r"\b(?:train\w*|fine[\s\-]?tun\w*|pre[\s\-]?train\w*|lora)\b|训练|微调|预训练"


_UNITS = {"bf16_dense_tflops": "TFLOPS", "memory_bandwidth_gb_s": "GB/s", "memory_gib": "GB"}

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
        if s.precision in ("fp8", "bf16") and re.search(SUPPORT_ASK, self.question, re.IGNORECASE):
            # "L20 支持 FP8，A10 呢": each card's support; the card asked last ("A10 呢", "what about the A10") first
            ordered = gpus[::-1] if re.search(r"呢|what\s+about|how\s+about|and\s+the", self.question, re.I) else gpus
            lines = [line for g in ordered if (line := self.precision_support(g, s.precision))]
            parts[0:0] = lines
        figure = asked_figure(self.question)
        if figure == "compute" and not re.search(r"算力|tflops|flops|compute", self.question, re.IGNORECASE):
            figure = None  # "哪个性能好" weighs the whole card: the pick answers it
        field = {"compute": "bf16_dense_tflops", "bandwidth": "memory_bandwidth_gb_s", "memory": "memory_gib"}.get(
            figure or ""
        )
        listed = bool(field and len(gpus) >= 3 and all(getattr(g, field) is not None for g in gpus))
        if field and listed:
            # "带宽 A100 > A10 > T4，各是多少": each card's figure, highest first
            ranked = sorted(gpus, key=lambda g: getattr(g, field), reverse=True)
            items = ("、" if self.lang == "zh" else ", ").join(
                f"{g.name} {render.fig(getattr(g, field))} {_UNITS[field]}" for g in ranked)  # fmt: skip
            parts.insert(0, say("gpus.each_figure", self.lang, what=say(f"gpus.what_{field}", self.lang), items=items))
            if (low := re.search(SUPERLATIVE_RE, self.question, re.IGNORECASE)) and s.gpu_mentions:
                # "Is the T4 really the slowest?": yes or no about the card named first, then every figure
                low_words = r"slowest|lowest|smallest|least|最慢|最低|最小|最少"
                extreme = ranked[-1] if re.fullmatch(low_words, low.group(0), re.IGNORECASE) else ranked[0]
                asked = catalog_gpu(s.gpu_mentions[0])
                code = "gpus.extreme_yes" if asked == extreme.name else "gpus.extreme_no"
                if not re.search(r"^\s*(?:is|are|was)\b|是不是|是否|吗|么", self.question, re.IGNORECASE):
                    code = "gpus.extreme_which"  # "哪个带宽最高": which, not yes or no
                parts[0] = say(code, self.lang, gpu=extreme.name) + " " + parts[0]
        elif field and (line := self.verdict_on(gpus[0], gpus[1], field)):
            parts.remove(line)
            parts.insert(0, line)  # "how much memory does an L20 have compared to an A10?": that figure first
        priced = None
        if re.search(_PRICE_ASK, self.question, re.IGNORECASE):  # "gn7i 和 gn8is 哪个便宜": each side's price first
            sides = dict(by_family)
            for name in s.gpu_mentions[:3]:
                listed, _ = yield from self.call("find_instance_types", find_instance_types, gpu=catalog_gpu(name))
                sides[name] = listed.instances if listed is not None else []
            if len(sides) >= 2 and (priced := (yield from self.price_lead(sides))):
                line, cheaper = priced  # "is the A10 cheaper than the T4?": yes or no first
                winners = [(say("lead.crit_cost", self.lang), cheaper)] if cheaper else []
                parts.insert(0, yes_no_lead(line, winners, list(sides), self.question, self.lang))
        if not priced and not listed and (claim := comparison_line(self.question, gpus[0], gpus[1], self.lang)):
            parts.insert(0, say(claim.code, self.lang, **claim.figures))  # the claim or "which is faster" first
        elif not priced and (yes_no := self.pick_yes_no([*s.gpu_mentions, *by_family], gpus)):
            parts[0] = f"{yes_no} {parts[0]}"  # "Is gn8is better than gn7i?": yes or no (per job) before the pick
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

    def pick_yes_no(self, labels: list[str], gpus: list[GPU]) -> str | None:
        """'Is the L20 better than the A10?': yes, no, or yes for one job and not the other, for the card asked about.

        Serving is decided by memory bandwidth, training by dense BF16 compute (as :meth:`pick` decides them).
        """
        if len(gpus) != 2 or len(labels) != 2 or not asks_whether_better(self.question):
            return None
        subject = subject_of(labels, self.question)
        if subject is None:
            return None
        me, other = (gpus[0], gpus[1]) if subject == labels[0] else (gpus[1], gpus[0])
        worse = asks_whether_worse(self.question)  # "is X slower than Y?": the other side winning is a yes
        serving = ((me.memory_bandwidth_gb_s or 0) > (other.memory_bandwidth_gb_s or 0)) != worse
        training = ((me.bf16_dense_tflops or 0) > (other.bf16_dense_tflops or 0)) != worse
        if serving == training:
            return say("lead.yn_yes" if serving else "lead.yn_no", self.lang)
        jobs = [say("compare.job_serving", self.lang), say("compare.job_training", self.lang)]
        first, second = jobs if serving else jobs[::-1]
        return say("lead.yn_first", self.lang, ca=first, cb=second)

    def verdicts(self, a: GPU, b: GPU) -> list[str]:
        """Which GPU is ahead on dense BF16, memory bandwidth and memory, stating both figures."""
        lines = (self.verdict_on(a, b, field) for field in _UNITS)
        return [line for line in lines if line]

    def verdict_on(self, a: GPU, b: GPU, field: str) -> str | None:
        """Which of two GPUs is ahead on one spec, with both figures (None: unknown or equal)."""
        va, vb = getattr(a, field), getattr(b, field)
        if va is None or vb is None or va == vb:
            return None
        hi, vh, vl = (a, va, vb) if va > vb else (b, vb, va)
        what = say(f"gpus.what_{field}", self.lang)
        return say("gpus.higher", self.lang, what=what, gpu=hi.name, high=render.fig(vh), low=render.fig(vl),
                   unit=_UNITS[field])  # fmt: skip

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
