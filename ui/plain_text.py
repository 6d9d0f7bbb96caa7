"""The core commands' tables and lists as rich prints them to a pipe or file, without importing rich.

Written to a terminal, a table is rich's (styles, the terminal's width). Written anywhere else, rich prints
no style at all, only its box-drawing layout at the width the commands set (200 cells); importing rich for
that was an eighth of a cold ``gpu-advisor plan``. This module lays out the same lines for the simple
content the commands print: one-line cells that fit the width, and text whose every character rich
counts one cell wide. Anything else (a character of another width, a control character, a table too wide
for the line) gets ``None`` and the caller prints with rich as before. ``tests/test_plain_text.py``
compares both renderings character for character.
"""

from __future__ import annotations

import builtins
import os
import re
import sys
from collections.abc import Sequence

WIDTH = 200
"""Cells per line of output that is not a terminal (as ``ui.tables`` gives rich)."""

# Characters rich measures one cell wide without its width table: its own fast-path ranges (printable
# Latin, Greek/Cyrillic, box drawing), plus punctuation the commands print; a test checks each with rich.
# (Compiling them as one regex character class would cost a cold start more than checking them here.)
_RANGES = ((0xA0, 0xAC), (0xAE, 0x2FF), (0x370, 0x482), (0x2500, 0x25FC))
NARROW_EXTRA = frozenset("—–…’‘“”→←≥≤€")
_WORD = re.compile(r"\s*\S+\s*")
_TRAILING_SPACE = re.compile(r"\s+$")


def writes_plain(stream: object = None) -> bool:
    """Whether rich would treat ``stream`` (default: standard output) as a plain, UTF-8, non-terminal file."""
    stream = sys.stdout if stream is None else stream
    if sys.platform == "win32" or hasattr(builtins, "get_ipython"):
        return False  # rich's legacy Windows console and Jupyter output are not plain text
    if not (getattr(stream, "encoding", None) or "utf-8").lower().startswith("utf"):
        return False  # rich swaps the box for ASCII
    compatible = os.environ.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "0"
    if os.environ.get("FORCE_COLOR") is not None:
        return os.environ["FORCE_COLOR"] == ""
    isatty = getattr(stream, "isatty", None)
    try:
        return isatty is None or not isatty()
    except ValueError:  # closed: rich says "not a terminal" too
        return True


def _narrow(text: str) -> bool:
    if text.isascii():
        return text.isprintable()
    return all(
        " " <= ch <= "~" or ch in NARROW_EXTRA or any(low <= ord(ch) <= high for low, high in _RANGES) for ch in text
    )


def wrap(text: str, width: int = WIDTH) -> list[str] | None:
    """Lines of one line of ``text`` as rich wraps it at ``width`` (word wrap, long words folded)."""
    if not _narrow(text):
        return None
    breaks: list[int] = []
    offset = 0
    for match in _WORD.finditer(text):
        start, word = match.start(), match.group()
        length = len(word.rstrip())
        if width - offset >= length:
            offset += len(word)
        elif length > width:  # folded across lines, cut every `width` cells
            pieces = [word[i : i + width] for i in range(0, len(word), width)]
            for i, piece in enumerate(pieces):
                if start:
                    breaks.append(start)
                if i == len(pieces) - 1:
                    offset = len(piece)
                else:
                    start += len(piece)
        elif offset and start:
            breaks.append(start)
            offset = len(word)
    lines = [text[a:b] for a, b in zip([0, *breaks], [*breaks, len(text)], strict=True)]
    return [_fit(line, width) for line in lines]


def _fit(line: str, width: int) -> str:
    # rich strips the whitespace that runs past the width, then cuts what still does.
    if len(line) > width and (space := _TRAILING_SPACE.search(line)):
        line = line[: len(line) - min(len(space.group()), len(line) - width)]
    return line[:width]


def text_lines(lines: Sequence[str], width: int = WIDTH) -> list[str] | None:
    """Lines of text (no newline inside one) as rich prints them, or None when rich must."""
    out: list[str] = []
    for line in lines:
        wrapped = None if "\n" in line else wrap(line, width)
        if wrapped is None:
            return None
        out.extend(wrapped)
    return out


def table_lines(
    title: str, columns: Sequence[tuple[str, str]], rows: Sequence[Sequence[str]], width: int = WIDTH
) -> list[str] | None:
    """Lines of a rich ``Table(title=...)`` (heavy-head box) of one-line cells, or None when rich must.

    Args:
        title: centred above the table, wrapped to its width.
        columns: (header, "left" | "right") of each column.
        rows: the cells of each row, as many as columns.
        width: cells per line of output.
    """
    cells = [[header for header, _ in columns], *rows]
    if any(not _narrow(cell) or cell != cell.strip() or "\n" in cell for row in cells for cell in row):
        return None  # rich would strip, wrap or measure these its own way
    widths = [max(len(row[i]) for row in cells) + 2 for i in range(len(columns))]
    table_width = sum(widths) + len(widths) + 1
    if table_width > width:
        return None  # rich shrinks columns and wraps cells
    titled = wrap(title, table_width) if title else []
    if titled is None:
        return None
    out = [_centre(line, table_width) for line in titled]
    out.append("┏" + "┳".join("━" * w for w in widths) + "┓")
    out.append(_row(cells[0], columns, widths, "┃"))
    out.append("┡" + "╇".join("━" * w for w in widths) + "┩")
    out.extend(_row(row, columns, widths, "│") for row in rows)
    out.append("└" + "┴".join("─" * w for w in widths) + "┘")
    return out


def _centre(line: str, width: int) -> str:
    line = line.rstrip()
    left = (width - len(line)) // 2
    return " " * left + line + " " * (width - len(line) - left)


def _row(cells: Sequence[str], columns: Sequence[tuple[str, str]], widths: Sequence[int], edge: str) -> str:
    shown = (
        " " + (cell.rjust(w - 2) if justify == "right" else cell.ljust(w - 2)) + " "
        for cell, (_, justify), w in zip(cells, columns, widths, strict=True)
    )
    return edge + edge.join(shown) + edge
