"""What the engine understood, the clarifying question, and what guidance a plan cites."""

from __future__ import annotations

import re

from assistant import render
from assistant.answer import AnswerDetail
from assistant.conversation import Missing, default_for
from assistant.intents.arguments import (
    size_words,
)
from assistant.messages import say
from assistant.phrases import PRETRAIN_RE
from assistant.run import TRAINING, Reply, Run
from assistant.understanding import Slots
from assistant.usage_words import billing_modes
from tools.plan import Plan


class DescribeIntent(Run):
    """Says what was understood or asks what is missing."""

    def clarify(self, s: Slots, missing: list[Missing]) -> Reply:
        """Ask one question covering what is missing, and say what will be assumed otherwise."""
        first = missing[0]
        assume = [v for m in missing if (v := default_for(m, s))]
        if first == "model":
            # one question covering both when the task (or method) is missing too
            both = "task" in missing or "method" in missing
            question = say("describe.clarify_model_task" if both else "describe.clarify_model", self.lang)
        elif first == "method":
            question = say("describe.clarify_method", self.lang, model=s.model)
        else:
            question = say("describe.clarify_task", self.lang, model=s.model)
        if assume:
            labels = {"inference": say("describe.task_inference", self.lang), "lora": "LoRA",
                      "full": say("describe.task_full", self.lang)}  # fmt: skip
            said = ("、" if self.lang == "zh" else ", ").join(labels.get(a, a) for a in assume)
            padded = f" {said} " if self.lang == "zh" and said[:1].isascii() else said
            question += say("describe.assume", self.lang, said=padded)
        return Reply(text=question, kind="clarification")

    def understood_line(self, s: Slots) -> str:
        """Show what the engine took from the conversation, so the user can correct it."""
        task_names = {
            "inference": say("describe.task_inference", self.lang),
            "full": say("describe.task_full", self.lang),
            "lora": "LoRA",
            "qlora": "QLoRA",
        }
        if s.task == "full" and re.search(PRETRAIN_RE, self.question, re.IGNORECASE):
            task_names["full"] = say("describe.task_pretraining", self.lang)
        items = [f"{s.model}", task_names.get(s.task or "", s.task or "")]
        if s.precision:
            fmt = f"{s.precision}" + (f" ({s.quant})" if s.quant else "")
            items.append(fmt + (say("describe.quant_guessed", self.lang) if s.quant_guessed else ""))
        training = s.task in TRAINING
        label = lambda code: say(f"describe.label_{code}", self.lang)  # noqa: E731
        labels = (
            ("context", label("seq_len") if training else label("context"), ""),
            ("concurrency", label("concurrency"), ""),
            ("qps", "QPS", ""),
            ("prompt_tokens", label("prompt"), " tokens"),
            ("gen_tokens", label("output"), " tokens"),
            ("batch", "batch", ""),
            ("train_tokens", label("train_tokens"), ""),
            ("budget_cny_month", label("budget"), say("describe.per_month", self.lang)),
            ("job_budget_cny", label("budget"), ""),
            ("region", label("region"), ""),
            ("gpu", "GPU", ""),
            ("gpus", label("gpus"), ""),
            ("max_instances", label("max_instances"), ""),
            ("rental_hours", label("rental"), say("describe.hours", self.lang)),
        )
        unused = (
            ("concurrency", "qps", "prompt_tokens", "gen_tokens", "rental_hours") if training else ("train_tokens",)
        )  # plan_args drops these
        if not training and s.prompt_tokens and s.gen_tokens and s.context == s.prompt_tokens + s.gen_tokens:
            unused += ("context",)  # the request's lengths are said; their sum is no figure the tools gave
        for field, name, unit in labels:
            value = None if field in unused else getattr(s, field)
            if value is not None:
                shown = value if isinstance(value, str) else render.fig(value)
                if field == "region" and value == "any":
                    shown = say("describe.region_any", self.lang)  # the cheapest region, not a region named "any"
                items.append(f"{name}{'' if name.endswith('¥') else ' '}{shown}{unit}")
        if s.exclude_gpus:  # "not on A10s": said back, so the user sees it was honoured
            items.append(say("describe.not_on", self.lang) + "/".join(s.exclude_gpus))
        line = say("describe.understood", self.lang) + " · ".join(i for i in items if i)
        line += "".join(f"\n\n_{note}_" for note in self.workload_notes(s))
        for item, value in self.conv.defaulted.items():
            line += "\n\n_" + say(f"describe.defaulted_{item}", self.lang, value=value) + "_"
        return line

    def workload_notes(self, s: Slots) -> list[str]:
        """Conversions the answer rests on: lengths in the user's units, samples x tokens x epochs."""
        notes = []
        if s.lengths:  # short in the text; the ratios and their sources fold into details
            sep = "；" if self.lang == "zh" else "; "
            notes.append(sep.join(
                say("length.short", self.lang, amount=render.fig(c.amount), unit=say(f"unit.{c.unit}", self.lang),
                    tokens=render.fig(c.tokens))
                for c in s.lengths
            ))  # fmt: skip
        if s.daily_users and s.concurrency == s.daily_users.peak_concurrency:
            dau = s.daily_users
            code = "dau.stated" if dau.stated_share else "dau.assumed"
            notes.append(say(code, self.lang, users=render.fig(dau.users), n=render.fig(dau.peak_concurrency),
                             pct=render.fig(dau.peak_share * 100)))  # fmt: skip
        if s.task in TRAINING and s.samples and s.tokens_per_sample and s.train_tokens:
            notes.append(
                say("training.volume", self.lang, samples=render.fig(s.samples), epochs=render.fig(s.epochs or 1),
                    per_sample=render.fig(s.tokens_per_sample), tokens=render.fig(s.train_tokens))
            )  # fmt: skip
        return notes

    def length_details(self, s: Slots) -> list[AnswerDetail]:
        """Return the length conversions with their ratio and source, folded under the answer."""
        lines = [
            say("length.assumed", self.lang, amount=render.fig(c.amount), unit=say(f"unit.{c.unit}", self.lang),
                unit_one=say(f"unit_one.{c.unit}", self.lang), tokens=render.fig(c.tokens),
                ratio=render.fig(c.tokens_per_unit), source=render.link_urls(c.source or ""))
            for c in s.lengths
        ]  # fmt: skip
        if not lines:
            return []
        return [AnswerDetail(title=say("details.lengths", self.lang), markdown="\n".join(f"- {x}" for x in lines))]

    def plan_query(self, s: Slots, plan: Plan) -> str:
        """Build the guidance query for a plan: the top option's family and the topic that dominates sizing."""
        family = plan.options[0].family if plan.options else ""
        modes = billing_modes(self.question)
        if "spot" in modes:  # the billing verdict leads: cite where spot fits
            return say("query.spot", self.lang)
        if len(modes) >= 2:
            return say("query.billing", self.lang)
        if s.gpu and s.size_b:
            return f"{s.gpu} {size_words(s.size_b)} {s.precision or ''} {self.question}"
        if s.task in TRAINING:
            return say("query.training", self.lang, family=family, task=s.task)
        if s.quant or s.precision in ("int4", "int8", "fp8"):
            return say("query.quant", self.lang, family=family, quant=s.quant or s.precision)
        return say("query.memory", self.lang, family=family)

    def plan_docs(self, s: Slots) -> tuple[str, ...]:
        """Guidance documents to prefer for a plan about ``s``."""
        if "spot" in (modes := billing_modes(self.question)) or len(modes) >= 2:
            return ("cost-optimization",)
        if s.gpu and s.size_b:
            return ("original-article-corrections", "memory-sizing")
        if s.task in TRAINING:
            return ("memory-sizing", "distributed-training")
        if s.quant or s.precision in ("int4", "int8", "fp8"):
            return ("quantization", "instance-families")
        return ("memory-sizing", "inference-serving", "instance-families")

    # ------------------------------------------------------------------ catalog questions
