"""Transformer architecture facts needed to count parameters and size memory.

The numbers come from a model's HuggingFace ``config.json``. Everything downstream (memory, speed,
planning) reads a :class:`ModelArchitecture`, never a raw config dict.
"""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): pydantic would
# compile each field's annotation string again on every cold start (see README, Cold starts).
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

AttentionKind = Literal["mha", "gqa", "mqa", "mla"]
QuantMethod = Literal["gptq", "awq", "fp8", "bnb-nf4", "bnb-int8", "compressed-tensors"]


class MoESpec(BaseModel):
    """Mixture-of-experts layout of the MLP blocks."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    num_experts: int = Field(gt=0, description="routed experts per MoE layer")
    experts_per_token: int = Field(gt=0, description="routed experts active for each token")
    expert_intermediate_size: int = Field(gt=0, description="MLP width of one routed expert")
    num_shared_experts: int = Field(default=0, ge=0, description="always-active shared experts per layer")
    shared_expert_intermediate_size: int = Field(
        default=0, ge=0, description="MLP width of ONE shared expert (0 when there is none)"
    )
    dense_layers: int = Field(
        default=0, ge=0, description="layers whose MLP is dense (intermediate_size) instead of MoE"
    )
    shared_expert_gate: bool = Field(default=False, description="Qwen-MoE sigmoid gate on the shared expert")


class MLASpec(BaseModel):
    """DeepSeek multi-head latent attention: the KV cache stores one compressed latent per token."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    kv_lora_rank: int = Field(gt=0)
    q_lora_rank: int | None = Field(default=None, description="None: queries are not low-rank")
    qk_rope_head_dim: int = Field(gt=0)
    qk_nope_head_dim: int = Field(gt=0)
    v_head_dim: int = Field(gt=0)


class QuantSpec(BaseModel):
    """Quantisation baked into a checkpoint (from ``quantization_config``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    method: QuantMethod
    bits: int = Field(gt=0, le=16)
    group_size: int | None = Field(default=None, description="weights per scale; None or -1 = per channel")


class ParamBreakdown(BaseModel):
    """Parameter counts (plain numbers of parameters, not bytes) by where they live."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    embedding: int
    lm_head: int = Field(description="0 when tied to the embedding")
    attention: int = Field(description="all layers: q/k/v/o projections, biases, q/k norms, MLA down/up")
    dense_mlp: int = Field(description="all layers with a dense MLP")
    routed_experts: int = Field(description="all routed experts of all MoE layers")
    shared_experts: int = Field(description="shared experts (and their gates) of all MoE layers")
    router: int = Field(description="MoE router weights")
    norms: int = Field(description="layer norms incl. the final norm")
    other: int = Field(default=0, description="parts outside the decoder, e.g. a vision tower")
    active_routed_experts: int = Field(description="routed-expert params used by one token")

    @property
    def total(self) -> int:
        """All parameters stored in memory."""
        return (
            self.embedding
            + self.lm_head
            + self.attention
            + self.dense_mlp
            + self.routed_experts
            + self.shared_experts
            + self.router
            + self.norms
            + self.other
        )

    @property
    def active(self) -> int:
        """Parameters read for one token (MoE: only the routed experts it uses)."""
        return self.total - self.routed_experts + self.active_routed_experts

    @property
    def linear(self) -> int:
        """Parameters in decoder linear layers: what GPTQ/AWQ/FP8/bnb quantise (not embeddings/norms)."""
        return self.attention + self.dense_mlp + self.routed_experts + self.shared_experts


class ModelArchitecture(BaseModel):
    """One decoder-only LLM, as described by its ``config.json``."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    name: str = Field(description="canonical display name, e.g. 'Qwen2.5-72B-Instruct'")
    family: str = Field(description="e.g. 'Qwen2.5', 'Llama 3.1', 'DeepSeek-V3'")
    hf_id: str | None = None
    source_url: str = Field(description="the config.json the numbers were taken from")
    aliases: tuple[str, ...] = ()
    hidden_size: int = Field(gt=0)
    num_layers: int = Field(gt=0)
    num_attention_heads: int = Field(gt=0)
    num_kv_heads: int = Field(gt=0)
    head_dim: int = Field(gt=0, description="from config when given, else hidden_size / heads")
    intermediate_size: int = Field(gt=0, description="dense MLP width")
    vocab_size: int = Field(gt=0)
    tie_word_embeddings: bool
    max_context: int = Field(gt=0, description="max_position_embeddings (or documented context)")
    gated_mlp: bool = Field(default=True, description="SwiGLU/GeGLU: three matrices instead of two")
    qkv_bias: bool = False
    o_bias: bool = False
    qk_norm: bool = False
    norms_per_layer: int = Field(default=2, ge=0, description="Gemma 2/3 have 4 (pre and post norms)")
    sliding_window: int | None = Field(default=None, description="window of sliding-window layers")
    sliding_window_layers: int = Field(default=0, ge=0, description="how many layers use the window")
    moe: MoESpec | None = None
    mla: MLASpec | None = None
    quantization: QuantSpec | None = Field(default=None, description="checkpoint's own quantization_config")
    other_params: int = Field(default=0, ge=0, description="params outside the decoder (vision tower ...)")
    official_params_b: float | None = Field(default=None, description="published total, billions")
    official_params_source: str | None = None
    official_active_params_b: float | None = Field(
        default=None, description="MoE: published params used per token, billions (same source)"
    )
    torch_dtype: str = "bfloat16"
    notes: str | None = Field(
        default=None, description="how the numbers were checked, assumptions made while parsing, caveats"
    )

    @property
    def attention_kind(self) -> AttentionKind:
        """How keys/values are shared across heads, which decides the KV-cache size."""
        if self.mla is not None:
            return "mla"
        if self.num_kv_heads == 1:
            return "mqa"
        if self.num_kv_heads < self.num_attention_heads:
            return "gqa"
        return "mha"

    @property
    def moe_layers(self) -> int:
        """Number of layers whose MLP is a mixture of experts."""
        return 0 if self.moe is None else self.num_layers - self.moe.dense_layers

    def param_breakdown(self) -> ParamBreakdown:
        """Count parameters from the architecture (weights and biases; buffers excluded)."""
        h = self.hidden_size
        mlp_matrices = 3 if self.gated_mlp else 2
        moe = self.moe
        dense_layers = self.num_layers - self.moe_layers
        routed = shared = router = active_routed = 0
        if moe is not None:
            expert = mlp_matrices * h * moe.expert_intermediate_size
            routed = self.moe_layers * moe.num_experts * expert
            active_routed = self.moe_layers * moe.experts_per_token * expert
            shared_one = mlp_matrices * h * moe.shared_expert_intermediate_size
            gate = h if moe.shared_expert_gate else 0
            shared = self.moe_layers * (moe.num_shared_experts * shared_one + gate)
            router = self.moe_layers * h * moe.num_experts
        return ParamBreakdown(
            embedding=self.vocab_size * h,
            lm_head=0 if self.tie_word_embeddings else self.vocab_size * h,
            attention=self.num_layers * self._attention_params_per_layer(),
            dense_mlp=dense_layers * mlp_matrices * h * self.intermediate_size,
            routed_experts=routed,
            shared_experts=shared,
            router=router,
            norms=self.num_layers * self.norms_per_layer * h + h,
            other=self.other_params,
            active_routed_experts=active_routed,
        )

    def _attention_params_per_layer(self) -> int:
        h, heads = self.hidden_size, self.num_attention_heads
        if self.mla is not None:
            m = self.mla
            qk_head = m.qk_nope_head_dim + m.qk_rope_head_dim
            if m.q_lora_rank:
                q = h * m.q_lora_rank + m.q_lora_rank + m.q_lora_rank * heads * qk_head
            else:
                q = h * heads * qk_head
            kv = h * (m.kv_lora_rank + m.qk_rope_head_dim) + m.kv_lora_rank
            kv += m.kv_lora_rank * heads * (m.qk_nope_head_dim + m.v_head_dim)
            return q + kv + heads * m.v_head_dim * h
        q_out = heads * self.head_dim
        kv_out = self.num_kv_heads * self.head_dim
        params = h * (q_out + 2 * kv_out) + q_out * h
        if self.qkv_bias:
            params += q_out + 2 * kv_out
        if self.o_bias:
            params += h
        if self.qk_norm:
            params += 2 * self.head_dim
        return params

    def kv_cache_elements_per_token_per_layer(self) -> int:
        """Count cached numbers per token per layer: K and V heads, or MLA's latent plus RoPE key."""
        if self.mla is not None:
            return self.mla.kv_lora_rank + self.mla.qk_rope_head_dim
        return 2 * self.num_kv_heads * self.head_dim

    def kv_cache_elements(self, tokens: int) -> int:
        """Numbers held in the KV cache for ONE sequence of ``tokens`` tokens, all layers.

        Sliding-window layers keep at most ``sliding_window`` tokens. Multiply by the KV dtype's
        bytes and by the number of sequences to get bytes.
        """
        if tokens < 0:
            raise ValueError("tokens must be >= 0")
        per_layer = self.kv_cache_elements_per_token_per_layer()
        windowed = self.sliding_window_layers if self.sliding_window else 0
        full_layers = self.num_layers - windowed
        window_tokens = min(tokens, self.sliding_window or tokens)
        return per_layer * (full_layers * tokens + windowed * window_tokens)
