"""Image/video generation, vision-language, speech, embedding and reranker models: sized, planned, judged.

The first line answers what was asked: the instance and count for the user's load, the yes/no for the
GPU the user named (with the GiB that decide it and the settings that would fit), or the GiB a setting
needs. The media tools do the computing; the guidance on these models is cited.
"""

from __future__ import annotations

import re
from typing import Any

from assistant import render
from assistant.answer import AnswerDetail
from assistant.intent_rules import MEMORY_RE
from assistant.intents.colocate import colocated
from assistant.intents.plan_leads import HOW_LONG_RE
from assistant.media_reading import MediaAsk
from assistant.messages import say
from assistant.price_phrases import billing_label
from assistant.render_brief import plan_brief
from assistant.run import Events, Reply, Run
from assistant.toolbox import (
    estimate_media_gpu_memory,
    evaluate_media_fit,
    plan_media_deployment,
    plan_vlm_deployment,
)
from assistant.understanding import Slots
from tools.media_memory import MediaMemoryEstimate
from tools.media_models import MediaModel, resolve_media_model
from tools.media_plan import MediaOption, MediaPlan, smaller_settings
from tools.notes import Note, rendered
from tools.plan import Plan

_GUIDANCE_DOC = "image-speech-embedding-models"
_UNITS = {"image": "media.unit.image", "video": "media.unit.video", "audio hour": "media.unit.audio",
          "million tokens": "media.unit.tokens"}
_SHOWN = 3
# The tool's longest batch window: with it the planner picks the smallest fleet, whose time is then the answer.
_NO_DEADLINE_HOURS = 8760.0
# Words of the Chinese guidance for each kind, so a zh question finds the zh passage to cite.
_KIND_ZH = {"diffusion": "文生图 扩散 显存", "speech": "语音识别 音频", "embedding": "向量 嵌入 检索",
            "reranker": "重排 检索", "vlm": "视觉语言 图像 token"}
# "How many images an hour can one L20 make?", "每小时能出多少张": the speed is the answer, not the fit.
_RATE_RE = (
    r"how\s+many\s+(?:images|pictures|videos|clips|audio\s+hours|hours\s+of\s+audio)\s+(?:per|an|a|each|every)\s+hour|"
    r"(?:每|一)小时能?(?:生成|出|画|跑|转写|处理)?多少|throughput|吞吐|how\s+fast|多快|速度"
)
_FIT_RE = r"\bfits?\b|\benough\b|\bcan\b.*\b(?:run|handle|serve)\b|能跑|跑得动|放得下|放不下|够不够|够吗|行不行|可以吗"


class MediaIntent(Run):
    """Answers questions about non-LLM models with the media tools."""

    def media(self, s: Slots) -> Events:
        """Plan, judge named hardware, or size memory, as the question asks."""
        ask = s.media
        assert ask is not None and ask.model is not None
        if colocated(self.question, s):  # "SDXL and Qwen2.5-7B on the same A10": both on one card
            return (yield from self.colocation(s))
        model = resolve_media_model(ask.model)
        query = f"{model.display_name} GPU {model.kind} " + (_KIND_ZH.get(model.kind, "") if self.lang == "zh" else "")
        passages = yield from self.search(query, n=1, prefer_docs=[_GUIDANCE_DOC])
        if model.kind == "vlm":
            reply = yield from self._vlm(s, ask, model)
        elif len(s.gpu_mentions) >= 2:
            reply = yield from self._compare(s, ask, model)
        elif not _load(ask, s) and re.search(_RATE_RE, self.question, re.I):
            reply = yield from self._rate(s, ask, model)
        elif _asks_duration(self.question, ask):
            reply = yield from self._duration(s, ask, model)
        elif s.gpu and (s.asks_verdict or s.gpus or not _load(ask, s) or re.search(_FIT_RE, self.question, re.I)):
            reply = yield from self._verdict(s, ask, model)
        elif not _load(ask, s) and not s.gpu and _asks_memory(self.question):
            reply = yield from self._memory(ask, model)
        else:
            reply = yield from self._plan(s, ask, model)
        reply.details += self._cited(passages)
        return reply

    # ------------------------------------------------------------------ answers

    def _plan(self, s: Slots, ask: MediaAsk, model: MediaModel) -> Events:
        args = media_plan_args(s, ask, model)
        plan, error = yield from self.call("plan_media_deployment", plan_media_deployment, **args)
        if error or plan is None:
            return self.error(error or "")
        if not plan.options:
            return self._nothing_fits(plan, model, ask, s.gpu)
        top = plan.options[0]
        text = self._plan_line(top, plan, model, ask, s) + "\n\n" + self._table(plan.options[:_SHOWN])
        over = any(r.reason.code == "reject.over_budget" for r in plan.rejected)
        if s.budget_cny_month and over and top.price_cny_per_hour is None:
            text = say("media.over_budget", self.lang, budget=render.fig(s.budget_cny_month)) + "\n\n" + text
        if top.price_source:
            source = render.source_label(top.price_source, self.lang)
            text += "\n\n" + say("media.price_source", self.lang, source=source)
        return Reply(text=text, kind="recommendation", details=self._plan_details(plan))

    def with_retrieval_part(self, s: Slots, reply: Reply) -> Events:
        """Append the media model beside the LLM (a RAG pipeline's embedder, a Whisper step): its own plan, one line."""
        ask = s.media
        assert ask is not None and ask.model is not None
        model = resolve_media_model(ask.model)
        args = {k: v for k, v in media_plan_args(s, ask, model).items() if k not in ("gpu", "budget_cny_month")}
        plan, error = yield from self.call("plan_media_deployment", plan_media_deployment, **args)
        if error or plan is None or not plan.options:
            return reply
        line = self._plan_line(plan.options[0], plan, model, ask, s).removeprefix(say("media.recommended", self.lang))
        part = "media.retrieval_part" if model.kind in ("embedding", "reranker") else "media.beside_part"
        reply.text += "\n\n" + say(part, self.lang, model=model.display_name, line=line.strip())
        reply.details += self._plan_details(plan)
        return reply

    def _duration(self, s: Slots, ask: MediaAsk, model: MediaModel) -> Events:
        """"5M docs on an A10, how long?": the batch time on the smallest fleet, not a fleet sized to 24 h."""
        # The user's own GPU count is the fleet; else the smallest fleet, not one sized to a default 24 h.
        args = {**media_plan_args(s, ask, model), "gpus": s.gpus} if s.gpus else {
            **media_plan_args(s, ask, model), "within_hours": _NO_DEADLINE_HOURS}  # fmt: skip
        plan, error = yield from self.call("plan_media_deployment", plan_media_deployment, **args)
        if error or plan is None or not plan.options or plan.options[0].batch_job_hours is None:
            return (yield from self._plan(s, ask, model))
        top, w = plan.options[0], plan.workload
        hardware = self._hardware(top.total_gpus, _gpu_of(top))
        load = (
            say("media.load.docs_only", self.lang, n=render.fig(w.docs), t=render.fig(w.doc_tokens or 512))
            if w.docs
            else say("media.load.audio_only", self.lang, n=render.fig(ask.audio_hours))
        )
        price = (
            say("media.batch_price", self.lang, count=top.instances, instance=top.instance_type,
                hourly=render.fig(top.price_cny_per_hour))  # fmt: skip
            if top.price_cny_per_hour is not None
            else ""
        )
        text = say("media.batch_time", self.lang, hardware=hardware, hours=render.fig(top.batch_job_hours),
                   model=model.display_name, load=load, price=price)  # fmt: skip
        return Reply(text=text + "\n\n" + self._table(plan.options[:_SHOWN]), kind="estimate",
                     details=self._plan_details(plan))  # fmt: skip

    def _verdict(self, s: Slots, ask: MediaAsk, model: MediaModel) -> Events:
        count = s.gpus or 1
        args = {**_memory_args(ask, model), "gpu": s.gpu, "gpus": count}
        fit, error = yield from self.call("evaluate_media_fit", evaluate_media_fit, **args)
        if error or fit is None:
            return self.error(error or "")
        hardware = self._hardware(count, fit.gpu)
        figures = {"hardware": hardware, "model": model.display_name, "need": render.fig(fit.needed_gib),
                   "usable": render.fig(fit.usable_gib)}
        if not fit.fits:
            text = say("fit.no", self.lang, short=render.fig(fit.short_gib), **figures)
            tries = [f"`{t.flags}` ({render.fig(t.needed_gib)} GiB)" for t in fit.smaller]
            if tries:
                text += "\n\n" + say("media.try", self.lang, tries=", ".join(tries))
        else:
            text = say("fit.yes", self.lang, pct=render.fig(fit.headroom_pct), **figures)
            if _load(ask, s):
                text = (yield from self._speed_check(s, ask, model, fit.gpu, hardware)) or text
        return Reply(text=text, kind="recommendation", details=[self._assumptions(fit.assumptions)])

    def _speed_check(self, s: Slots, ask: MediaAsk, model: MediaModel, gpu: str, hardware: str) -> Events:
        """Return "fits, but not fast enough" when the named GPUs cannot carry the stated load, else None."""
        plan, error = yield from self.call("plan_media_deployment", plan_media_deployment,
                                           **{**media_plan_args(s, ask, model), "gpu": gpu})
        if error or plan is None or not plan.options:
            return None
        top = plan.options[0]
        if top.load_gpus <= (s.gpus or 1):
            return None
        unit = _UNITS.get(top.speed_per_gpu.unit, "media.unit.image").replace("media.unit.", "media.unit_rate.")
        return say("media.too_slow", self.lang, hardware=hardware, gpu=gpu, unit=say(unit, self.lang),
                   per=render.fig(top.speed_per_gpu.items_per_hour), load=self._load(plan, ask, s), need=top.load_gpus)

    def _compare(self, s: Slots, ask: MediaAsk, model: MediaModel) -> Events:
        """"A10 or L20 for SDXL?": the same load planned on each GPU, the cheaper per unit named first."""
        best: list[MediaOption] = []
        for gpu in s.gpu_mentions[:3]:
            plan, _ = yield from self.call("plan_media_deployment", plan_media_deployment,
                                           **{**media_plan_args(s, ask, model), "gpu": gpu})
            if plan is not None and plan.options:
                best.append(plan.options[0])
        priced = sorted((o for o in best if o.cost_cny_per_unit is not None), key=lambda o: o.cost_cny_per_unit or 0)
        unpriced = [o for o in best if o.cost_cny_per_unit is None]
        if len(priced) == 1 and unpriced:  # the L20 has no list price in the shipped data: say so, compare speed
            one, other = priced[0], unpriced[0]
            unit = say(_UNITS.get(one.speed_per_gpu.unit, "media.unit.image"), self.lang)
            text = say("media.compare_unpriced", self.lang, win=_gpu_of(one), other=_gpu_of(other), unit=unit,
                       win_cost=render.fig(one.cost_cny_per_unit), win_type=one.instance_type,
                       other_type=other.instance_type, win_rate=render.fig(one.speed_per_gpu.items_per_hour),
                       other_rate=render.fig(other.speed_per_gpu.items_per_hour))
            return Reply(text=text + "\n\n" + self._table(best), kind="recommendation")
        if len(priced) < 2:
            return (yield from self._plan(s, ask, model))
        win, other = priced[0], priced[1]
        unit = say(_UNITS.get(win.speed_per_gpu.unit, "media.unit.image"), self.lang)
        text = say("media.compare", self.lang, win=_gpu_of(win), other=_gpu_of(other), model=model.display_name,
                   win_cost=render.fig(win.cost_cny_per_unit), other_cost=render.fig(other.cost_cny_per_unit),
                   unit=unit, win_type=win.instance_type, other_type=other.instance_type)
        return Reply(text=text + "\n\n" + self._table(priced), kind="recommendation")

    def _rate(self, s: Slots, ask: MediaAsk, model: MediaModel) -> Events:
        """Answer "how many images an hour does one L20 make?": the speed per GPU, first."""
        args = media_plan_args(s, ask, model)
        plan, error = yield from self.call("plan_media_deployment", plan_media_deployment, **args)
        if error or plan is None:
            return self.error(error or "")
        if not plan.options:
            return self._nothing_fits(plan, model, ask, s.gpu)
        top = plan.options[0]
        unit = _UNITS.get(top.speed_per_gpu.unit, "media.unit.image").replace("media.unit.", "media.unit_rate.")
        text = say("media.rate", self.lang, gpu=top.gpu_model or top.gpu_model_likely or "?", model=model.display_name,
                   per=render.fig(top.speed_per_gpu.items_per_hour), unit=say(unit, self.lang),
                   instance=top.instance_type)
        return Reply(text=text + "\n\n" + self._table(plan.options[:_SHOWN]), kind="recommendation",
                     details=self._plan_details(plan))

    def _memory(self, ask: MediaAsk, model: MediaModel) -> Events:
        est, error = yield from self.call("estimate_media_gpu_memory", estimate_media_gpu_memory,
                                          **_memory_args(ask, model))
        if error or est is None:
            return self.error(error or "")
        peak = next(stage for stage in est.stages if stage.stage == est.peak_stage)
        text = say("media.memory", self.lang, model=model.display_name, need=render.fig(est.total_gib),
                   setting=next((n.render(self.lang) for n in est.assumptions[:1]), model.display_name),
                   stage=est.peak_stage, weights=render.fig(round(peak.weights_gib, 2)),
                   act=render.fig(round(peak.activations_gib, 2)))
        return Reply(text=text, kind="estimate", details=[self._assumptions(est.assumptions[1:])])

    def _vlm(self, s: Slots, ask: MediaAsk, model: MediaModel) -> Events:
        images = ask.images_per_request if ask.images_per_request is not None else 1
        args: dict[str, Any] = {"model": model.name, "images_per_request": images, "width": ask.width or 1024,
                                "height": ask.height or 1024, "concurrency": s.concurrency or ask.streams,
                                "context": s.context, "quant": s.quant, "precision": s.precision, "gpu": s.gpu,
                                "region": s.region}
        plan, error = yield from self.call("plan_vlm_deployment", plan_vlm_deployment, **args)
        if error or plan is None:
            return self.error(error or "")
        parts, details = plan_brief(plan, self.lang, prefer=s.gpu_mentions) if isinstance(plan, Plan) else ([], [])
        tokens = next((a.values["image_tokens"] for a in plan.assumptions if a.code == "vlm.plan_image_tokens"), "?")
        note = say("media.vlm_note", self.lang, images=images, width=args["width"], height=args["height"],
                   tokens=f"{tokens:,}" if isinstance(tokens, int) else tokens)
        if s.gpu and (s.asks_verdict or re.search(_FIT_RE, self.question, re.I)):  # "can an A10 handle it?"
            parts.insert(0, self._vlm_verdict(plan, model, s))
        # Answer first: the plan's brief (under ~1,500 characters), then how many tokens the images add.
        return Reply(text="\n\n".join([*parts, note]), kind="recommendation", details=details)

    def _vlm_verdict(self, plan: Plan, model: MediaModel, s: Slots) -> str:
        count = s.gpus or 1
        hardware = self._hardware(count, s.gpu or "")
        top = plan.options[0] if plan.options else None
        if top is None or top.total_gpus > count:
            if top:
                gpus = top.total_gpus
                return say("media.fit_no_gpus", self.lang, hardware=hardware, model=model.display_name, gpus=gpus)
            return say("media.fit_no", self.lang, hardware=hardware, model=model.display_name)
        return say("fit.yes", self.lang, hardware=hardware, model=model.display_name,
                   need=render.fig(top.per_gpu_gib_needed), usable=render.fig(top.per_gpu_capacity_gib),
                   pct=render.fig(top.headroom_pct))

    # ------------------------------------------------------------------ pieces

    def _hardware(self, count: int, gpu: str) -> str:
        """Name the hardware as answers do: "One A10" or "2 x A10", in the answer's language."""
        if count == 1:
            return say("hardware.one_gpu", self.lang, gpu=gpu)
        return say("hardware.gpus", self.lang, count=count, gpu=gpu)

    def _plan_line(self, top: MediaOption, plan: MediaPlan, model: MediaModel, ask: MediaAsk, s: Slots) -> str:
        gpu = _gpu_of(top)
        fields = {"count": top.instances, "instance": top.instance_type, "gpu": gpu, "gpus": top.total_gpus,
                  "model": model.display_name, "load": self._load(plan, ask, s),
                  "need": render.fig(top.per_gpu_gib_needed), "usable": render.fig(top.per_gpu_capacity_gib)}
        if top.price_cny_per_hour is None:
            return say("media.plan_unpriced", self.lang, **fields)
        unit = say(_UNITS.get(top.speed_per_gpu.unit, "media.unit.image"), self.lang)
        basis = billing_label("pay-as-you-go", self.lang)
        return say("media.plan", self.lang, hourly=render.fig(top.price_cny_per_hour), basis=basis,
                   unit_one=unit, unit_cost=render.fig(top.cost_cny_per_unit), **fields)

    def _load(self, plan: MediaPlan, ask: MediaAsk, s: Slots) -> str:
        w = plan.workload
        if w.images_per_hour:
            return say("media.load.images", self.lang, n=render.fig(w.images_per_hour))
        if w.audio_hours:
            return say("media.load.audio", self.lang, n=render.fig(w.audio_hours), h=render.fig(w.within_hours))
        if w.streams:
            return say("media.load.streams", self.lang, n=w.streams)
        if w.docs:
            return say("media.load.docs", self.lang, n=render.fig(w.docs), t=render.fig(w.doc_tokens or 512),
                       h=render.fig(w.within_hours))
        if w.qps and w.candidates:
            return say("media.load.rerank", self.lang, q=render.fig(w.qps), c=w.candidates)
        if w.qps:
            return say("media.load.qps", self.lang, q=render.fig(w.qps))
        return say("media.load.one", self.lang)

    def _table(self, options: list[MediaOption]) -> str:
        rows = [say("media.table_head", self.lang)]
        for o in options:
            price = render.fig(o.price_cny_per_hour) if o.price_cny_per_hour is not None else "—"
            gib = f"{render.fig(o.per_gpu_gib_needed)} / {render.fig(o.per_gpu_capacity_gib)}"
            rows.append(f"| `{o.instance_type}` × {o.instances} | {o.total_gpus} | {gib} | "
                        f"{render.fig(o.speed_per_gpu.items_per_hour)} | {price} |")
        return "\n".join(rows)

    def _nothing_fits(self, plan: MediaPlan, model: MediaModel, ask: MediaAsk, gpu: str | None) -> Reply:
        where = say("media.where_gpu", self.lang, gpu=gpu) if gpu else ""
        text = say("media.none", self.lang, model=model.display_name, need=render.fig(plan.memory.total_gib),
                   where=where)
        tries = self._tries(model, plan.memory, ask)
        return Reply(text=f"{text}\n\n{tries}".strip(), kind="recommendation", details=self._plan_details(plan))

    def _tries(self, model: MediaModel, est: MediaMemoryEstimate, ask: MediaAsk) -> str:
        from tools.media_memory import MediaRequest

        request = MediaRequest.model_validate({k: v for k, v in _memory_args(ask, model).items()
                                               if k not in ("doc_tokens",)})
        tries = [f"`{flag}` ({render.fig(gib)} GiB)" for flag, gib in smaller_settings(model, request)]
        return say("media.try", self.lang, tries=", ".join(tries)) if tries else ""

    def _plan_details(self, plan: MediaPlan) -> list[AnswerDetail]:
        details = [self._assumptions([*plan.assumptions, *plan.warnings])]
        reasons: dict[str, int] = {}
        for r in plan.rejected:
            key = f"{r.family}{'：' if self.lang == 'zh' else ': '}{r.reason.render(self.lang)}"
            reasons[key] = reasons.get(key, 0) + 1
        if reasons:
            ranked = sorted(reasons.items(), key=lambda kv: -kv[1])[:6]
            lines = [f"- {n} × {why}" for why, n in ranked]
            details.append(AnswerDetail(title=say("media.details_rejected", self.lang), markdown="\n".join(lines)))
        return details

    def _assumptions(self, notes: list[Note]) -> AnswerDetail:
        return AnswerDetail(title=say("media.details_assumptions", self.lang),
                            markdown="\n".join(f"- {line}" for line in rendered(notes, self.lang)))

    def _cited(self, passages: list[Any]) -> list[AnswerDetail]:
        quotes = self.quotes(passages, self.question)
        return [AnswerDetail(title=say("guidance.head", self.lang), markdown="\n\n".join(quotes))] if quotes else []


def _gpu_of(option: MediaOption) -> str:
    return option.gpu_model or f"{option.gpu_model_likely or '?'}?"


def _load(ask: MediaAsk, s: Slots) -> bool:
    live = ask.streams or (s.concurrency if ask.kind == "speech" else None)
    return bool(ask.images_per_hour or ask.audio_hours or live or ask.docs or ask.qps or s.qps or ask.candidates)


def _asks_memory(question: str) -> bool:
    return bool(re.search(MEMORY_RE, question, re.IGNORECASE))


def _memory_args(ask: MediaAsk, model: MediaModel) -> dict[str, Any]:
    args: dict[str, Any] = {"model": model.name, "dtype": ask.dtype, "width": ask.width, "height": ask.height,
                            "frames": ask.frames if model.is_video else None, "offload": ask.offload,
                            "doc_tokens": ask.doc_tokens if model.kind in ("embedding", "reranker") else None}
    if model.kind != "diffusion":
        args.update(width=None, height=None, offload=None)
    return {k: v for k, v in args.items() if v is not None}


def _asks_duration(question: str, ask: MediaAsk) -> bool:
    """Say whether the question asks how long a batch job (documents, audio hours) with no deadline takes."""
    batch = bool(ask.docs or ask.audio_hours) and ask.within_hours is None
    return batch and bool(re.search(HOW_LONG_RE, question, re.IGNORECASE))


def media_plan_args(s: Slots, ask: MediaAsk, model: MediaModel) -> dict[str, Any]:
    args = _memory_args(ask, model)
    args.pop("doc_tokens", None)
    loads: dict[str, Any] = {
        "images_per_hour": ask.images_per_hour if model.kind == "diffusion" else None,
        "audio_hours": ask.audio_hours if model.kind == "speech" else None,
        # Live audio at once: streams as said, else the concurrency ("300 concurrent users" of an ASR model).
        "streams": (ask.streams or s.concurrency) if model.kind == "speech" and not ask.audio_hours else None,
        "docs": ask.docs if model.kind == "embedding" else None,
        "doc_tokens": ask.doc_tokens if model.kind in ("embedding", "reranker") else None,
        "candidates": ask.candidates if model.kind == "reranker" and (ask.qps or s.qps) else None,
        "qps": (ask.qps or s.qps) if model.kind in ("embedding", "reranker") else None,
        "within_hours": ask.within_hours if (ask.audio_hours or ask.docs) else None,
        "gpu": s.gpu, "region": s.region, "budget_cny_month": s.budget_cny_month,
    }
    return {**args, **{k: v for k, v in loads.items() if v is not None}}
