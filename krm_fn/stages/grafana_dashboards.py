"""The opt-in Grafana dashboard ConfigMaps (docs/monitoring.md, "Dashboard") placed, regenerated and retired like
the PrometheusRule: one per namespace whose rule this run keeps or adds (the dashboard reads its records, and the
setting turns the rule on), written after the rule; dropped when the namespace has no rule any more or the setting
is off.
"""

from typing import Any

from ..domain import constants as C
from ..domain import dashboards
from ..domain.derived import regeneration, with_location
from ..model.changes import Plan, Step, step
from ..model.config import Settings
from ..model.index import Index, is_configmap, is_derived_rule
from ..model.report import about
from ..text import krm
from ..text.edits import Added
from ..text.items import Item, ItemError
from ..text.patch import Op
from ..text.results import Result, finding


def is_dashboard(item: Item) -> bool:
    return is_configmap(item) and item.annotation(C.DASHBOARD_ANNOTATION) == "true"


def _rule_namespaces(index: Index, plan: Plan) -> dict[str, tuple[int, dict[str, str]]]:
    """Namespace -> (the item its dashboard is written after, that item's annotations, for the file): the derived
    PrometheusRules the plan keeps or adds."""
    out: dict[str, tuple[int, dict[str, str]]] = {}
    for item in index.items:
        if is_derived_rule(item) and item.index not in index.config and item.index not in plan.removed:
            out.setdefault(item.namespace, (item.index, item.ann))
    for added in plan.added:
        data = added.data
        meta = data.get("metadata") if isinstance(data, dict) else None
        if not isinstance(meta, dict) or data.get("kind") != C.PROMETHEUS_RULE_KIND \
                or (meta.get("annotations") or {}).get(C.DERIVED_ANNOTATION) != "true":
            continue
        ann = {k: v for k, v in (meta.get("annotations") or {}).items() if isinstance(v, str)}
        out.setdefault(meta.get("namespace") or "", (added.after, ann))
    return out


def _taken(index: Index, plan: Plan) -> set[str]:
    """The files in use: the items', and those the earlier stages gave the items they add."""
    taken = {item.file()[0] for item in index.items if item.file()[0]}
    for added in plan.added:
        meta = added.data.get("metadata") if isinstance(added.data, dict) else None
        path = ((meta or {}).get("annotations") or {}).get(krm.PATH_ANNOTATION) if isinstance(meta, dict) else None
        if isinstance(path, str) and path:
            taken.add(path)
    return taken


def grafana_dashboards(index: Index, settings: Settings, plan: Plan) -> Step:
    """The dashboards the setting asks for: kept, regenerated, added after their namespace's rule; the others
    dropped."""
    found: dict[str, list[Item]] = {}
    others: dict[tuple[str, str], Item] = {}   # ConfigMaps that are not ours, by namespace and name
    for item in filter(is_configmap, index.items):
        if item.index in index.config:
            continue
        if is_dashboard(item):
            found.setdefault(item.namespace, []).append(item)
        else:
            others.setdefault((item.namespace, item.name), item)
    want = _rule_namespaces(index, plan) if settings.grafana_dashboards else {}
    if not want and not found:
        return step()
    out: list[Result] = []
    ops: dict[int, list[Op]] = {}
    added: list[Added] = []
    removed: list[int] = []
    taken = _taken(index, plan)
    for namespace in sorted(want):
        after, ann = want[namespace]
        cm = dashboards.configmap(namespace)
        name = cm["metadata"]["name"]
        mine = found.pop(namespace, [])
        same = [item for item in mine if item.name == name]
        other = others.get((namespace, name))
        if other is not None:
            out.append(about(finding("SD819.taken", name=name), other))
        elif same:
            out += _keep(same[0], cm, ops)
        else:
            added.append(Added(after, with_location(cm, ann, taken)))
            said = finding("SD816", name=name, title=dashboards.title(namespace), uid=dashboards.uid(namespace))
            out.append(about(said, index.items[after], change=True))
        for item in mine:
            if same and item is same[0]:
                continue
            removed.append(item.index)
            out.append(about(finding("SD817.replaced", name=name), item, change=True))
    for items in found.values():
        for item in items:
            removed.append(item.index)
            dropped = finding("SD817.no-workload") if settings.grafana_dashboards else finding("SD817.setting-off")
            out.append(about(dropped, item, change=True))
    return step(out, ops=ops, added=added, removed=removed)


def _keep(item: Item, cm: dict[str, Any], ops: dict[int, list[Op]]) -> list[Result]:
    """The dashboard in the input, as it is, or regenerated in its file when it differs (edited by hand)."""
    name = cm["metadata"]["name"]
    try:
        data = item.data()
    except ItemError as exc:
        return [about(finding("SD819.unreadable", name=name, reason=exc), item)]
    regenerated = regeneration(data, cm)
    if regenerated is None:
        return []
    ops[item.index] = regenerated
    return [about(finding("SD818", name=name), item, change=True)]
