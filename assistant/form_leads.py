"""The guarantee that an answer's first line answers the question's form, whatever intent built it.

Applied once, at composition time (:mod:`assistant.engine`), after the intent handler: a yes/no question
(:mod:`assistant.question_form`) gets a yes / no first, decided by typed outcomes. An outcome that rules the
workload out on its own (a context beyond the model's limit, a run longer than the stated deadline, a price
above the amount asked about, a GPU with no price in the asked region) leads even when the handler's first
line said yes to the memory; a first line with no yes or no at all gets one from the fit or plan results.
Every line comes from the message catalogue; every figure from a tool result or the question.
"""

from __future__ import annotations

import re

from assistant import render
from assistant.deadline_leads import DeadlineLeads
from assistant.intents.plan_leads import plan_verdict
from assistant.intents.target_lead import ttft_verdict
from assistant.intents.verdict_billing import BillingLeads, asks_occasional_subscription, occasional_subscription_line
from assistant.messages import catalogue, say
from assistant.question_form import QuestionForm, read_form
from assistant.ruling_out import RulingOut
from assistant.run import Events, Language, Reply
from assistant.toolbox import cheapest_region_for_gpu, price_of_instance
from assistant.understanding import Slots
from assistant.why_leads import WhyLeads
from tools.hardware_fit import HardwareFit
from tools.plan import Plan
from tools.price_quotes import GpuRegionPrices

# The yes and no words our own leads (and the handlers' catalogue lines) open with; the earliest decides.
_NO = (
    r"\b(?:no|not|doesn'?t|does\s+not|won'?t|cannot|can'?t|isn'?t|insufficient)\b|"
    r"不能|不够|不行|不可以|放不下|装不下|跑不了|跑不动|不合适|不建议|不适合|无法|不是|来不及|没必要|不需要|不值得|不划算"
)
_YES = (
    r"\b(?:yes|fits?|enough|can|sufficient|works?)\b|(?<![性功智效可本])能(?!否)|可以|够|放得下|装得下|合适|适合|"
    r"足够|没问题|是的|有必要|需要|(?<!不)值得"
)
_SKIPPED_KINDS = ("clarification", "error", "out_of_scope")
# it fits; another option holds it for less (named hardware, or a GPU's best option)
_DEARER = ("fit.yes_but_cheaper", "fit.yes_but_smaller", "gpu.yes_but", "gpu.yes_smaller")
_SMALLER = ("fit.yes_but_smaller", "gpu.yes_smaller")  # the named hardware has no price: a smaller card, not cheaper
_DEADLINE_BLANKS = {k: "" for k in ("named", "named_gpus", "named_days", "gpus", "gpu", "hours", "days", "deadline")}
_BLANKS = {k: "" for k in ("hardware", "model", "need", "usable", "pct", "other", "other_gpu", "other_price", "gpu",
                           "instances", "instance_type", "total")}  # fmt: skip


# A first line that introduces a quoted passage answers nothing itself, whatever words the passage has.
_PASSAGE_HEAD = r"^\W*(?:参考资料的说法|What the guidance says)"


def lead_verdict(text: str) -> str | None:
    """'yes' or 'no' from the first line of ``text`` (its earliest yes or no word), or None when it has neither."""
    line = next((ln for ln in text.splitlines() if ln.strip()), "")
    if re.match(_PASSAGE_HEAD, line) or line.lstrip().startswith(">"):
        return None
    line = re.sub(r"[*_#`>]", "", line)
    no, yes = re.search(_NO, line, re.IGNORECASE), re.search(_YES, line, re.IGNORECASE)
    if no and (not yes or no.start() <= yes.start()):
        return "no"
    return "yes" if yes else None


class FormLeads(WhyLeads, DeadlineLeads, BillingLeads, RulingOut):
    """Puts the answer to the question's form in front of the reply another handler built."""

    def turn_form(self) -> QuestionForm:
        """Return the form of this turn; a bare follow-up ('and with 40 users?') keeps the previous turn's form."""
        form = read_form(self.question)
        if form.form == "open" and self.conv.turn.follow_up:
            earlier = next((m.content for m in reversed(self.history) if m.role == "user"), None)
            if earlier:
                before = read_form(earlier)
                return form.model_copy(update={"form": before.form, "deadline_hours": before.deadline_hours})
        return form

    def lead_for_form(self, s: Slots, reply: Reply) -> Events:
        """Make the first line of ``reply`` answer the question's form; a training deadline gets a set that meets it."""
        form = self.turn_form()
        asks_time = "how_long" in (form.form, *form.also)
        if asks_time and reply.kind not in _SKIPPED_KINDS and (line := (yield from self.per_volume_line(s))):
            reply.text = line + "\n\n" + reply.text  # "要多久、花多少钱" with no volume: the rate per 100M tokens
            return reply
        reply = yield from self.lead_for_yes_no(s, reply, form)
        if form.mistake and not form.why and reply.kind not in _SKIPPED_KINDS and (said := lead_verdict(reply.text)):
            # "would it be a mistake to serve X on one H20?": a fit is "no", a cheaper option "partly", no fit "yes"
            code = "form.mistake_yes" if said == "no" else "form.mistake_dearer" if self.fits_but_dearer(
                reply.text) else "form.mistake_no"  # fmt: skip
            reply.text = _head_replaced(reply.text, say(code, self.lang), self.lang)
            return reply
        failed = form.failure and not form.why and reply.kind not in _SKIPPED_KINDS
        if failed and (fits := lead_verdict(reply.text)) is not None:  # "will it OOM?": "no", when it fits
            reply.text = failure_lead(reply.text, fits == "yes", self.lang)
        if form.form == "yes_no" and reply.kind not in _SKIPPED_KINDS:
            reply.text = asked_parts_joined(reply.text, form)  # "行不行？一个月多少钱？": both on the first line
        run = self.training_result()
        if form.deadline_hours and run is not None and reply.kind not in _SKIPPED_KINDS:
            if lines := (yield from self.deadline_lines(form.deadline_hours, run)):
                first, sep, rest = reply.text.partition("\n\n")
                at_top = lines[0].startswith(say("deadline.not_offered", self.lang, **_DEADLINE_BLANKS)[:8])
                at_top = at_top or form.form == "how_many"  # "how many A100s to finish in 30 days?": the count
                parts = [*lines, reply.text] if at_top else [first, *lines, rest]
                reply.text = "\n\n".join(p for p in parts if p.strip())
            elif form.form == "yes_no" and lead_verdict(reply.text) == "yes" and run.hours <= form.deadline_hours:
                # "can we finish within a day on 8 A100s?": the time decides the yes, not the memory fit
                reply.text = self.in_time_line(run, form.deadline_hours) + "\n\n" + reply.text
        elif form.deadline_hours and form.form == "yes_no" and reply.kind not in _SKIPPED_KINDS:
            fits = lead_verdict(reply.text) == "yes"  # "LoRA 7B 一天能搞定吗": what a day trains, no volume given
            if fits and (line := (yield from self.volume_in_deadline(s, form.deadline_hours))):
                reply.text = line + "\n\n" + reply.text
        return reply

    def lead_for_yes_no(self, s: Slots, reply: Reply, form: QuestionForm) -> Events:
        """Make the first line of ``reply`` answer a yes/no (or why) question, from typed outcomes."""
        if form.why and reply.kind not in _SKIPPED_KINDS:  # "why does it OOM?": the reason, then the fix
            return (yield from self.lead_for_why(s, reply))
        if form.form != "yes_no" or reply.kind in ("error", "out_of_scope") or self.concept_lead:
            return reply  # "INT4 会让效果差很多吗": the concept's answer is the answer, not whether the model fits
        if reply.kind == "clarification":  # "is 500 RMB a month enough for a T4?": money or stock needs no model
            line = yield from self.hardware_only_verdict(s, form)
            return Reply(text=line, kind="guidance") if line else reply
        said = lead_verdict(reply.text)
        if (form.worth or form.cheapest) and said == "yes" and (dearer := self.fits_but_dearer(reply.text)):
            # "Is gn6v still worth it?", "Is a T4 the cheapest way?": the value asked about is the no; the
            # handler's figures and the cheaper (or, unpriced, the much smaller) option stay on the first line.
            code = "form.not_worth" if form.worth else "form.not_cheapest"
            head = say(code + ("_smaller" if dearer in _SMALLER else ""), self.lang)
            reply.text = _head_replaced(reply.text, head, self.lang)
            return reply
        if s.speed and s.speed.ttft_s and (s.gpu or s.instance_types):  # "首 token 能在 0.5 秒内吗" on named hardware
            named = (s.gpu, s.gpus, s.instance_types)
            if line := ttft_verdict(named, s.speed.ttft_s, self.calls, self.lang):
                reply.text = line + "\n\n" + reply.text
                return reply
        if form.speed_tokens_s and (line := self.speed_verdict(s, form)) and not (said == "no" and lead_is_no(line)):
            reply.text = line + "\n\n" + reply.text  # "能到每秒 50 个 token 吗": the speed decides, not the memory
            return reply
        if (unusable := (yield from self.count_cannot_shard(s))) is not None:
            reply.text = unusable + "\n\n" + reply.text  # the set named was not evaluated: say why before any other
            return reply
        blocker = yield from self.ruling_out(s, form)
        if blocker and said != "no":
            reply.text = blocker + "\n\n" + reply.text
        elif said is None and (moved := verdict_moved_up(reply.text, form, self.lang)) is not None:
            reply.text = moved  # "is the H20 good for 72B, and how fast?": the handler's own verdict, not a second
        elif said is None and (lead := (yield from self.lead_from_outcomes(s, form))):
            reply.text = joined_lead(lead, reply.text, form)
        return reply

    def speed_verdict(self, s: Slots, form: QuestionForm) -> str | None:
        """'At least 30 tokens/s per user?': the planned decode speed on the named GPU against the target."""
        plans = [Plan.model_validate(c.result) for c in self.calls
                 if c.name == "plan_gpu_deployment" and isinstance(c.result, dict)]  # fmt: skip
        options = [o for p in plans for o in p.options if o.decode_tokens_per_s and o.decode_tokens_per_s_per_stream]
        named = [o for o in options if s.gpu and s.gpu in (o.gpu_model or o.gpu_model_likely or "")]
        sized = [o for o in named if not s.gpus or o.total_gpus == s.gpus]
        if s.gpus and not sized and (slow := self.too_slow(s, plans)):
            return slow  # the planner turned the named set away for missing the speed: its figure says no
        top = (sized or named or options or [None])[0]
        if top is None or form.speed_tokens_s is None:
            return None
        speed = (top.decode_tokens_per_s if form.speed_total else top.decode_tokens_per_s_per_stream) or 0.0
        code = "form.speed_yes" if speed >= form.speed_tokens_s else "form.speed_no"
        per = say("form.speed_total" if form.speed_total else "form.speed_stream", self.lang)
        return say(code, self.lang, speed=render.fig(speed), per=per, target=render.fig(form.speed_tokens_s),
                   instances=top.instances, instance_type=top.instance_type)  # fmt: skip

    def too_slow(self, s: Slots, plans: list[Plan]) -> str | None:
        """Return 'no' for the named GPU set when the planner rejected it for a speed target, else None."""
        for plan in plans:
            for r in plan.rejected:
                gpus, gpu = r.reason.values.get("gpus"), r.gpu_model or ""
                if r.reason.code == "reject.speed_per_stream" and s.gpu and s.gpu in gpu and gpus in (None, s.gpus):
                    return say("form.speed_no", self.lang, speed=render.fig(r.reason.values["reached"]),
                               per=say("form.speed_stream", self.lang), target=render.fig(r.reason.values["target"]),
                               instances=1, instance_type=r.instance_type)  # fmt: skip
        return None

    def hardware_only_verdict(self, s: Slots, form: QuestionForm) -> Events:
        """Answer a yes/no about money or stock of named hardware without a workload, or None."""
        if s.model or not (s.gpu or s.instance_types) or not (form.amount_cny or s.budget_cny_month or s.region):
            return None
        yield from self.price_named_hardware(s)
        return self.price_above_amount(s, form) or self.region_stock(s)

    def price_named_hardware(self, s: Slots) -> Events:
        """Price the hardware named (an instance type, else the cheapest type with the GPU) for the money checks."""
        if s.instance_types:
            yield from self.call("price_of_instance", price_of_instance, instance_type=s.instance_types[0],
                                 region=s.region if s.region != "any" else None)  # fmt: skip
            return
        found, _ = yield from self.call("cheapest_region_for_gpu", cheapest_region_for_gpu,
                                        gpu=self.one_gpu(s.gpu or ""), gpu_count=s.gpus or 1)  # fmt: skip
        if isinstance(found, GpuRegionPrices) and found.cheapest_instance_type and found.cheapest:
            yield from self.call("price_of_instance", price_of_instance, instance_type=found.cheapest_instance_type,
                                 region=found.cheapest.region)  # fmt: skip

    def fits_but_dearer(self, text: str) -> str | None:
        """Return the code of the 'it fits, but a smaller or cheaper option holds it too' line the reply opens with."""
        for code in _DEARER:
            head = say(code, self.lang, **_BLANKS).partition("**")[2].partition("**")[0]
            if head and text.lstrip("* ").startswith(head):
                return code
        return None

    # ------------------------------------------------------------------ outcomes that rule the workload out

    def ruling_out(self, s: Slots, form: QuestionForm) -> Events:
        """Return the 'no' line of an outcome that rules the workload out on its own, or None."""
        if (line := (yield from self.context_beyond_limit(s))) is not None:
            return line
        if form.deadline_hours and (line := (yield from self.beyond_deadline(s, form.deadline_hours))) is not None:
            return line
        if (line := self.price_above_amount(s, form)) is not None and lead_is_no(line):
            return line
        return self.region_unpriced(s)

    # ------------------------------------------------------------------ a lead where the handler gave none

    def lead_from_outcomes(self, s: Slots, form: QuestionForm) -> Events:
        """Return a yes or no line from a price against an amount, stock in a region, the fit or the plan."""
        if asks_occasional_subscription(self.question) and (quote := (yield from self.quote_named(s))):
            if line := occasional_subscription_line(quote, self.lang):  # "a gn7e subscription for occasional runs?"
                return line
        if (form.amount_cny or s.budget_cny_month) and not s.model and (s.gpu or s.instance_types):
            if not any(c.name == "price_of_instance" for c in self.calls):
                yield from self.price_named_hardware(s)
        if (line := self.price_above_amount(s, form)) is not None:
            return line
        if not s.model and s.region and s.gpu:
            if not any(c.name == "cheapest_region_for_gpu" for c in self.calls):
                yield from self.call("cheapest_region_for_gpu", cheapest_region_for_gpu, gpu=self.one_gpu(s.gpu),
                                     gpu_count=s.gpus or 1)  # fmt: skip
            if (line := self.region_stock(s)) is not None:
                return line
        fits = [HardwareFit.model_validate(c.result) for c in self.calls
                if c.name == "evaluate_hardware_fit" and isinstance(c.result, dict)]  # fmt: skip
        if fits:
            return self.fit_lines(fits[0])[0]
        plan = next((Plan.model_validate(c.result) for c in self.calls
                     if c.name == "plan_gpu_deployment" and isinstance(c.result, dict)), None)  # fmt: skip
        if plan is None:
            return None
        return plan_verdict(s, plan, self.lang)


def failure_lead(text: str, fits: bool, lang: Language) -> str:
    """Answer a question whose "yes" is the failure ("will it OOM?"): its bold head says whether it fails."""
    head = say("form.fails_no" if fits else "form.fails_yes", lang)
    first, sep, rest = text.partition("\n")
    bold = re.match(r"\s*\*\*[^*]+\*\*\s*", first)
    return head + " " + (first[bold.end() :] if bold else first) + sep + rest


def _head_replaced(text: str, head: str, lang: Language) -> str:
    """Put ``head`` in place of the bold opening of ``text``'s first line, keeping the rest of that line."""
    bold = re.match(r"\s*\*\*[^*]+\*\*\s*", text)
    rest = text[bold.end() :] if bold else text
    return head + ("" if lang == "zh" else " ") + rest


def lead_is_no(line: str) -> bool:
    """Whether a lead line of ours answers no."""
    return lead_verdict(line) == "no"


_FIGURE_FORMS = ("how_many", "how_much", "how_long")


# The handlers' own verdict lines on a GPU or named hardware (their bold heads have no figures in them).
_VERDICT_CODES = ("gpu.yes", "gpu.yes_multi", "gpu.yes_but", "gpu.yes_smaller", "gpu.no", "fit.yes", "fit.tight",
                  "fit.no", "fit.yes_but_cheaper", "fit.yes_but_smaller")  # fmt: skip


def verdict_moved_up(text: str, form: QuestionForm, lang: Language) -> str | None:
    """Return ``text`` with the handler's own verdict paragraph (second or third) first, or None when it has none.

    A figure line put in front of the verdict ("About 34.2 tokens/s of decode") would otherwise get a second,
    generated verdict above it, saying the same thing twice.
    """
    heads = [h for code in _VERDICT_CODES if "{" not in (h := catalogue()[code][lang].partition("**")[2].partition(
        "**")[0]) and h]  # fmt: skip
    paragraphs = text.split("\n\n")
    for i in (1, 2):
        if i < len(paragraphs) and any(paragraphs[i].startswith(f"**{head}**") for head in heads):
            rest = "\n\n".join(paragraphs[:i] + paragraphs[i + 1 :])
            return joined_lead(paragraphs[i], rest, form)
    return None


def joined_lead(lead: str, text: str, form: QuestionForm) -> str:
    """Put a yes/no lead in front of ``text``; a compound question gets both answers on the first line.

    "Can one L20 serve 32B, and how many users could it hold?": the handler's first line already answers the
    count (or price, or time); the yes/no goes in front of it on the same line, so the first line answers both.
    """
    first, sep, rest = text.partition("\n\n")
    if set(form.also) & set(_FIGURE_FORMS) and "\n" not in first.strip() and re.search(r"\d", first):
        rest = "\n\n".join(p for p in rest.split("\n\n") if p.strip() != lead.strip())  # said once, first
        return f"{lead} {first.strip()}{sep}{rest}"
    return lead + "\n\n" + text


# What shows that a line answers a figure form: a price, a time; a count is the handler's own line.
_FIGURE_MARKS = {"how_much": r"¥", "how_long": r"\d\s*(?:小时|天|hours?|days?)\b"}
_NOT_AN_ANSWER = r"^\s*(?:\||\*\*(?:Understood|理解的需求)|_|>|⚠|- )"


def asked_parts_joined(text: str, form: QuestionForm) -> str:
    """Join the line answering a figure the turn also asks (a price, a time) onto a first line that lacks it."""
    paragraphs = text.split("\n\n")
    if len(paragraphs) < 2:
        return text
    first = paragraphs[0]
    for asked in form.also:
        mark = _FIGURE_MARKS.get(asked)
        if mark is None or re.search(mark, first, re.IGNORECASE):
            continue
        for i, para in enumerate(paragraphs[1:3], start=1):
            if "\n" not in para.strip() and not re.match(_NOT_AN_ANSWER, para) and re.search(mark, para, re.I):
                first = f"{first.strip()} {para.strip()}"
                paragraphs = [first, *paragraphs[1:i], *paragraphs[i + 1 :]]
                break
    return "\n\n".join(paragraphs)
