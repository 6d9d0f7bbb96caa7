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
from assistant.rate_words import billing_modes
from assistant.run import TRAINING, Reply, Run
from assistant.understanding import Slots
from tools.plan import Plan


class DescribeIntent(Run):
    """Says what was understood or asks what is missing."""

    def clarify(self, s: Slots, missing: list[Missing]) -> Reply:
        """Ask one question covering what is missing, and say what will be assumed otherwise."""
        first = missing[0]
        assume = [v for m in missing if (v := default_for(m, s))]
        if first == "model":
            question = self.t(
                "请问是哪个模型（例如 Qwen2.5-72B-Instruct、Llama-3.1-8B-Instruct 或 DeepSeek-R1）？",
                "Which model is it (for example Qwen2.5-72B-Instruct, Llama-3.1-8B-Instruct or DeepSeek-R1)?",
            )
            if "task" in missing or "method" in missing:  # one question covering both
                question = self.t(
                    question[:-1] + "，用来推理部署还是微调？",
                    question[:-1] + ", and is it for serving or fine-tuning?",
                )
        elif first == "method":
            question = self.t(
                f"{s.model} 打算用哪种微调方式：全参微调、LoRA 还是 QLoRA？",
                f"Which fine-tuning method for {s.model}: full fine-tuning, LoRA or QLoRA?",
            )
        else:
            question = self.t(
                f"{s.model} 是用来推理部署，还是微调（全参、LoRA、QLoRA）？",
                f"Do you want to serve {s.model} (inference) or fine-tune it (full, LoRA or QLoRA)?",
            )
        if assume:
            labels = {"inference": self.t("推理部署", "inference"), "lora": "LoRA"}
            said = ", ".join(labels.get(a, a) for a in assume)
            padded = f" {said} " if said[:1].isascii() else said
            question += self.t(f"如果不说明，我将按{padded}计算。", f" If you don't say, I'll assume {said}.")
        return Reply(text=question, kind="clarification")

    def understood_line(self, s: Slots) -> str:
        """Show what the engine took from the conversation, so the user can correct it."""
        task_names = {
            "inference": self.t("推理部署", "inference"),
            "full": self.t("全参微调", "full fine-tuning"),
            "lora": "LoRA",
            "qlora": "QLoRA",
        }
        if s.task == "full" and re.search(PRETRAIN_RE, self.question, re.IGNORECASE):
            task_names["full"] = self.t("全参训练（预训练）", "full training (pretraining)")
        items = [f"{s.model}", task_names.get(s.task or "", s.task or "")]
        if s.precision:
            fmt = f"{s.precision}" + (f" ({s.quant})" if s.quant else "")
            items.append(
                fmt + (self.t("（“量化”按 4 bit 理解）", " ('quantised' read as 4-bit)") if s.quant_guessed else "")
            )
        training = s.task in TRAINING
        labels = (
            ("context", self.t("序列长度", "sequence length") if training else self.t("上下文", "context"), ""),
            ("concurrency", self.t("并发", "concurrency"), ""),
            ("qps", "QPS", ""),
            ("prompt_tokens", self.t("输入", "prompt"), " tokens"),
            ("gen_tokens", self.t("输出", "output"), " tokens"),
            ("batch", "batch", ""),
            ("train_tokens", self.t("训练 tokens", "training tokens"), ""),
            ("budget_cny_month", self.t("预算 ¥", "budget ¥"), self.t("/月", "/month")),
            ("region", self.t("地域", "region"), ""),
            ("gpu", "GPU", ""),
            ("gpus", self.t("卡数", "GPUs"), ""),
            ("max_instances", self.t("最多台数", "at most instances"), ""),
        )
        unused = (
            ("concurrency", "qps", "prompt_tokens", "gen_tokens") if training else ("train_tokens",)
        )  # plan_args drops these
        for field, label, unit in labels:
            value = None if field in unused else getattr(s, field)
            if value is not None:
                shown = value if isinstance(value, str) else render.fig(value)
                items.append(f"{label}{'' if label.endswith('¥') else ' '}{shown}{unit}")
        if s.exclude_gpus:  # "not on A10s": said back, so the user sees it was honoured
            items.append(self.t("不用 ", "not on ") + "/".join(s.exclude_gpus))
        line = self.t("**理解的需求：** ", "**Understood:** ") + " · ".join(i for i in items if i)
        line += "".join(f"\n\n_{note}_" for note in self.workload_notes(s))
        for item, value in self.conv.defaulted.items():
            note = {
                "model": self.t(
                    f"模型按 {value} 计算（同规模的代表模型）", f"model taken as {value} (a model of that size)"
                ),
                "task": self.t("任务按推理部署计算", "task taken as inference"),
                "method": self.t("微调方式按 LoRA 计算", "fine-tuning method taken as LoRA"),
            }[item]
            line += f"\n\n_{note}_"
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
            return self.t("抢占式实例 回收 保护期 检查点", "preemptible spot instances interruption where spot fits")
        if len(modes) >= 2:
            return self.t("计费方式 包年包月 按量付费", "billing methods subscription pay-as-you-go")
        if s.gpu and s.size_b:
            return f"{s.gpu} {size_words(s.size_b)} {s.precision or ''} {self.question}"
        if s.task in TRAINING:
            return self.t(f"{family} 训练 显存 {s.task}", f"{family} training memory {s.task} fine-tuning")
        if s.quant or s.precision in ("int4", "int8", "fp8"):
            return self.t(
                f"{family} 量化 {s.quant or s.precision} 部署",
                f"{family} quantization {s.quant or s.precision} serving",
            )
        return self.t(f"{family} 上下文 并发 KV cache 显存", f"{family} context length concurrency KV cache memory")

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
