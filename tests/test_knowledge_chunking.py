from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from knowledge_helpers import FIXTURE_DOCS

from knowledge.chunking import chunk_document, chunk_documents, github_anchor
from knowledge.documents import load_documents, parse_document


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        # Expected values are the anchors GitHub renders for these headings (github-slugger rules).
        ("Pay-as-you-go versus subscription", "pay-as-you-go-versus-subscription"),
        ("gn7i: NVIDIA A10", "gn7i-nvidia-a10"),
        ("KV cache (per token)", "kv-cache-per-token"),
        ("What does `ecs.gn7i-c8g1.2xlarge` cost?", "what-does-ecsgn7i-c8g12xlarge-cost"),
        ("gn7i：NVIDIA A10", "gn7invidia-a10"),
        ("按量付费与包年包月", "按量付费与包年包月"),
        ("KV 缓存（每个 token）", "kv-缓存每个-token"),
        ("See [the docs](https://example.com) now", "see-the-docs-now"),
        ("snake_case stays", "snake_case-stays"),
    ],
)
def test_github_anchor(heading: str, anchor: str) -> None:
    assert github_anchor(heading) == anchor


def _fixture(lang: str, slug: str):
    path = FIXTURE_DOCS / lang / f"{slug}.md"
    return parse_document(path.read_text(encoding="utf-8"), path)


def test_one_chunk_per_h2_section_with_citation_metadata() -> None:
    chunks = chunk_document(_fixture("en", "pricing"))
    assert [c.section for c in chunks] == ["Pay-as-you-go versus subscription", "Preemptible instances"]
    first = chunks[0]
    assert first.chunk_id == "en/pricing#pay-as-you-go-versus-subscription"
    assert first.doc == "pricing"
    assert first.doc_title == "Paying for GPU instances"
    assert first.lang == "en"
    assert first.last_verified == "2026-11-30"
    assert len(first.sources) == 2
    assert first.text.startswith("Pay-as-you-go bills by the second")
    assert not first.text.startswith("#")


def test_intro_before_first_section_is_its_own_chunk() -> None:
    chunks = chunk_document(_fixture("en", "gpu-families"))
    assert chunks[0].section == "GPU instance families"
    assert chunks[0].anchor == "gpu-instance-families"
    assert "generation and GPU" in chunks[0].text


def test_fenced_code_does_not_split_and_duplicate_headings_get_numbered_anchors() -> None:
    chunks = chunk_document(_fixture("en", "memory-sizing"))
    assert [c.anchor for c in chunks] == ["weights", "kv-cache", "code-example", "weights-1"]
    code = chunks[2]
    assert "## weights_bytes" in code.text
    assert code.text.endswith("computes weight memory.")


def test_ids_are_stable_and_hash_changes_only_with_content() -> None:
    doc = _fixture("en", "pricing")
    before = chunk_document(doc)
    assert [c.content_hash for c in chunk_document(doc)] == [c.content_hash for c in before]

    edited = doc.model_copy(update={"body": doc.body.replace("by the second", "per second")})
    after = chunk_document(edited)
    assert [c.chunk_id for c in after] == [c.chunk_id for c in before]
    assert after[0].content_hash != before[0].content_hash
    assert after[1].content_hash == before[1].content_hash

    resourced = doc.model_copy(update={"sources": ("https://example.com/new",)})
    assert all(a.content_hash != b.content_hash for a, b in zip(chunk_document(resourced), before, strict=True))


def test_empty_sections_are_skipped() -> None:
    front = "---\ntitle: T\nlang: en\nsources: [https://e.com]\nlast_verified: 2026-01-01\n---\n"
    text = front + "# T\n\n## Empty\n\n## Full\nx\n"
    chunks = chunk_document(parse_document(text, Path("/d/en/t.md")))
    assert [c.section for c in chunks] == ["Full"]


def test_shipped_documents_have_unique_chunk_ids() -> None:
    chunks = chunk_documents(load_documents())
    ids = [c.chunk_id for c in chunks]
    assert len(ids) == len(set(ids))
    assert all(c.text.strip() for c in chunks)


def test_chunk_is_immutable() -> None:
    chunk = chunk_document(_fixture("zh", "pricing"))[0]
    with pytest.raises((TypeError, ValueError, dataclasses.FrozenInstanceError)):
        chunk.text = "changed"  # type: ignore[misc]


def test_a_section_cites_the_sources_its_markers_point_at() -> None:
    from knowledge.chunking import section_sources

    urls = ("https://a.example", "https://b.example", "https://c.example")
    assert section_sources(urls, "H800 is a Hopper part [3]; A100 has 312 TFLOPS [1, 3].") == [urls[0], urls[2]]
    assert section_sources(urls, "No markers here.") == list(urls)
    assert section_sources(urls, "Out of range [9].") == list(urls)


def test_shipped_guidance_sections_cite_their_own_sources() -> None:
    from knowledge.chunking import chunk_documents
    from knowledge.documents import load_documents

    docs = {(d.slug, d.lang): d for d in load_documents()}
    chunks = chunk_documents(docs.values())
    narrowed = [c for c in chunks if len(c.sources) < len(docs[c.doc, c.lang].sources)]
    # The guidance marks its facts with [n]: most sections cite a subset of their document's sources.
    assert len(narrowed) > len(chunks) / 2
