"""Imports run one way: each package imports only its own modules and the packages to its
left in docs/architecture.md's order, never one beside it or to its right. Read from the
source (every import, a function's own included), so a lazy import cannot hide."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("drivers", "shoe_daemon", "shoe_floor", "hil", "bench")


def layers() -> list[set[str]]:
    """The order as docs/architecture.md draws it: `a <- b, c <- d`, leftmost first."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    drawing = re.search(r"## Which way imports run\n```\n(.+?)\n```", text, re.S)
    assert drawing, "docs/architecture.md has no drawing of the import order"
    return [{name.strip() for name in layer.split(",")}
            for layer in drawing.group(1).split("<-")]


def package(module: str) -> str:
    parts = module.split(".")
    return f"shoe_daemon.{parts[1]}" if parts[0] == "shoe_daemon" and len(parts) > 1 \
        else parts[0]


def short(name: str) -> str:
    return name.removeprefix("shoe_daemon.")


def imports() -> list[tuple[str, str, str]]:
    """(file, its package, the package it imports) for every import inside the house."""
    found = []
    for top in PACKAGES:
        for path in sorted((ROOT / top).rglob("*.py")):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                elif isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                else:
                    continue
                for name in names:
                    if name.split(".")[0] in (*PACKAGES, "tests"):
                        found.append((str(path.relative_to(ROOT)), package(module),
                                      package(name)))
    return found


def test_every_import_runs_to_the_left_of_docs_architecture_order() -> None:
    order = layers()
    rank = {name: i for i, layer in enumerate(order) for name in layer}
    wrong = []
    for path, source, target in imports():
        if target == source or target == "shoe_daemon":  # its own modules; the version
            continue
        a, b = short(source), short(target)
        assert a in rank, f"{source} is not in docs/architecture.md's order"
        assert b in rank, f"{target} is not in docs/architecture.md's order"
        if rank[b] >= rank[a]:
            wrong.append(f"{path}: {a} imports {b}")
    assert wrong == [], "imports against docs/architecture.md's order:\n" + "\n".join(wrong)
