"""Workloads the tools cannot size: say so, honestly and briefly.

The first line states what cannot be computed for *this* workload (training an image model, a TTS model
outside the registry, YOLO, XGBoost, a CPU-only job); then what can be computed, naming the registry's
models of the same kind when there are some. Guidance passages are searched only for workloads the
guidance covers, and kept only when they are about that workload (never the nearest unrelated passage).
"""

from __future__ import annotations

import re

from assistant import render
from assistant.answer import AnswerDetail
from assistant.bad_names import unknown_precision, unknown_region
from assistant.injection import split_planted
from assistant.intents.arguments import memory_args, plan_args
from assistant.messages import say
from assistant.ops_words import about_subject, subject_hits
from assistant.reach_reading import ABOUT, MEDIA_KINDS, ReachAsk, about, other_cloud, out_of_reach
from assistant.run import Events, Reply, Run
from assistant.toolbox import estimate_gpu_memory, find_instance_types, plan_gpu_deployment
from assistant.understanding import Slots
from assistant.workload_names import written_model_name
from tools.errors import UnknownNameError
from tools.media_models import load_media_models
from tools.memory import MemoryEstimate
from tools.prices import price_regions
from tools.regions import region_names

_DOC = "image-speech-embedding-models"
_QUERY = {
    "image": "text-to-image diffusion SDXL FLUX GPU memory",
    "video": "text-to-video Wan2.1 GPU memory",
    "speech": "speech recognition Whisper audio GPU",
    "embedding": "embedding reranker bge-m3 RAG GPU",
    "vlm": "vision-language Qwen2.5-VL image tokens",
    "storage_price": "OSS NAS ESSD cloud disk storage for model files",
}
_DOCS = {"storage_price": "storage-and-models"}
# Out-of-reach parts that can sit beside an LLM the tools do size ("a Qwen chatbot that also reads replies aloud
# with TTS", "OCR first, then Qwen2.5-14B"): the LLM is answered, and this part is named as not in the figures.
# A CPU run has no GPU memory to compare with: the yardstick is for machines with their own (a Mac, a laptop GPU).
_CPU_RUN = r"cpu|(?:没有|不用)\s*(?:显卡|gpu)|without\s+(?:a\s+)?gpu|no\s+gpu"
_COMPARES_PRICE = re.compile(
    r"cheaper|pricier|more\s+expensive|less\s+expensive|便宜|更贵|划算|省钱|price|cost|价格|价钱|费用|多少钱|"
    r"how\s+much|贵不贵|花多少", re.IGNORECASE
)
# A question asked for a yes or a no, in its form: "Can one A10 ...?", "能同时跑 ... 吗？".
_YES_NO = re.compile(
    r"^\s*(?:can|could|will|would|is|are|does|do|should)\b|吗\s*[?？]?\s*$|能不能|可不可以|行不行|够不够", re.IGNORECASE
)
_CJK_WORD = re.compile(r"[\u4e00-\u9fff]+")
_SIDE_PARTS = ("speech", "vision", "image", "video", "encoder", "other_ml", "classic_ml", "purchase", "non_ml",
               "storage_price", "cloud_price", "database")


class ReachIntent(Run):
    """Answers a question about a workload outside the tools' reach."""

    def out_of_reach(self, s: Slots) -> Events:
        """State the limit, what can be computed, and any passage that is about this workload."""
        ask = s.reach or out_of_reach(self.question) or ReachAsk(topic="image")
        if ask.topic == "own_model":  # sizable once its size is known: ask for it
            return Reply(text=say("reach.own_model", self.lang), kind="clarification")
        trains = ask.training and ask.topic in MEDIA_KINDS
        if ask.generic and ask.topic in MEDIA_KINDS and (name := written_model_name(self.question)):
            if not _in_registry(name):  # "用 CLIP 做向量化": the model they chose is what cannot be sized
                ask = ask.model_copy(update={"name": name, "generic": False})
        if ask.generic and not trains and (models := _registry_models(ask)):
            # "Pick a GPU for video generation": no model named, and the registry has some: ask which.
            names = say("catalog.list_sep", self.lang).join(models)
            return Reply(text=say("reach.which_model", self.lang, models=names), kind="clarification")
        key = f"reach.{ask.topic}" + (".train" if trains else "")
        first = say(key, self.lang, name=ask.name or "")  # "reach.unknown" names what it cannot size
        if ask.name and ask.topic in MEDIA_KINDS and not trains and not _in_registry(ask.name):
            first = say("reach.named", self.lang, name=ask.name)  # "HunyuanVideo is not in my registry"
        elif ask.name and ask.topic == "closed_model":
            first = say("reach.closed_named", self.lang, name=ask.name)  # "文心一言 is served only by its vendor"
        elif ask.subject:  # "how do I get my GPU quota raised?": what I can't see, then what the guidance says
            first = say(f"reach.cloud_ops.{ask.subject}", self.lang)
            first = "\n\n".join([first, *(yield from self._ops_passage(ask.subject))])
        parts = [first, say("reach.can", self.lang)]
        if ask.topic == "local" and s.model and not re.search(_CPU_RUN, self.question, re.IGNORECASE):
            parts.insert(1, (yield from self._model_memory(s)))  # "can my 36 GB Mac run Qwen2.5-14B?": its need
        if models := _registry_models(ask):
            parts.append(say("reach.can_media", self.lang, models=say("catalog.list_sep", self.lang).join(models)))
        details = []
        if ask.topic in ABOUT:  # the guidance says nothing about YOLO, XGBoost or CPU jobs: nothing to search
            query = _QUERY.get(ask.topic) or split_planted(self.question)[0]  # "PAI-DSW price": the question itself
            docs = [_DOCS.get(ask.topic, _DOC)] if ask.topic in _QUERY else []
            passages = yield from self.search(query, n=2, prefer_docs=docs)
            kept = [p for p in passages if about(ask.topic, f"{p.section} {p.text}")]
            if quotes := self.quotes(kept, self.question):
                details.append(AnswerDetail(title=say("guidance.head", self.lang), markdown="\n\n".join(quotes)))
        return Reply(text="\n\n".join(parts), kind="out_of_scope", details=details)

    def _ops_passage(self, subject: str) -> Events:
        """Quote the one guidance passage on a cloud-ops subject ([] when the nearest ones are about anything else)."""
        question = split_planted(self.question)[0]
        found, _ = yield from self.call("search_guidance", self.guidance.search_guidance, query=question, k=6)
        kept = [p for p in found or [] if p.lang == self.lang and about_subject(subject, f"{p.section} {p.text}")]
        # The section that says most about it ("how to check availability": the quota centre, three times).
        best = max(kept, key=lambda p: subject_hits(subject, p.text), default=None)
        return self.quotes([best], question, limit=2) if best else []

    def side_part_note(self, s: Slots) -> str:
        """One line naming the out-of-reach part of a question whose LLM part was answered ("" when none)."""
        ask, model = s.reach, s.model or (s.media.model if s.media else None)
        if ask is not None and ask.subject == "code" and model:  # "the vllm serve command for Qwen2.5-32B on 2 A10s"
            return say("reach.part_code", self.lang, model=model)
        trained = ask is not None and ask.training and ask.topic in MEDIA_KINDS  # "fine-tune Whisper" beside an LLM
        if ask is None or s.intent == "out_of_reach" or ask.topic not in (*_SIDE_PARTS, "unknown") and not trained:
            return ""
        if not model:
            return ""
        return say("reach.part", self.lang, what=self._part(ask), model=model)

    def _part(self, ask: ReachAsk | None) -> str:
        """Name an out-of-reach part: as written when it is a name, else by its kind ("the speech part")."""
        if ask is None:
            return ""
        if ask.training and ask.topic in MEDIA_KINDS and ask.name:
            return say("reach.part.train", self.lang, name=ask.name)  # "training whisper-large-v3"
        return ask.name or "" if ask.topic == "unknown" else say(f"reach.part.{ask.topic}", self.lang)

    def with_side_part(self, reply: Reply, s: Slots) -> Reply:
        """Name the out-of-reach part under a sized answer; a yes/no answer's first line says "but" it too."""
        if reply.kind in ("out_of_scope", "error"):
            return reply
        if s.reach is not None and s.reach.topic == "accelerator" and s.model:  # "Llama-3.1-70B on Gaudi 2"
            lead = say("reach.accelerator_lead", self.lang, name=s.reach.name or "", model=s.model)
            reply.text = lead + "\n\n" + reply.text  # the hardware asked for is refused first
            return reply
        if reply.kind == "clarification" or not (note := self.side_part_note(s)):
            return reply
        # "能同时跑 Qwen2.5-7B 和一个 YOLO 吗": yes for the LLM, but YOLO is not in the figures.
        if s.asks_verdict or _YES_NO.search(self.question):
            first, _, rest = reply.text.partition("\n")
            lead = say("reach.part_lead", self.lang, what=self._part(s.reach))
            reply.text = first + lead + ("\n" + rest if rest else "")
        reply.text += "\n\n" + note
        return reply

    def with_other_cloud(self, reply: Reply) -> Reply:
        """Say that another cloud's instances and prices are unknown: first when the question compares prices."""
        if not other_cloud(self.question) or reply.kind == "out_of_scope":
            return reply
        if _COMPARES_PRICE.search(self.question):  # "is RunPod cheaper than Alibaba?"
            reply.text = say("reach.other_cloud", self.lang) + "\n\n" + reply.text
        else:  # "the Alibaba equivalent of a p4d": the plan, and a note that the figures are Alibaba's
            reply.text += "\n\n" + say("reach.other_cloud_note", self.lang)
        return reply

    def _model_memory(self, s: Slots) -> Events:
        """Say how much GPU memory the named model needs, a yardstick for hardware the tools do not size."""
        est, err = yield from self.call("estimate_gpu_memory", estimate_gpu_memory, **memory_args(s, gpus=None))
        if err or not isinstance(est, MemoryEstimate):
            return ""
        return say("reach.model_memory", self.lang, model=s.model, gib=render.fig(est.per_gpu_total_gib))

    def beyond_limits(self, s: Slots, found: list[tuple[str, float, float]]) -> Events:
        """Refuse numbers above what the tools accept, each with the planner's own bound; plan no substitute."""
        refused = False
        if s.model:  # the planner itself refuses the figure: its recorded error is where the bound comes from
            _, err = yield from self.call("plan_gpu_deployment", plan_gpu_deployment, **plan_args(s))
            refused = err is not None
        items = [
            say("bad.limit_item" if refused else "bad.limit_item_bare", self.lang,
                what=say(f"bad.field.{name}", self.lang), value=render.fig(value), limit=render.fig(limit))
            for name, value, limit in found
        ]  # fmt: skip
        items_text = say("list.semicolon", self.lang).join(items)
        return Reply(text=say("bad.beyond_limits", self.lang, items=items_text), kind="error")

    def unknown_setting(self) -> Reply | None:
        """Refuse a region or precision the user wrote that no table has, with the valid values; None when none."""
        if name := unknown_region(self.question):
            priced = set(price_regions())  # in the region table's order: the mainland first, by area
            shown = [self.t(_city_zh(r.id), r.id) for r in region_names() if r.id in priced]
            regions = say("catalog.list_sep", self.lang).join(shown)
            return Reply(text=say("bad.unknown_region", self.lang, name=name, regions=regions), kind="error")
        if name := unknown_precision(self.question):
            return Reply(text=say("bad.unknown_precision", self.lang, name=name), kind="error")
        return None

    def no_gpu_that_large(self, written: str, gib: float) -> Events:
        """Say no instance has this much memory per GPU, with the catalog's largest; None when some have it."""
        found, _ = yield from self.call("find_instance_types", find_instance_types, min_gpu_memory_gib=gib)
        if found is None or found.instances:
            return None  # some do: the catalog answer lists them
        every, _ = yield from self.call("find_instance_types", find_instance_types)
        sized = [i for i in (every.instances if every else []) if i.gpu_memory_gib and not i.vgpu]
        if not sized:
            return None
        top = max(sized, key=lambda i: i.gpu_memory_gib or 0)
        gpu = re.sub(r"\s*\(.*\)$", "", top.gpu_model or top.gpu_model_likely or "?")  # "(unnamed, gn8e/gn8ep)"
        return Reply(
            text=say("bad.no_gpu_that_large", self.lang, need=written, instance_type=top.instance_type, gpu=gpu,
                     most=render.fig(top.gpu_memory_gib)),
            kind="error",
        )  # fmt: skip

    def unknown_instances(self, errors: list[UnknownNameError]) -> Reply:
        """Name the instance types that do not exist and the catalog's closest ones; plan nothing else."""
        lines = []
        for exc in errors:
            near = say("catalog.list_sep", self.lang).join(f"`{n}`" for n in exc.suggestions[:4])
            hint = say("bad.did_you_mean", self.lang, names=near) if near else ""
            lines.append(say("bad.unknown_instance", self.lang, name=exc.name, hint=hint))
        return Reply(text="\n\n".join([*lines, say("bad.name_one", self.lang)]), kind="error")


def _city_zh(region: str) -> str:
    """Return the Chinese city name of a region ("北京" for cn-beijing), or its id when the table has none."""
    for r in region_names():
        if r.id == region:
            return next((a for a in r.aliases if _CJK_WORD.fullmatch(a)), region)
    return region


def _registry_models(ask: ReachAsk) -> list[str]:
    kinds = MEDIA_KINDS.get(ask.topic, ())
    video = ask.topic == "video"
    # Registry names (what `--model` takes) read as identifiers, so "1.3B" is not taken for a computed figure.
    return [f"`{m.name}`" for m in load_media_models() if m.kind in kinds and (m.is_video == video)]


def _in_registry(name: str) -> bool:
    """Whether a written name is (part of) a registry model's name: "Whisper" is, "HunyuanVideo" is not."""
    key = re.sub(r"[\s\-_.]", "", name.lower())
    return any(key in re.sub(r"[\s\-_.]", "", f"{m.name} {m.display_name}".lower()) for m in load_media_models())
