"""An alias (`sqlalchemy.orm.aliased`) is built once per process: at module level or in a function cached with
`functools.cache`. Built on every call, an alias proxies each column of its table again on first use (61
Column objects on a page-list request), which cost lists several times the primary-key floor (area contract,
"Statements built once")."""
import ast
from pathlib import Path

import chalicelib

CACHES = {"cache", "lru_cache"}


def _decorator_name(node) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    return target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")


def aliases_built_per_call(source: str, name: str) -> list[str]:
    """`name:line` of each `aliased(...)` call inside a function that neither it nor an enclosing one caches."""
    found = []

    def visit(node, in_function: bool, cached: bool):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, True, cached or any(_decorator_name(d) in CACHES for d in child.decorator_list))
                continue
            if isinstance(child, ast.Call) and _decorator_name(child) == "aliased" and in_function and not cached:
                found.append(f"{name}:{child.lineno}")
            visit(child, in_function, cached)

    visit(ast.parse(source), False, False)
    return found


def test_no_alias_is_built_per_call():
    root = Path(chalicelib.__file__).parent
    offenders = []
    for path in sorted(root.rglob("*.py")):
        offenders += aliases_built_per_call(path.read_text(), str(path.relative_to(root.parent)))
    assert offenders == [], "aliased() inside an uncached function (build it once: module level or @cache)"


def test_the_guard_finds_an_alias_built_per_call():
    per_call = "def f():\n    a = aliased(User)\n"
    cached = "@cache\ndef f():\n    def g():\n        return aliased(User)\n    return g()\n"
    module = "A = aliased(User)\n"
    method = "class C:\n    def m(self):\n        return orm.aliased(User)\n"
    assert aliases_built_per_call(per_call, "x") == ["x:2"]
    assert aliases_built_per_call(cached, "x") == aliases_built_per_call(module, "x") == []
    assert aliases_built_per_call(method, "x") == ["x:3"]
