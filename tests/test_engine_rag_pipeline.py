"""A retrieval (RAG) pipeline: the LLM that answers is sized first, the embedding model beside it.

Domain: the LLM serving the answers is most of the GPUs and the cost; the embedder indexing the corpus is a
small job on its own card. A question naming both gets both, the LLM's instance on the first line, and a
product people use ("RAG assistant", "知识库问答", users online) is served, not asked "train or serve?".
"""

from __future__ import annotations

from typing import Any

import httpx
from engine_helpers import ask_api, ask_cli, first_line

Body = dict[str, Any]

EN = (
    "We're building an internal RAG assistant: bge-m3 for embeddings over 2 million chunks, "
    "Qwen2.5-32B-Instruct for answers, prompts around 6k tokens with retrieved context. What instances do we need?"
)
ZH = "企业知识库问答：bge-m3 做向量，100 万篇文档；Qwen2.5-14B-Instruct 负责回答，输入约 3000 tokens，用什么实例？"


def _names(body: Body) -> list[str]:
    return [c["name"] for c in body["tool_calls"]]


def _both_sized(body: Body, model: str) -> None:
    assert body["kind"] == "recommendation" and "plan_gpu_deployment" in _names(body)
    [plan] = [c for c in body["tool_calls"] if c["name"] == "plan_gpu_deployment"]
    assert plan["args"]["model"] == model and plan["args"]["task"] == "inference"  # served, not asked about
    [media] = [c for c in body["tool_calls"] if c["name"] == "plan_media_deployment"]
    assert media["args"]["model"] == "bge-m3" and media["args"]["docs"] > 0
    top = plan["result"]["options"][0]["instance_type"]
    assert top in first_line(body["text"])  # the LLM's instance answers first
    assert media["result"]["options"][0]["instance_type"] in body["text"]
    assert not first_line(body["text"]).startswith(("**Yes", "**是", "**能"))  # "what do we need" is not yes/no


def test_cli_rag_pipeline_sizes_the_llm_then_the_embedder(cli_env: dict[str, str]) -> None:
    _both_sized(ask_cli(cli_env, EN), "Qwen2.5-32B-Instruct")


def test_api_rag_pipeline_in_chinese(client: httpx.Client) -> None:
    body = ask_api(client, ZH)
    _both_sized(body, "Qwen2.5-14B-Instruct")
    assert body["language"] == "zh"
