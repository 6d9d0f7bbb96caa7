"""Chinese renderings of the planner's and estimator's fixed English notes, so a zh answer stays in one language.

The tools return a few kinds of free-text note (rejection reasons, assumptions, warnings, layouts) built
from fixed templates. Each template is matched here and rendered in Chinese with the same figures; a
note no pattern knows is left out of a Chinese answer (it stays in the JSON tool results) rather than
pasted in English.
"""

from __future__ import annotations

import re

_ON_OFF = {"on": "开", "off": "关"}
# (pattern over the whole note, Chinese template with {1}, {2} ... for the groups)
_ZH: tuple[tuple[str, str], ...] = (
    (r"needs ([\d.]+) GiB per GPU for one (\d+)-token sequence on (\d+)x (\S+); vLLM may use ([\d.]+) GiB",
     "在 {3} 张 {4} 上，一条 {2} tokens 的序列每卡需要 {1} GiB，vLLM 只能用 {5} GiB"),
    (r"needs ([\d.]+) GiB per GPU on (\d+)x (\S+) \(([\d.]+) GiB usable\)",
     "在 {2} 张 {3} 上每卡需要 {1} GiB（可用 {4} GiB）"),
    (r"over budget: ¥([\d,]+)/month", "超出预算：¥{1}/月"),
    (r"needs (\d+) instances; at most (\d+) allowed", "需要 {1} 台实例，超过最多 {2} 台的限制"),
    (r"needs (\d+) GPUs; at most (\d+) allowed", "需要 {1} 张卡，超过最多 {2} 张的限制"),
    (r"no subscription price is known in (\S+) for any option; ranked by pay-as-you-go instead",
     "{1} 没有任何方案的包月价，改按按量付费价排序"),
    (r"no subscription price is known for any option; ranked by pay-as-you-go instead",
     "没有任何方案的包月价，改按按量付费价排序"),
    (r"no spot price is known in (\S+) for any option; ranked by pay-as-you-go instead",
     "{1} 没有任何方案的抢占式价格，改按按量付费价排序"),
    (r"no spot price is known for any option; ranked by pay-as-you-go instead",
     "没有任何方案的抢占式价格，改按按量付费价排序"),
    (r"needs ([\d.]+) GiB per GPU, (\S+) has ([\d.]+) GiB usable", "每卡需要 {1} GiB，{2} 只有 {3} GiB 可用"),
    (r"one model replica per GPU; the load decides how many GPUs", "每张卡一个模型副本，卡数由负载决定"),
    (r"batch job finished within ([\d.]+) h", "批处理在 {1} 小时内完成"),
    (r"region: unknown region '([^']+)'; known regions: (.+), or any",
     "没有 {1} 这个地域。可用的地域 ID：{2}，或 any（比较所有地域）"),
    (r"a fixed fleet of (\d+) GPUs; the batch time follows from it", "固定使用 {1} 张卡，批处理时长由此得出"),
    (r"every component stays on the GPU", "所有组件常驻 GPU"),
    (r"PyTorch SDPA attention: no attention matrix is stored", "PyTorch SDPA 注意力：不保存注意力矩阵"),
    (r"GPU count not published for this type; cannot size it", "该规格未公布 GPU 数量，无法计算"),
    (r"a vGPU slice, not whole GPUs; not planned", "vGPU 分片而非整卡，不参与规划"),
    (r"GPU or its memory not published for this type; cannot size it", "该规格未公布 GPU 型号或显存，无法计算"),
    (r"has (\S+), not the requested (\S+)", "GPU 为 {1}，不是要求的 {2}"),
    (r"has (\S+), which the request excludes", "GPU 为 {1}，已按要求排除"),
    (r"FP8 weights need FP8 Tensor Cores or Ampere's weight-only FP8 kernels; (\S+) is (\S+)",
     "FP8 权重需要 FP8 Tensor Core 或 Ampere 的仅权重 FP8 内核；{1} 是 {2} 架构"),
    (r"AWQ kernels need compute capability 7\.5\+ \(Turing or newer\); (\S+) is (\S+)",
     "AWQ 内核需要计算能力 7.5 以上（Turing 或更新）；{1} 是 {2} 架构"),
    (r"no published (\S+) throughput for (\S+)", "{2} 没有公布 {1} 算力"),
    (r"tensor parallel (\d+) does not divide (\d+) attention heads", "张量并行 {1} 不能整除 {2} 个注意力头"),
    (r"tensor parallel (\d+) does not divide (\d+) KV heads", "张量并行 {1} 不能整除 {2} 个 KV 头"),
    (r"pipeline parallel across (\d+) instances over RDMA; stages run one after another for each token",
     "跨 {1} 台实例做流水线并行（RDMA），每个 token 依次经过各段"),
    (r"(\S+) has no BF16: runs in FP16 \(same memory; training needs loss scaling\)",
     "{1} 不支持 BF16：以 FP16 运行（显存相同；训练需要 loss scaling）"),
    (r"(\S+) has no FP8 Tensor Cores: FP8 weights run weight-only \(W8A16\), 16-bit math",
     "{1} 没有 FP8 Tensor Core：FP8 权重按 W8A16 运行，16 位计算"),
    (r"DeepSpeed ZeRO-(\d)", "DeepSpeed ZeRO-{1}"),
    (r"plain data parallel \(DDP\)", "普通数据并行（DDP）"),
    (r"(\d+) instances: data parallel over RDMA networking", "{1} 台实例：通过 RDMA 网络做数据并行"),
    (r"context (\d+) tokens per sequence, (\d+) generated", "每条序列 {1} tokens（其中生成 {2}）"),
    (r"context (\d+) tokens per sequence", "每条序列 {1} tokens"),
    (r"(\d+) concurrent sequences?", "{1} 条序列同时处理"),
    (r"(\d+) concurrent sequences?, ([\d.]+) requests/s", "{1} 条序列同时处理，每秒 {2} 个请求"),
    (r"([\d.]+) requests/s; sequences in flight follow from the rate and the latency \(Little's law\)",
     "每秒 {1} 个请求；同时处理的序列数由请求率和延迟决定（Little 定律）"),
    (r"vLLM-style serving, gpu_memory_utilization ([\d.]+)", "按 vLLM 方式部署，gpu_memory_utilization {1}"),
    (r"decode: (\d+) ms per step \+ bytes / \(([\d.]+) x bandwidth\) \(x([\d.]+) for quantised, x([\d.]+) for MoE\)",
     "解码：每步 {1} ms + 字节数 ÷（{2} × 带宽）（量化 ×{3}，MoE ×{4}）"),
    (r"micro-batch (\d+) per GPU, gradient checkpointing (on|off)", "每卡 micro-batch {1}，梯度检查点：{2}"),
    (r"full fine-tuning on several GPUs uses ZeRO-3 \(FSDP-like sharding\)",
     "多卡全参训练按 ZeRO-3（类似 FSDP 的切分）计算"),
    (r"LoRA/QLoRA: plain data parallel, ZeRO-3 when one GPU cannot hold the frozen base",
     "LoRA/QLoRA：普通数据并行；单卡放不下冻结的底座时用 ZeRO-3"),
    (r"training time at (\d+)% model FLOPs utilisation", "训练时间按 {1}% 的模型算力利用率（MFU）计算"),
    (r"usable GPU memory: published CUDA-visible figure, else (\d+)% \(HBM\) or (\d+)% \(GDDR\) of nominal",
     "可用显存：有公布的 CUDA 可见值就用它，否则按标称值的 {1}%（HBM）或 {2}%（GDDR）"),
    (r"monthly price: subscription where listed, else (\d+) h of pay-as-you-go",
     "月价：有包月价用包月价，否则按 {1} 小时按量付费计"),
    (r"ranked by pay-as-you-go price per hour; fits with under 10% headroom after comfortable ones",
     "按每小时按量价格排序；余量不足 10% 的方案排在宽裕的之后"),
    (r"no instance type in the catalog has an? (\S+) GPU", "目录中没有带 {1} 的实例规格"),
    (r"(\d+) option\(s\) have no list price, so the budget could not be checked for them",
     "{1} 个方案没有目录价，无法核对预算"),
    (r"every priced option that fits costs more than ¥([\d,]+)/month", "所有能放下且有价格的方案都超过 ¥{1}/月"),
    (r"context (\d+) exceeds (\S+)'s max_context (\d+)", "上下文 {1} 超过 {2} 的最大上下文 {3}"),
    (r"no list prices for (\S+); prices shown are from (\S+) \(see each price's source\)",
     "{1} 没有目录价；显示的是 {2} 的价格（见各价格来源）"),
    (r"some options use GPUs Alibaba does not name; the GPU shown is inferred",
     "部分方案的 GPU 型号阿里云未公布，显示的是推测型号"),
    (r"no instance type fits this workload; see the rejections", "没有能放下该负载的实例规格；见被排除的规格"),
    (r"1 GPU", "1 张卡"),
    (r"tensor parallel over (\d+) GPUs", "{1} 卡张量并行"),
    (r"data parallel over (\d+) GPUs \(DDP: full replica on each\)", "{1} 卡数据并行（DDP：每卡一份完整副本）"),
    (r"ZeRO-(\d) over (\d+) GPUs", "ZeRO-{1} 切分到 {2} 张卡"),
    (r"ZeRO-(\d) over (\d+) GPUs, (\w+) offloaded", "ZeRO-{1} 切分到 {2} 张卡，{3} 卸载到 CPU"),
    (r"Unknown (?:model|GPU|instance type|instance family|region) '(.+)'\. Did you mean (.+)\?",
     "目录里没有“{1}”。您是不是指：{2}？"),
    (r"Unknown (?:model|GPU|instance type|instance family|region) '(.+)'\.", "目录里没有“{1}”。"),
    # media models (tools/media_memory.py): the setting each estimate assumes
    (r"(.+?) at (\d+)x(\d+), batch (\d+), (\w+) weights; ([\d,]+) denoiser tokens per image, "
     r"classifier-free guidance runs a second denoiser pass per step",
     "{1}，{2}x{3}，batch {4}，{5} 权重；每张图 {6} 个去噪 token，无分类器引导（CFG）每步多跑一次去噪"),
    (r"(.+?) at (\d+)x(\d+), batch (\d+), (\w+) weights; ([\d,]+) denoiser tokens per image, "
     r"classifier-free guidance doubles the denoiser batch",
     "{1}，{2}x{3}，batch {4}，{5} 权重；每张图 {6} 个去噪 token，无分类器引导（CFG）使去噪 batch 翻倍"),
    (r"(.+?) at (\d+)x(\d+), batch (\d+), (\w+) weights; ([\d,]+) denoiser tokens per image, "
     r"one denoiser pass per step \(guidance-distilled\)",
     "{1}，{2}x{3}，batch {4}，{5} 权重；每张图 {6} 个去噪 token，每步一次去噪（引导蒸馏）"),
    (r"(.+?) at (\d+) frames of (\d+)x(\d+), batch (\d+), (\w+) weights; ([\d,]+) denoiser tokens per video, .+",
     "{1}，{2} 帧 {3}x{4}，batch {5}，{6} 权重；每个视频 {7} 个去噪 token"),
    (r"(.+?): (\d+) audio stream\(s\) of ([\d.]+) s windows at once, (\w+) weights",
     "{1}：同时 {2} 路音频，每段 {3} 秒窗口，{4} 权重"),
    (r"(.+?): batch (\d+) x ([\d,]+) tokens per sequence, (\w+) weights", "{1}：batch {2} × 每条 {3} tokens，{4} 权重"),
    # A tool's range check on one argument (pydantic's wording), e.g. "concurrency: Input should be less than or
    # equal to 100000": the argument keeps its name, the bound its figure.
    (r"(\w+): Input should be less than or equal to ([\d.e+]+)", "{1} 不能超过 {2}"),
    (r"(\w+): Input should be less than ([\d.e+]+)", "{1} 必须小于 {2}"),
    (r"(\w+): Input should be greater than or equal to ([\d.e+\-]+)", "{1} 不能小于 {2}"),
    (r"(\w+): Input should be greater than ([\d.e+\-]+)", "{1} 必须大于 {2}"),
    (r"no KV cache: every sequence is encoded in one pass", "没有 KV Cache：每条序列一次编码完成"),
    (r"non-autoregressive: one decoder pass per window, no token cache", "非自回归：每个窗口解码一次，没有 token 缓存"),
    (r"model CPU offload: only the running component is on the GPU \(slower by the weight transfers\)",
     "模型级 CPU 卸载：只有正在运行的组件在 GPU 上（权重搬运会变慢）"),
    (r"sequential CPU offload: about one layer at a time on the GPU \(several times slower\)",
     "逐层 CPU 卸载：GPU 上一次大约只有一层（慢数倍）"),
)  # fmt: skip
_COMPILED = tuple((re.compile(pattern), zh) for pattern, zh in _ZH)


def note_zh(note: str) -> str | None:
    """Render one fixed English tool note in Chinese with its figures; None when no template matches."""
    for pattern, zh in _COMPILED:
        if m := pattern.fullmatch(note.strip()):
            return zh.format(None, *(_ON_OFF.get(g, g) for g in m.groups()))  # {1} is the first group
    return None


def notes_in(lang: str, notes: list[str]) -> list[str]:
    """Return the notes in the answer's language: Chinese for zh (unknown ones left out), else as given."""
    if lang != "zh":
        return notes
    return [zh for note in notes if (zh := note_zh(note)) is not None]
