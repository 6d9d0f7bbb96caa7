"""Tables and lists written to a pipe without rich are, character for character, what rich writes there."""

from __future__ import annotations

import io
import random

import pytest
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from assistant.toolbox import plan_gpu_deployment
from ui import plain_text, tables

_WORDS = ["a", "GiB", "ecs.gn7e-c16g1.16xlarge", "—", "¥138.97/h", "(x0.76", "https://example.com/" + "x" * 230, "…"]


def _rich(render: object, width: int = plain_text.WIDTH) -> list[str]:
    out = io.StringIO()
    Console(file=out, highlight=False, emoji=False, width=width).print(render)  # a file: not a terminal
    return out.getvalue().splitlines()


def _sentence(rng: random.Random, words: int) -> str:
    return "".join(rng.choice(_WORDS) + rng.choice([" ", " ", "  ", ", "]) for _ in range(words)).strip()


def test_every_extra_narrow_character_is_one_cell_for_rich() -> None:
    assert all(cell_len(ch) == 1 for ch in plain_text.NARROW_EXTRA)


@pytest.mark.parametrize("seed", range(40))
def test_a_line_wraps_as_rich_wraps_it(seed: int) -> None:
    rng = random.Random(seed)
    width = rng.choice([10, 40, 80, plain_text.WIDTH])
    line = ("  - " if seed % 2 else "") + _sentence(rng, rng.randint(1, 60))
    assert plain_text.text_lines([line], width) == _rich(Text(line), width)


@pytest.mark.parametrize("seed", range(40))
def test_a_table_is_laid_out_as_rich_lays_it_out(seed: int) -> None:
    rng = random.Random(seed)
    columns = [(f"col {i}" * rng.randint(0, 2), rng.choice(["left", "right"])) for i in range(rng.randint(1, 7))]
    rows = [[_sentence(rng, rng.randint(0, 3))[:22].strip() for _ in columns] for _ in range(rng.randint(0, 6))]
    title = _sentence(rng, rng.randint(0, 12))
    mine = plain_text.table_lines(title, columns, rows)
    table = Table(title=Text(title) if title else None)
    for header, justify in columns:
        table.add_column(header, justify=justify)  # type: ignore[arg-type]
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    assert mine == _rich(table)


@pytest.mark.parametrize(
    ("cells", "why"),
    [
        (["宽字符"], "two cells wide"),
        (["tab\there"], "a control character"),
        (["x" * 250], "too wide for the line"),
        ([" padded "], "rich strips the padding"),
    ],
)
def test_what_rich_would_lay_out_otherwise_is_left_to_rich(cells: list[str], why: str) -> None:
    assert plain_text.table_lines("t", [("h", "left")], [cells]) is None, why


@pytest.mark.parametrize("env", [{}, {"FORCE_COLOR": "1"}, {"TTY_COMPATIBLE": "1"}, {"TTY_COMPATIBLE": "0"}])
def test_plain_output_is_where_rich_sees_no_terminal(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    out = io.StringIO()
    assert plain_text.writes_plain(out) == (not Console(file=out).is_terminal)


@pytest.mark.parametrize(
    "question",
    [
        {"model": "qwen2.5-72b", "quant": "awq-int4", "context": 32768, "concurrency": 20},
        {"model": "Llama-3.1-405B-Instruct", "precision": "bf16"},
        {"model": "qwen2.5-7b", "task": "lora", "train_tokens": 10_000_000},
    ],
)
def test_a_plan_prints_the_same_with_and_without_rich(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], question: dict[str, object]
) -> None:
    plan = plan_gpu_deployment(**question)  # type: ignore[arg-type]
    tables.print_plan(plan)
    plain = capsys.readouterr().out
    monkeypatch.setattr(plain_text, "writes_plain", lambda stream=None: False)
    tables.print_plan(plan)
    assert plain == capsys.readouterr().out
    assert "┏" in plain and plain.count("\n") > 10
