"""A why-question leads with the reason and its figure, then the fix ("why does my vLLM OOM at 32k on an A10?").

"Why won't 14B load on my T4?", "为啥 72B 4bit 两张 A10 还跑不起来", "why does it OOM at max-model-len 32768?":
the user already saw the failure; a "yes" or "no" answers nothing. The first line gives the cause from the
typed outcomes: what the workload needs per GPU against what the hardware has (and the shortfall), or, when
the estimate fits, how few sequences of that length the K/V budget holds at once (serving) or that the
activations at that sequence length are the margin (training). The fix follows: the evaluator's smallest
changes, or the serving settings that bound memory. Every figure is a tool result or the question's.
"""

from __future__ import annotations

from typing import Any

from assistant import render
from assistant.answer import AnswerDetail
from assistant.intents.hardware import HardwareIntent
from assistant.messages import say
from assistant.reading import compiled, parse_number
from assistant.run import Events, Reply
from assistant.toolbox import concurrent_users, evaluate_hardware_fit
from assistant.understanding import Slots
from tools.capacity import Capacity
from tools.hardware_fit import HardwareFit
from tools.workload import DEFAULT_CONTEXT_TOKENS

_FOLD_AFTER = 1200  # characters of a why-answer before the plan that follows the reason folds


class WhyLeads(HardwareIntent):
    """Puts the reason, with its figure, in front of a reply to a why-question."""

    def lead_for_why(self, s: Slots, reply: Reply) -> Events:
        """Lead ``reply`` with the cause of the failure the user asks about, then the fix; unchanged if unknown."""
        fit = self.why_fit()
        if fit is None and s.model and s.gpu and not s.instance_types:
            # "A10 上 seq_len 8192 就爆显存": the card the user runs on, one unless they said how many.
            yield from self.hardware_verdict(s, {"gpu": self.one_gpu(s.gpu), "gpus": s.gpus or 1, "instances": 1})
            fit = self.why_fit()
        if fit is not None and fit.fits and (other := other_count(self.question, fit.hardware.gpus)):
            # "为什么 R1 要 8 卡 H20？4 卡不行吗": the smaller set the user asks about is the failure explained.
            args = {"model": s.model, "task": fit.task, "gpu": fit.hardware.gpu, "gpus": other, "instances": 1}
            if fit.task == "inference":
                args |= {"precision": s.precision, "quant": s.quant, "context": s.context,
                         "concurrency": s.concurrency or s.batch}  # fmt: skip
            yield from self.call("evaluate_hardware_fit", evaluate_hardware_fit, **args)
            fit = self.why_fit()
        if fit is None:
            return reply
        lines = self.fit_lines(fit)
        rest = reply.text
        first, _, after = rest.partition("\n\n")
        if first.strip() == lines[0].strip():  # the handler's verdict line is replaced by the reason
            rest = after
        label = self.hardware_label(fit.hardware)
        label = label[0].lower() + label[1:] if label.startswith("One ") else label  # mid-sentence in English
        figures = {"hardware": label, "model": fit.model, "need": render.fig(fit.per_gpu_needed_gib),
                   "usable": render.fig(fit.per_gpu_usable_gib)}  # fmt: skip
        if not fit.fits:
            code = "why.short_no" if self.turn_form().form == "yes_no" else "why.short"  # "isn't one enough?"
            head = [say(code, self.lang, short=render.fig(fit.shortfall_gib), **figures), *lines[1:]]
            rest = rest.replace(lines[1], "").lstrip() if len(lines) > 1 else rest
        elif fit.task == "inference":
            head = yield from self.why_serving_fits(s, fit, figures)
        else:
            seq = fit_setting(self, "seq_len") or s.context
            head = [say("why.train_fits", self.lang, pct=render.fig(fit.headroom_pct),
                        seq=render.fig(seq) if seq else "?", **figures)]  # fmt: skip
        paragraphs = [p for p in rest.split("\n\n") if p.strip()]
        if len("\n\n".join([*head, *paragraphs])) > _FOLD_AFTER and len(paragraphs) > 1:
            # The reason and the fix answer; the plan that followed folds, the understood line stays.
            folded, paragraphs = paragraphs[:-1], paragraphs[-1:]
            reply.details.insert(0, AnswerDetail(title=say("details.plan", self.lang), markdown="\n\n".join(folded)))
        reply.text = "\n\n".join([*head, *paragraphs])
        return reply

    def why_fit(self) -> HardwareFit | None:
        """Return the hardware fit the failure is about: the first that does not fit, else the first evaluated."""
        fits = [HardwareFit.model_validate(c.result) for c in self.calls
                if c.name == "evaluate_hardware_fit" and isinstance(c.result, dict)]  # fmt: skip
        return next((f for f in fits if not f.fits), fits[0] if fits else None)

    def why_serving_fits(self, s: Slots, fit: HardwareFit, figures: dict[str, Any]) -> Events:
        """Explain an OOM on hardware that holds one sequence: how many sequences of that length the K/V holds."""
        hardware: dict[str, Any] = {"instances": fit.hardware.instances}
        if fit.hardware.instance_type:
            hardware["instance_type"] = fit.hardware.instance_type
        else:
            hardware |= {"gpu": fit.hardware.gpu, "gpus": fit.hardware.gpus // max(fit.hardware.instances, 1)}
        args = {"model": s.model, "context": s.context or DEFAULT_CONTEXT_TOKENS, "architecture": s.architecture,
                "precision": s.precision, "quant": s.quant, **hardware}  # fmt: skip
        cap, err = yield from self.call("concurrent_users", concurrent_users, **args)
        if err or not isinstance(cap, Capacity):
            return [self.fit_lines(fit)[0]]
        n = max(cap.sequences, 1)
        return [
            say("why.kv_room", self.lang, n=render.fig(cap.sequences), context=render.fig(cap.context),
                kv=render.fig(cap.kv_gib_per_sequence), fixed=render.fig(cap.fixed_gib_per_gpu),
                budget=render.fig(cap.kv_budget_gib_per_gpu), **figures),
            say("why.serving_fix", self.lang, n=render.fig(n), context=render.fig(cap.context)),
        ]  # fmt: skip


def fit_setting(run: WhyLeads, name: str) -> int | None:
    """Return an argument of the fit call ("seq_len"), if it was given."""
    for call in run.calls:
        if call.name == "evaluate_hardware_fit" and isinstance(call.args.get(name), int):
            return int(call.args[name])
    return None


# A count of GPUs as written: "4 卡", "四张", "4 GPUs", "two cards".
_COUNT = (
    r"(?<![\w.])(\d{1,3}|[一二两三四五六七八]|one|two|three|four|six|eight)\s*(?:张|块|个)?\s*"
    r"(?:卡|显卡|gpus?\b|cards?\b)"
)
_EN_COUNTS = {"one": 1, "two": 2, "three": 3, "four": 4, "six": 6, "eight": 8}


def other_count(question: str, evaluated: int) -> int | None:
    """Return a smaller GPU count the question also names than the one evaluated ("8 卡起步？4 卡不行吗" -> 4)."""
    for m in compiled(_COUNT).finditer(question):
        word = m.group(1).lower()
        n = _EN_COUNTS.get(word) or int(parse_number(word))
        if 0 < n < evaluated:
            return n
    return None
