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


# Types on the preferences screen that no area sends by name, each with why it stays listed.
LISTED_UNSENT = {
    "squad_broadcast": "core notify_squad's type: document 3's internal operation that notifies a squad's members "
                       "and posts to its channel; the squad configuration routes it",
}


def _named_in_code() -> set[str]:
    """Every string constant of chalicelib's code outside the catalogue (a type sent through a variable, as leave's
    and proposals' decisions, is still named where the variable is set)."""
    names = set()
    for path in ROOT.rglob("*.py"):
        if path.name == "notify_catalogue.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                names.add(node.value)
    return names


def test_every_listed_type_is_sent():
    """A type on the preferences screen is a promise: a user who turns on e-mail for it expects mail. Session 19
    found 14 listed types nothing sent (task_status_changed, deal_assigned, invoice_overdue, ...)."""
    unsent = set(type_ids()) - _named_in_code() - set(LISTED_UNSENT)
    assert not unsent, f"listed in core/notify_catalogue.py but sent by nothing: {sorted(unsent)}"
    assert set(LISTED_UNSENT) <= set(type_ids())
