"""Chunk vectors in Chroma: one collection per embedding model.

The embedded ``PersistentClient`` under ``<data_dir>/chroma`` is the default; a configured host switches
to ``HttpClient`` and a Chroma server. Vectors are always computed by our own embedder and passed in:
Chroma's default embedding function would try to download a model, so collections are created without one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from knowledge.chunking import Chunk
from knowledge.config import KnowledgeConfig

if TYPE_CHECKING:
    from chromadb.api import ClientAPI
    from chromadb.api.models.Collection import Collection

COLLECTION_PREFIX = "guides__"
_NAME_BAD_CHARS = re.compile(r"[^a-zA-Z0-9._-]+")


class StoreError(RuntimeError):
    """The vector store cannot be reached or opened; the message says what to check."""


def collection_name(model_id: str) -> str:
    """Chroma collection name for an embedding model (3-512 chars of ``[a-zA-Z0-9._-]``)."""
    return (COLLECTION_PREFIX + _NAME_BAD_CHARS.sub("-", model_id)).strip("-._")[:512]


def open_client(config: KnowledgeConfig, path: Path | None = None) -> ClientAPI:
    """Open a Chroma client: ``HttpClient`` when ``config.chroma_host`` is set, else the embedded store.

    Args:
        config: Where the index lives.
        path: Open the embedded store in this directory instead of ``config.chroma_path``.

    Raises:
        StoreError: The server does not answer, or the directory cannot be opened.
    """
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    settings = ChromaSettings(anonymized_telemetry=False)
    try:
        if config.chroma_host:
            client = chromadb.HttpClient(host=config.chroma_host, port=config.chroma_port, settings=settings)
            client.heartbeat()
            return client
        path = path or config.chroma_path
        path.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(path), settings=settings)
    except Exception as exc:  # chromadb raises many unrelated types for "cannot connect/open"
        where = (
            f"Chroma server at {config.chroma_host}:{config.chroma_port} (unset CHROMA_HOST to use the embedded store)"
            if config.chroma_host
            else f"embedded Chroma store at {path or config.chroma_path}"
        )
        raise StoreError(f"cannot open {where}: {exc}") from exc


def forget_embedded_client(path: Path) -> None:
    """Drop Chroma's in-process cache of the embedded store at ``path``, so a new client reopens its files.

    Chroma keeps one system per directory for the life of the process; after the directory is replaced
    (see ``KnowledgeBase``'s self-repair) the cached one would still point at the old files.
    """
    from chromadb.api.shared_system_client import SharedSystemClient

    key = str(path)
    system = SharedSystemClient._identifier_to_system.pop(key, None)
    SharedSystemClient._identifier_to_refcount.pop(key, None)
    if system is not None:
        try:
            system.stop()
        except Exception:  # noqa: BLE001 - a broken store may fail to stop; it is discarded either way
            pass


class ChunkStore:
    """The vectors and metadata of all chunks for one embedding model."""

    def __init__(self, collection: Collection) -> None:
        """Wrap an open collection; see :meth:`open`."""
        self._collection = collection

    @classmethod
    def open(cls, client: ClientAPI, model_id: str) -> ChunkStore:
        """Open (or create) the collection for ``model_id``, using cosine distance."""
        collection = client.get_or_create_collection(
            collection_name(model_id),
            embedding_function=None,
            configuration={"hnsw": {"space": "cosine"}},
            metadata={"embedding_model": model_id},
        )
        return cls(collection)

    @property
    def name(self) -> str:
        """Collection name."""
        return self._collection.name

    def count(self) -> int:
        """Count the stored chunks."""
        return self._collection.count()

    def content_hashes(self) -> dict[str, str]:
        """``chunk_id -> content_hash`` of everything stored."""
        got = self._collection.get(include=["metadatas"])
        metas = got["metadatas"] or []
        return {cid: str((meta or {}).get("content_hash", "")) for cid, meta in zip(got["ids"], metas, strict=True)}

    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray) -> None:
        """Insert or replace chunks with their vectors (one row per chunk)."""
        if not chunks:
            return
        self._collection.upsert(
            ids=[c.chunk_id for c in chunks],
            embeddings=np.asarray(vectors, dtype=np.float32),
            documents=[c.text for c in chunks],
            metadatas=[_metadata(c) for c in chunks],
        )

    def vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """``chunk_id -> vector`` of the given stored chunks (for the in-memory snapshot)."""
        if not chunk_ids:
            return {}
        got = self._collection.get(ids=list(chunk_ids), include=["embeddings"])
        rows = got["embeddings"] if got["embeddings"] is not None else []
        return {cid: np.asarray(row, dtype=np.float32) for cid, row in zip(got["ids"], rows, strict=True)}

    def delete(self, chunk_ids: Sequence[str]) -> None:
        """Remove chunks by id."""
        if chunk_ids:
            self._collection.delete(ids=list(chunk_ids))

    def query(self, vector: np.ndarray, n: int, langs: Sequence[str] | None = None) -> list[tuple[str, float]]:
        """Return the ``n`` nearest chunks as ``(chunk_id, cosine similarity)``, best first.

        Args:
            vector: Query embedding.
            n: Number of neighbours wanted.
            langs: Only chunks in these languages (``None``: all).
        """
        n = min(n, self.count())
        if n <= 0:
            return []
        got = self._collection.query(
            query_embeddings=[np.asarray(vector, dtype=np.float32)],
            n_results=n,
            where={"lang": {"$in": list(langs)}} if langs else None,
            include=["distances"],
        )
        distances = (got["distances"] or [[]])[0]
        return [(cid, 1.0 - float(dist)) for cid, dist in zip(got["ids"][0], distances, strict=True)]


def _metadata(chunk: Chunk) -> dict[str, Any]:
    # Stored so the collection describes itself (e.g. for a look with Chroma's own tools); retrieval maps
    # ids back to the in-memory chunks. Chroma metadata values must be scalars, hence JSON for the list.
    return {
        "doc": chunk.doc,
        "doc_title": chunk.doc_title,
        "section": chunk.section,
        "anchor": chunk.anchor,
        "lang": chunk.lang,
        "sources": json.dumps(list(chunk.sources)),
        "last_verified": chunk.last_verified,
        "content_hash": chunk.content_hash,
    }
