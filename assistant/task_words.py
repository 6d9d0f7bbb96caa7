"""What the user wants done with the model: the task (inference, full, LoRA, QLoRA) and its precision.

"微调后的模型部署" is serving the result; "从头预训练" is full training, never a LoRA guess; a
fine-tuning request without a method is a hint the engine asks about once. Precisions and formats are
read from the whole text, so "Qwen2.5-72B-Instruct-AWQ" names AWQ inside the model name.
"""

from __future__ import annotations

import re
from typing import Literal

from assistant.phrases import PRETRAIN_RE
from assistant.reading import Scan, compiled
from tools.workload import Precision, Quant, Task

TaskHint = Literal["finetune", "train"]

_INFERENCE_WORDS = (
    r"推理|部署|上线|serving|serve|inference|infer|deploy|host|在线服务|api\s*服务|对话服务|跑|运行|"
    r"\brun\b|\brunning\b|聊天|chatbot|生成服务|吞吐|throughput|tokens?/s|延迟|latency|"
    # a product people use: retrieval answering, assistants, users online (never a training run by itself)
    r"\brag\b|知识库|问答|客服|\bassistant\b|助手|同时在线|在线人数|\busers?\b|用户|\bemployees\b|员工|"
    r"\bprompts?\b|\banswers?\b|回答|回复|"
    # the KV cache and per-request figures exist only while serving
    r"kv[\s\-_]*cache|kv\s*缓存|键值缓存|\brequests?\b|请求|\bttft\b|首字|首\s*token"
)
_FULL_RE = (
    r"全参|全量|全参数|full[\s\-]*(?:parameter\s*)?(?:fine[\s\-]*tun\w*|ft|sft|training|finetun\w*)\b|\bfft\b|full[\s\-]*param(?:eter)?s?\b|\(\s*full\s*\)|"
    r"fine[\s\-]*tun\w*\s+(?:\S+\s+){0,3}?fully|fully\s+fine[\s\-]*tun\w*|full\s+weights|all\s+(?:(?:of\s+)?the\s+|its\s+|model\s+)?(?:weights|param(?:eter)?s)\b"
)
# Preference tuning (DPO, RLHF, GRPO) trains the model too: a method is asked, never "serve or train?"
_FINETUNE_RE = (
    r"微调|精调|fine[\s\-]*tun\w*|finetun\w*|\bsft\b|\b(?:dpo|rlhf|ppo|orpo|kto|grpo|simpo)\b|"
    r"preference\s+(?:tuning|optimi[sz]ation|training|alignment)|偏好(?:对齐|训练|优化)|强化学习"
)
_TRAIN_RE = r"训练|预训练|\btrain\w*|pre[\s\-]?train\w*"
# "cheapest way to fine-tune", "most affordable", "on a shoestring", "最便宜怎么弄", "最省钱", "成本最低": the least
# cost is asked, so the method is part of the answer (the cheap one), not a question back.
_CHEAPEST_RE = (
    r"cheapest|least\s+expensive|most\s+(?:affordable|economical|cost[\s\-]*effective)|as\s+cheap(?:ly)?\s+as|"
    r"lowest[\s\-]+cost|on\s+a\s+(?:shoestring|tight\s+budget)|最便宜|最省钱|最划算|成本最低|花钱最少|最低成本|尽量省钱"
)


def asks_cheapest(text: str) -> bool:
    """Return whether the question asks for the least costly way ("cheapest way to fine-tune", "最省钱")."""
    return bool(re.search(_CHEAPEST_RE, text, re.IGNORECASE))


def find_task(scan: Scan) -> tuple[Task | None, TaskHint | None, bool]:
    """Return the task stated (a method, or inference), else the training hinted, and whether it serves."""
    text = scan.text
    serving = bool(re.search(_INFERENCE_WORDS, text, re.IGNORECASE))
    if re.search(r"q[\s\-]?lora", text, re.IGNORECASE):
        return "qlora", None, serving
    if re.search(r"(?<![a-z])lora", text, re.IGNORECASE):
        return "lora", None, serving
    if re.search(_FULL_RE, text, re.IGNORECASE) or re.search(PRETRAIN_RE, text, re.IGNORECASE):
        # Pretraining and continued pretraining train every weight: full training, never a LoRA guess.
        return "full", None, serving
    finetune = re.search(_FINETUNE_RE, text, re.IGNORECASE)
    train = re.search(_TRAIN_RE, text, re.IGNORECASE)
    # "微调后的模型部署" is about serving the result; "跑训练" is about training.
    if serving and re.search(r"推理|部署|serving|serve|inference|deploy|上线", text, re.IGNORECASE):
        return "inference", None, serving
    if finetune:
        return None, "finetune", serving
    if train:
        return None, "train", serving
    return ("inference" if serving else None), None, serving


_PRECISIONS: tuple[tuple[str, Precision, Quant | None], ...] = (
    (r"\bawq\b", "int4", "awq-int4"),
    (r"gptq[\s\-_]*(?:int)?8|int8[\s\-_]*gptq", "int8", "gptq-int8"),
    (r"\bgptq\b", "int4", "gptq-int4"),
    (r"\bnf4\b|bnb[\s\-_]*(?:4|nf4)|bitsandbytes", "int4", "bnb-nf4"),
    (r"\bfp8\b|\bw8a8[\s\-]*fp8\b|8\s*位浮点", "fp8", None),
    (r"\bint8\b|\bq8(?:_0)?\b|\bw8a8\b|\b8[\s\-]?bits?\b|8\s*比特|8\s*位\s*(?:量化|精度|整)|8bit", "int8", None),
    # "q4", "Q4_K_M" (llama.cpp's 4-bit formats), not "in Q4" (a quarter of the year)
    (r"(?<!in\s)(?<!by\s)\bq4(?:_k(?:_[ms])?|_[01])?\b|"
     r"\bint4\b|\bw4a16\b|\b4[\s\-]?bits?\b|4\s*比特|4\s*位\s*(?:量化|精度|整)|4bit", "int4", None),
    (r"\bbf16\b|bfloat16", "bf16", None),
    (r"\bfp16\b|float16|half[\s\-]precision|半精度", "fp16", None),
    (r"\bfp32\b|float32|全精度|单精度", "fp32", None),
)


# "不量化", "不做量化", "未量化", "without quantisation", "unquantised", "w/o quant": quantisation refused, not
# asked for; the models' own 16-bit weights (the planner's default precision, stated so the call shows it).
_NO_QUANT_RE = (
    r"(?:不|不要|不想|不做|不用|不能|没|没有|未|无|非|别)\s*(?:做|用|要|进行|经过|开)?\s*量化|"
    r"(?:without|no|not|never|don'?t|do\s+not|won'?t|can'?t|w/o)\s+(?:any\s+|be(?:ing)?\s+|want\s+(?:to\s+)?)?"
    r"(?:quanti[sz]\w*|quant\b)|\bun[\s\-]?quanti[sz]\w*|non[\s\-]?quanti[sz]ed"
)
# "16-bit", "half precision": two bytes a weight, in the format every serving GPU has (fp16).
_SIXTEEN_BIT_RE = r"\b16[\s\-]?bits?\b|16\s*比特"


def find_precision(scan: Scan) -> tuple[Precision | None, Quant | None, bool]:
    """Return the precision and format named; True when only "quantised" was said (int4 assumed)."""
    # Read the whole text: "Qwen2.5-72B-Instruct-AWQ" names the format inside the model name.
    for pattern, precision, quant in _PRECISIONS:
        if compiled(pattern).search(scan.text):
            return precision, quant, False
    if re.search(_NO_QUANT_RE, scan.text, re.IGNORECASE):
        return "bf16", "none", False  # "不量化", "without quantisation": 16-bit weights, said in the call
    if re.search(_SIXTEEN_BIT_RE, scan.text, re.IGNORECASE):
        return "fp16", None, False
    if re.search(r"量化|quantiz|quantis|quantized|quantised", scan.text, re.IGNORECASE):
        return "int4", None, True
    return None, None, False
