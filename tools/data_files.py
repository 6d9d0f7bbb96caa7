"""Reading the data files under ``tools/data``: validated CSV rows, a fast YAML loader, and the file error.

Every catalog (GPUs, instance types, prices, models, media models, note texts) reads its file through
these helpers, so a bad row fails the same way everywhere: a :class:`DataFileError` naming the file,
the row and the field.
"""

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

_ModelT = TypeVar("_ModelT", bound=BaseModel)


class DataFileError(ValueError):
    """A catalog data file is malformed; the message names the file and the row. Fix the data file."""


def error_text(exc: ValidationError) -> str:
    """Return a validation error as one line: ``field: message; field: message``."""
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"])
        parts.append(f"{loc}: {err['msg']}" if loc else err["msg"])
    return "; ".join(parts)


def read_csv_rows(path: Path, model: type[_ModelT], key_field: str) -> tuple[_ModelT, ...]:
    """Read a CSV data file and validate every row with ``model``.

    Empty cells become ``None``. Row numbers in errors are file line numbers (the header is line 1).

    Args:
        path: the CSV file.
        model: pydantic model for one row (``extra="forbid"`` catches unknown columns).
        key_field: column shown in error messages to identify the row, e.g. ``instance_type``.

    Raises:
        DataFileError: a row does not validate; names the file, the line and the row key.
    """
    import csv

    rows: list[_ModelT] = []
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        for raw in reader:
            line = reader.line_num
            if None in raw:
                raise DataFileError(f"{path.name} row {line}: more cells than header columns")
            cells = {k: (v.strip() if v.strip() else None) for k, v in raw.items()}
            try:
                rows.append(model.model_validate(cells))
            except ValidationError as exc:
                key = cells.get(key_field)
                where = f"{path.name} row {line} ({key_field}={key!r})"
                raise DataFileError(f"{where}: {error_text(exc)}") from exc
    return tuple(rows)


def yaml_loader() -> Any:
    """PyYAML's libyaml parser where it has one (its wheels do): ~20x faster than the pure-Python one.

    PyYAML is imported here, not at module import: a cold start that reads the catalogs from
    :mod:`tools.data_cache` never parses YAML.
    """
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def yaml_item_lines(text: str, key: str) -> list[int]:
    """1-based line numbers of the items of the top-level sequence ``key`` (for error messages)."""
    import yaml

    root = yaml.compose(text, Loader=yaml_loader())
    if not isinstance(root, yaml.MappingNode):
        return []
    for key_node, value_node in root.value:
        if key_node.value == key and isinstance(value_node, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value_node.value]
    return []
