"""Words that ask whether one GPU suits a job: "Is the L20 good for training?", "H20 适合预训练吗？".

Pure functions over the question text, read by the intent rules (such a question with no model is answered
from the GPU's figures, not asked for a model) and by :mod:`assistant.intents.gpu_job`.
"""

from __future__ import annotations

import re
from typing import Literal

Job = Literal["pretraining", "training", "serving"]

_PRETRAIN_RE = r"pre[\s\-]?train\w*|from\s+scratch|large[\s\-]scale\s+training|预训练|从头训练|从零训练|大规模训练"
_TRAIN_RE = r"\b(?:train\w*|fine[\s\-]?tun\w*|finetun\w*|q?lora|sft)\b|训练|微调"
# "any good for LLMs?", "for running models": with no training word, running them is serving them
_SERVE_RE = (
    r"\b(?:inference|serving|serve|deploy\w*|chatbots?|decod\w*|hosting)\b|推理|部署|在线服务|上线|"
    r"\bllms?\b|\blanguage\s+models?\b|\brun(?:ning)?\s+(?:llms?|models?|ai)\b|跑(?:大)?模型|大模型"
)
# Suitability asked, not a sizing: "good for", "a sensible pick", "any good", "适合", "合适吗", "好用吗".
_SUITS_RE = (
    r"\bgood\b|\bsensible\b|\bsuit(?:able|ed)\b|\bpick\b|\bchoice\b|\bworth\b|\bviable\b|\bdecent\b|"
    r"\bsolid\b|\bcut\s+out\s+for\b|\bmade\s+for\b|适合|合适|好用|行不行|还行|行吗|能用吗|能不能用来|可以用来|能用来|值得|怎么样|靠谱|"
    r"划算|性价比"
)


# "Is a monthly subscription worth it?", "包月划算吗": a way to pay is weighed, not the GPU (billing answers it).
_BILLING_RE = (
    r"包月|包年|按量|订阅|月付|年付|抢占|竞价|预留|节省计划|subscription|pay[\s\-]as[\s\-]you[\s\-]go|\bspot\b|"
    r"\breserved\b|savings\s+plan|monthly\s+plan|\bpayg\b"
)


def job_asked(question: str) -> Job | None:
    """Return the job whose suitability the question asks about, or None (no job, or not a suitability question).

    A way to pay weighed for the job ("包月划算吗", "is spot good for LoRA?") is a billing question, not this one.
    """
    if not re.search(_SUITS_RE, question, re.IGNORECASE) or re.search(_BILLING_RE, question, re.IGNORECASE):
        return None
    if re.search(_PRETRAIN_RE, question, re.IGNORECASE):
        return "pretraining"
    if re.search(_TRAIN_RE, question, re.IGNORECASE):
        return "training"
    if re.search(_SERVE_RE, question, re.IGNORECASE):
        return "serving"
    return None


# Value for money asked of a GPU or family: "still worth it?", "划算吗", "is it outdated?", "还能用吗".
_VALUE_RE = (
    r"\bworth\b|good\s+value|value\s+for\s+money|cost[\s\-]effective|bang\s+for|\boutdated\b|\bobsolete\b|"
    r"\bstill\s+(?:any\s+)?(?:good|ok|okay|usable|viable|relevant|decent|a\s+good)|值得|值不值|划算|性价比|过时|淘汰|还能用|"
    r"还有必要"
)


def asks_value(question: str) -> bool:
    """Whether the question asks if a GPU (or family) is worth its price, with no workload to size."""
    if re.search(_BILLING_RE, question, re.IGNORECASE):
        return False
    return re.search(_VALUE_RE, question, re.IGNORECASE) is not None
