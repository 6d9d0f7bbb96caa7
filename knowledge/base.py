"""The knowledge base: guidance documents, their vector index and cited search, behind one object."""

from __future__ import annotations

import logging
import os
import shutil
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict

from knowledge.chunking import Chunk, chunk_documents
from knowledge.config import KnowledgeConfig
from knowledge.documents import Document, Lang, load_documents
from knowledge.embeddings import Embedder, make_embedder
from knowledge.keyword import use_dictionary_cache
from knowledge.models import Passage
from knowledge.retrieval import FusionParams, HybridRetriever, SearchMode
from knowledge.shipped_vectors import load_shipped, text_key
from knowledge.snapshot import load_snapshot, save_snapshot, snapshot_path
from knowledge.store import ChunkStore, collection_name, forget_embedded_client, open_client

log = logging.getLogger(__name__)

ProgressCallback = Callable[[int, int], None]
"""Called as ``progress(done, total)`` while chunks are embedded."""

_EMBED_BATCH = 8  # chunks per embedding call: small enough for a responsive progress bar


class IndexReport(BaseModel):
    """What an index build did.

    Attributes:
        collection: Chroma collection name.
        embedding_model: Embedder ``model_id``.
        chunks: Chunks in the documents now.
        added: Chunks indexed for the first time.
        updated: Chunks whose text or metadata changed, embedded again.
        removed: Chunks deleted because their section no longer exists.
        unchanged: Chunks left as they were.
        from_shipped: Of the added and updated chunks, those whose vector came with the package.
        seconds: Wall time of the build, seconds.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    collection: str
    embedding_model: str
    chunks: int
    added: int
    updated: int
    removed: int
    unchanged: int
    from_shipped: int = 0
    seconds: float


class KnowledgeBase:
    """Guidance documents indexed for hybrid search with citations.

    Reads the documents once, when first needed. The first search builds or refreshes the index
    automatically (embedding only new and changed sections); :meth:`build_index` does it explicitly.
    With the embedded store, a start whose chunks match the last sync searches the in-memory snapshot
    of that sync instead of opening Chroma (see :mod:`knowledge.snapshot`).
    Thread-safe: a lock serialises index builds, searches only read. An embedded index that cannot be
    read (a corrupt or truncated file) is rebuilt from the documents and the shipped vectors in a new
    directory that then replaces the broken one in one rename, so no reader ever sees half an index.
    """

    def __init__(
        self,
        config: KnowledgeConfig,
        *,
        embedder: Embedder | None = None,
        documents: Sequence[Document] | None = None,
        fusion: FusionParams | None = None,
    ) -> None:
        """Set up without touching disk or models.

        Args:
            config: Where the index lives and which embedder to use.
            embedder: Use this embedder instead of the one ``config`` names (tests, benchmarks).
            documents: Use these documents instead of reading ``config.docs_dir``.
            fusion: Hybrid ranking weights; the defaults are tuned on the retrieval eval.
        """
        self.config = config
        self.embedder = embedder or make_embedder(config)
        self._documents = tuple(documents) if documents is not None else None
        self._fusion = fusion
        self._lock = threading.Lock()
        self._chunks: list[Chunk] | None = None
        self._store: ChunkStore | None = None
        self._retriever: HybridRetriever | None = None
        self._report: IndexReport | None = None
        use_dictionary_cache(config.data_dir / "cache")

    @property
    def documents(self) -> tuple[Document, ...]:
        """The guidance documents (read on first access)."""
        if self._documents is None:
            self._documents = load_documents(self.config.docs_dir)
        return self._documents

    @property
    def chunks(self) -> list[Chunk]:
        """All chunks of all documents."""
        if self._chunks is None:
            self._chunks = chunk_documents(self.documents)
        return self._chunks

    def ensure_index(self, progress: ProgressCallback | None = None) -> IndexReport:
        """Make sure the index matches the documents; only the first call in this object does work.

        Returns:
            The report of the build this object ran.
        """
        with self._lock:
            if self._report is None:
                self._report = self._from_snapshot() or self._sync(progress)
            return self._report

    def build_index(self, progress: ProgressCallback | None = None) -> IndexReport:
        """Bring the index in line with the documents: embed new and changed chunks, delete removed ones.

        Idempotent: a second run embeds nothing and reports every chunk as unchanged.
        """
        with self._lock:
            self._report = self._sync(progress)
            return self._report

    def search(
        self,
        query: str,
        k: int = 5,
        lang: Lang | None = None,
        mode: SearchMode = "hybrid",
        langs: Sequence[Lang] | None = None,
    ) -> list[Passage]:
        """Return the ``k`` passages that best answer ``query``; build the index first if needed.

        Args:
            query: Question or keywords, Chinese or English.
            k: Number of passages to return.
            lang: Preferred language (a bonus, not a filter).
            mode: ``hybrid`` (default), ``dense`` or ``keyword``.
            langs: Search only passages in these languages (``None``: all).
        """
        self.ensure_index()
        assert self._retriever is not None  # set by _sync
        try:
            return self._retriever.search(query, k=k, lang=lang, mode=mode, langs=langs)
        except Exception:
            if self.config.chroma_host or mode == "keyword":
                raise
            log.warning("searching the index failed; rebuilding it", exc_info=True)
            with self._lock:
                self._store = None
                self._report = self._sync(None, force_rebuild=True)
            return self._retriever.search(query, k=k, lang=lang, mode=mode, langs=langs)

    def term_shares(self, text: str) -> dict[str, float]:
        """Return each search token of ``text`` with the share of guidance chunks that use it (0.0: none)."""
        self.ensure_index()
        assert self._retriever is not None  # set by _sync
        return self._retriever.term_shares(text)

    def health(self) -> str | None:
        """Return None when the index is built and complete, else what is wrong (for ``/healthz``)."""
        try:
            self.ensure_index()
            if self._store is None:
                # Searching the in-memory snapshot of the last sync, which matched every chunk to load.
                return None if self._retriever is not None else "retrieval: no index loaded"
            stored = self._store.count()
        except Exception as exc:  # noqa: BLE001 - whatever breaks, it is the reason
            return f"retrieval: {type(exc).__name__}: {exc}"[:300]
        if stored < len(self.chunks):
            return f"retrieval: the index holds {stored} of {len(self.chunks)} sections"
        return None

    def _sync(self, progress: ProgressCallback | None, *, force_rebuild: bool = False) -> IndexReport:
        start = time.perf_counter()
        chunks = self.chunks
        stored = self._open_store(progress, force_rebuild)
        assert self._store is not None
        wanted = {c.chunk_id: c for c in chunks}
        removed = [cid for cid in stored if cid not in wanted]
        todo = [c for c in chunks if stored.get(c.chunk_id) != c.content_hash]
        self._store.delete(removed)
        from_shipped = self._embed_and_store(todo, progress)
        self._retriever = HybridRetriever(chunks, self._store, self.embedder, self._fusion)
        if not self.config.chroma_host:
            vectors = self._store.vectors([c.chunk_id for c in chunks])
            save_snapshot(self._snapshot_path(), chunks, self.embedder.model_id, vectors, self._retriever.tokens)
        added = sum(1 for c in todo if c.chunk_id not in stored)
        return IndexReport(
            collection=self._store.name,
            embedding_model=self.embedder.model_id,
            chunks=len(chunks),
            added=added,
            updated=len(todo) - added,
            removed=len(removed),
            unchanged=len(chunks) - len(todo),
            from_shipped=from_shipped,
            seconds=round(time.perf_counter() - start, 3),
        )

    def _from_snapshot(self) -> IndexReport | None:
        """Search the snapshot of the last sync when it matches the chunks; None when it cannot be used."""
        if self.config.chroma_host:  # a Chroma server is the shared source of truth: always ask it
            return None
        start = time.perf_counter()
        chunks = self.chunks
        found = load_snapshot(self._snapshot_path(), chunks, self.embedder.model_id)
        if found is None:
            return None
        vectors, tokens = found
        self._retriever = HybridRetriever(chunks, vectors, self.embedder, self._fusion, tokens=tokens)
        return IndexReport(
            collection=collection_name(self.embedder.model_id),
            embedding_model=self.embedder.model_id,
            chunks=len(chunks),
            added=0,
            updated=0,
            removed=0,
            unchanged=len(chunks),
            seconds=round(time.perf_counter() - start, 3),
        )

    def _snapshot_path(self) -> Path:
        return snapshot_path(self.config.data_dir, self.embedder.model_id)

    def _open_store(self, progress: ProgressCallback | None, force_rebuild: bool) -> dict[str, str]:
        """Open the index and return its content hashes; rebuild an unreadable embedded index first."""
        if not force_rebuild:
            try:
                if self._store is None:
                    self._store = ChunkStore.open(open_client(self.config), self.embedder.model_id)
                return self._store.content_hashes()
            except Exception as exc:
                if self.config.chroma_host:  # a server's data is not ours to repair
                    raise
                log.warning("the index at %s cannot be read (%s); rebuilding it", self.config.chroma_path, exc)
        self._rebuild_embedded(progress)
        assert self._store is not None
        return self._store.content_hashes()

    def _rebuild_embedded(self, progress: ProgressCallback | None) -> None:
        """Build a complete index in a new directory, then swap it in place of the current one."""
        final = self.config.chroma_path
        fresh = final.with_name(f"{final.name}.rebuild-{os.getpid()}-{uuid.uuid4().hex[:8]}")
        self._store = ChunkStore.open(open_client(self.config, fresh), self.embedder.model_id)
        self._embed_and_store(self.chunks, progress)
        self._store = None
        forget_embedded_client(fresh)
        forget_embedded_client(final)
        broken = final.with_name(f"{final.name}.broken-{int(time.time())}-{uuid.uuid4().hex[:6]}")
        if final.exists():
            os.replace(final, broken)
        os.replace(fresh, final)
        shutil.rmtree(broken, ignore_errors=True)
        log.warning("the index at %s was rebuilt from the documents and shipped vectors", final)
        self._store = ChunkStore.open(open_client(self.config), self.embedder.model_id)

    def _embed_and_store(self, todo: list[Chunk], progress: ProgressCallback | None) -> int:
        """Store vectors for ``todo``; return how many came from the shipped file instead of the model."""
        assert self._store is not None
        shipped = load_shipped(self.embedder.model_id) if self.config.shipped_vectors else {}
        ready = [c for c in todo if text_key(c.embed_text) in shipped]
        if ready:
            self._store.upsert(ready, np.stack([shipped[text_key(c.embed_text)] for c in ready]))
            todo = [c for c in todo if text_key(c.embed_text) not in shipped]
        if progress:
            progress(0, len(todo))
        for first in range(0, len(todo), _EMBED_BATCH):
            batch = todo[first : first + _EMBED_BATCH]
            self._store.upsert(batch, self.embedder.embed_passages([c.embed_text for c in batch]))
            if progress:
                progress(first + len(batch), len(todo))
        return len(ready)
