"""Every name in the catalogs is recognised by the understanding: the data files are the vocabulary."""

from __future__ import annotations

import pytest

from assistant.understanding import understand
from tools import catalog
from tools.models import list_models
from tools.vocabulary import family_names, gpu_labels


@pytest.mark.parametrize("label", sorted(gpu_labels()))
def test_every_gpu_name_and_alias_is_recognised(label: str) -> None:
    slots = understand(f"{label} 的显存多大？")
    wanted = gpu_labels()[label]
    assert any(catalog.get_gpu(m).name == wanted for m in slots.gpu_mentions), (label, slots.gpu_mentions)


@pytest.mark.parametrize("family", family_names())
def test_every_instance_family_is_recognised(family: str) -> None:
    assert family in understand(f"{family} 有哪些实例规格？").families


@pytest.mark.parametrize("name", [m.name for m in list_models()])
def test_every_registry_model_is_recognised(name: str) -> None:
    assert understand(f"{name} 推理部署，8 并发").model == name


@pytest.mark.parametrize(
    ("alias", "name"), [(a, m.name) for m in list_models() for a in m.aliases if any(ch.isdigit() for ch in a)]
)
def test_every_registry_alias_with_a_size_is_recognised(alias: str, name: str) -> None:
    assert understand(f"serve {alias} for 8 users").model == name


@pytest.mark.parametrize("instance_type", [i.instance_type for i in catalog.load_instances()][::7])
def test_instance_types_are_recognised(instance_type: str) -> None:
    assert instance_type in understand(f"{instance_type} 多少钱？").instance_types
