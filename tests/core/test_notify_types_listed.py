"""Every notification type an area passes to the core's notify functions is in the catalogue, so that it has
a label, a category and default channels (an unlisted type would be in-app only and missing from the
preferences screen). Read from the source: the constant `type=` of notify/notify_squad calls and the
`"type"` keys of the dicts given to notify_many."""
import ast
from pathlib import Path

from chalicelib.core.notify_catalogue import type_ids

ROOT = Path(__file__).resolve().parents[2] / "chalicelib"
CORE_NOTIFY = {"notify", "notify_squad", "notify_many"}


def _name(func) -> str:
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _types_used() -> dict[str, str]:
    used = {}
    for path in ROOT.rglob("*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and _name(node.func) in CORE_NOTIFY):
                continue
            for kw in node.keywords:
                if kw.arg == "type" and isinstance(kw.value, ast.Constant):
                    used[kw.value.value] = f"{path.relative_to(ROOT)}:{node.lineno}"
            for sub in ast.walk(node):
                if isinstance(sub, ast.Dict):
                    for key, value in zip(sub.keys, sub.values):
                        if isinstance(key, ast.Constant) and key.value == "type" and isinstance(value, ast.Constant):
                            used[value.value] = f"{path.relative_to(ROOT)}:{sub.lineno}"
    return used


def test_the_scan_finds_the_calls():
    used = _types_used()
    assert {"task_assigned", "todo_assigned", "sla_breach", "research_brief_ready"} <= set(used)


def test_every_notified_type_is_in_the_catalogue():
    used = _types_used()
    missing = {t: where for t, where in used.items() if t not in set(type_ids())}
    assert not missing, f"notification types missing from core/notify_catalogue.py: {missing}"
