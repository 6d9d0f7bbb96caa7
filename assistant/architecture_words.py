"""A custom model's dimensions given in a question ("32 layers, hidden 4096, 32 heads, 8 KV heads ...").

The dimensions become config.json keys for the estimator, as a config.json path would. A question rarely
gives every field: the layers and the hidden size are required, the rest gets a stated default
(:data:`DEFAULTS` and :func:`complete_architecture`), shown to the user as an assumption, never a failure.
"""

from __future__ import annotations

from assistant.reading import compiled

_N = r"(?<![A-Za-z0-9_.])((?:\d{1,3}(?:,\d{3}){1,3}(?!\d)|\d{1,9})(?:\.\d{1,4})?)\s*([kK千wW万])?"
_SCALE = {"k": 1e3, "千": 1e3, "w": 1e4, "万": 1e4}
_SEP = r"\s*(?:=|:|：|为|是|of)?\s*"
_DIMS: tuple[tuple[str, str], ...] = (
    # KV heads before heads, so "8 KV heads" is not read as 8 attention heads.
    ("num_key_value_heads",
     rf"(?:kv[\s_\-]*heads|num_key_value_heads|key[\s\-]value\s+heads|kv\s*头数?|kv\s*groups|gqa\s*groups){_SEP}{_N}"
     rf"|{_N}\s*(?:个\s*)?(?:kv[\s_\-]*heads?|key[\s\-]value\s+heads?|kv\s*头|(?:kv|gqa|query)\s+groups|kv\s*组)"),
    ("num_local_experts",
     rf"(?:num_(?:local_)?experts|experts|专家数?){_SEP}{_N}|{_N}\s*(?:个\s*)?(?:routed\s+)?(?:experts|专家)(?!\s*per)"),
    ("num_experts_per_tok",
     rf"(?:top[\s\-]?k|experts\s+per\s+token|num_experts_per_tok|激活专家数?|每个?\s*token\s*(?:激活|选择?|路由到?)){_SEP}{_N}"
     rf"|{_N}\s*(?:active\s+experts|experts\s+per\s+token|个?\s*激活专家|(?:experts?\s+)?(?:active|activated|routed)"
     rf"(?:\s+per\s+token)?)|top[\s\-]?{_N}|激活\s*{_N}\s*个"),
    ("num_hidden_layers",
     rf"(?:num_hidden_layers|n_layers?|num\s+layers|layers|层数){_SEP}{_N}"
     rf"|{_N}\s*(?:个\s*)?(?:layers|(?:transformer\s+)?blocks|层)(?![a-z])"),
    ("hidden_size",
     rf"(?:hidden[\s_]*(?:size|dim(?:ension)?)?|d_model|(?:model|embedding)\s+(?:dim(?:ension)?|width|size)|"
     rf"隐藏(?:层)?(?:维度|大小)|模型维度){_SEP}{_N}"),
    ("num_attention_heads",
     rf"(?:num_attention_heads|attention\s+heads|heads|注意力头数?|头数){_SEP}{_N}"
     rf"|{_N}\s*(?:个\s*)?(?:attention\s+)?(?:heads|注意力头|头(?!数))"),
    ("intermediate_size",
     rf"(?:intermediate[\s_]*(?:size|dim(?:ension)?)?|ffn[\s_]*(?:size|dim|hidden)?|d_ff|mlp[\s_]*(?:size|dim)|"
     rf"中间层(?:维度|大小)?){_SEP}{_N}"),
    ("vocab_size", rf"(?:vocab(?:ulary)?[\s_]*(?:size)?|词表(?:大小)?){_SEP}{_N}"),
    ("max_position_embeddings", rf"(?:max_position_embeddings|max(?:imum)?\s+context|最大上下文){_SEP}{_N}"),
)  # fmt: skip

HEAD_DIM = 128  # the head size of Llama, Qwen, Mistral and DeepSeek dense models: heads = hidden / 128
VOCAB = 128_000
EXPERTS_PER_TOKEN = 2  # Mixtral's top-2
FFN_RATIO = 4  # the classic transformer MLP; SwiGLU models run ~2.7-3.5x (stated as assumed)


def architecture_dims(text: str) -> tuple[dict[str, int], list[tuple[int, int]]] | None:
    """Model dimensions given in the text (layers, hidden, heads ...), as config.json keys, with their spans.

    None unless at least the layers and the hidden size are given.
    """
    dims: dict[str, int] = {}
    spans: list[tuple[int, int]] = []
    for key, pattern in _DIMS:
        for m in compiled(pattern).finditer(text):
            if any(a < m.end() and m.start() < b for a, b in spans):
                continue
            group = next(i for i in (1, 3, 5, 7) if i <= m.re.groups and m.group(i))
            suffix = (m.group(group + 1) or "").lower()
            dims[key] = round(float(m.group(group).replace(",", "")) * _SCALE.get(suffix, 1.0))
            spans.append(m.span())
            break
    if not (dims.get("num_hidden_layers") and dims.get("hidden_size")):
        return None
    return dims, spans


def complete_architecture(dims: dict[str, int]) -> tuple[dict[str, int], list[str]]:
    """Fill the fields a question left out with stated defaults; return them and the keys assumed."""
    full = dict(dims)
    hidden = dims["hidden_size"]
    defaults = {
        "num_attention_heads": max(1, hidden // HEAD_DIM),
        "intermediate_size": FFN_RATIO * hidden,
        "vocab_size": VOCAB,
    }
    assumed = []
    for key, value in defaults.items():
        if not full.get(key):
            full[key], assumed = value, [*assumed, key]
    if not full.get("num_key_value_heads"):
        full["num_key_value_heads"], assumed = full["num_attention_heads"], [*assumed, "num_key_value_heads"]
    if full.get("num_local_experts") and not full.get("num_experts_per_tok"):
        full["num_experts_per_tok"], assumed = EXPERTS_PER_TOKEN, [*assumed, "num_experts_per_tok"]
    return full, assumed
