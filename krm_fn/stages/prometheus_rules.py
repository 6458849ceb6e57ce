"""The opt-in PrometheusRule placed, regenerated and retired like a derived ConfigMap (docs/monitoring.md: which
workloads it watches, where it is written, when it is replaced or dropped). Every workload of a watched kind
in the namespace, watched or not, is a neighbour whose pods are left out of a pattern that would take them
(monitoring.swallowed).
"""

from typing import Any

from ..domain import constants as C
from ..domain import dashboards, kinds, monitoring
from ..text import krm
from ..text.patch import Op
from ..domain.derived import regeneration, with_location
from ..domain.plain_kinds import known_kind
from ..model.changes import Plan, Step, step
from ..domain import kaito_releases
from ..model.config import Settings
from ..model.decisions import Inject, NotVisible, Override, Speculates
from ..model.index import Index, Workload, is_derived_rule, is_rule
from ..model.report import about
from ..text.quoting import q
from ..text.edits import Added
from ..text.items import Item, ItemError
from ..text.results import Result, finding


def _parents(index: Index, settings: Settings) -> dict[int, Workload]:
    """Item index of a child workload -> the parent in the input whose controller creates it."""
    out: dict[int, Workload] = {}
    for w in index.workloads:
        if w.spec.kind == "InferenceSet":
            out.update((c.item.index, w) for c in index.children(w, "Workspace"))
        elif w.spec.kind == "MultiRoleInference" and settings.mri_controller:
            out.update((c.item.index, w) for c in index.children(w, "InferenceSet"))
    return out


def _top(w: Workload, parents: dict[int, Workload]) -> Workload:
    seen = {w.item.index}
    while w.item.index in parents and parents[w.item.index].item.index not in seen:
        w = parents[w.item.index]
        seen.add(w.item.index)
    return w


def _monitored(w: Workload, settings: Settings) -> monitoring.Monitored:
    # KAITO before v0.8.0 ran a single-node Workspace as a Deployment; from v0.8.0 on it makes none.
    old = w.spec.kind == "Workspace" and settings.kaito_version < kaito_releases.WORKSPACE_STATEFULSET
    return monitoring.Monitored(w.spec.kind, w.name, monitoring.KAITO_DEPLOYMENT if old else "")


def _kserve_mode(item: Item) -> str:
    mode = item.annotation(C.KSERVE_DEPLOYMENT_MODE_ANNOTATION)
    if mode in ("Standard", "RawDeployment"):
        return monitoring.KSERVE_STANDARD
    if mode in ("Knative", "Serverless"):
        return monitoring.KSERVE_KNATIVE
    return ""   # the cluster's default (inferenceservice-config): either


def _plain(item: Item, data: Any = None) -> monitoring.Monitored:
    if item.kind == "LLMInferenceService":
        return monitoring.Monitored(item.kind, item.name, "", parts=_llm_isvc_parts(data))
    if item.kind != "InferenceService":
        return monitoring.Monitored(item.kind, item.name, "")
    predictor, canaries = _kserve_predictor_names(data)
    return monitoring.Monitored(item.kind, item.name, _kserve_mode(item), predictor, canaries)


def _llm_isvc_parts(data: Any) -> tuple[str, ...]:
    """The workloads KServe makes of an LLMInferenceService (monitoring.LLMISVC_*): a `worker` (even `{}`)
    makes the main or the prefill side multi-node; only YAML null leaves it out, as a nil pointer."""
    single = kinds.get(data, ("spec", "worker")) is None
    main = monitoring.LLMISVC_MAIN if single else monitoring.LLMISVC_MAIN_MULTI_NODE
    if not isinstance(kinds.get(data, ("spec", "prefill")), dict):
        return (main,)
    single = kinds.get(data, ("spec", "prefill", "worker")) is None
    return main, monitoring.LLMISVC_PREFILL if single else monitoring.LLMISVC_PREFILL_MULTI_NODE


def _kserve_data(item: Item) -> Any:
    """A KServe InferenceService's or LLMInferenceService's data, for its predictor names or its workloads
    (None for other kinds, or data YAML cannot hold)."""
    if item.kind not in ("InferenceService", "LLMInferenceService"):
        return None
    try:
        return item.data()
    except ItemError:
        return None


def _kserve_predictor_names(data: Any) -> tuple[str, tuple[str, ...]]:
    """`spec.predictor.name` and each `spec.canary[].predictor.name` (KServe v0.20: they name the
    predictor's and the canaries' Deployments, monitoring.py); "" and () where not set."""
    name = kinds.get(data, ("spec", "predictor", "name"))
    canary = kinds.get(data, ("spec", "canary"))
    named = [kinds.get(entry, ("predictor", "name")) for entry in canary] if isinstance(canary, list) else []
    canaries = tuple(dict.fromkeys(n for n in named if isinstance(n, str) and n))
    return (name if isinstance(name, str) else ""), canaries


# A workload a rule watches: its item (where the rule is written, what results name) and its pods.
Watched = tuple[Item, monitoring.Monitored]


# A rule the namespace should have: the object, the item it is written after (its first workload's), the
# workloads it watches.
Wanted = tuple[dict[str, Any], Item, list[Watched]]


def wanted(index: Index, settings: Settings, plan: Plan) -> tuple[dict[str, list[Wanted]], list[Result]]:
    """Namespace -> the rules it should have (one, or the parts of a rule too big for one object:
    monitoring.prometheus_rules), and the results about what it cannot watch."""
    parents = _parents(index, settings)
    watched: dict[str, dict[int, Watched]] = {}
    out: list[Result] = []
    # A ConfigMap not in the input: KAITO (from v0.13.0, which reads the annotation) injects or the
    # ConfigMap overrides; speculative decoding runs either way.
    running = (Inject, Override, NotVisible) if settings.knows_annotation else (Inject, Override)
    for d in plan.decisions:
        if isinstance(d, running):
            top = _top(d.workload, parents)
            watched.setdefault(top.namespace, {})[top.item.index] = (top.item, _monitored(top, settings))
        elif isinstance(d, Speculates):
            item = d.workload.item
            found = _plain(item, d.workload.data)
            why = monitoring.unmonitored(found.kind, found.name, found.variant, found.predictor)
            if why and found.variant == "":
                found = monitoring.Monitored(found.kind, found.name, monitoring.KSERVE_STANDARD, found.predictor,
                                             found.canaries)
                out.append(about(finding("SD811.standard-mode-only", kind=found.kind, name=found.name, why=why), item))
            elif why:
                out.append(about(finding("SD811.unwatched", kind=found.kind, name=found.name, why=why), item))
                continue
            # `spec.baseRefs` names configs KServe merges into the spec before it makes the workloads
            # (pkg/controller/v1alpha2/llmisvc/controller.go: `llmSvc.Spec = baseCfg.Spec`).
            if found.kind == "LLMInferenceService" and kinds.get(d.workload.data, ("spec", "baseRefs")):
                made = ", ".join(monitoring.child_name(found.name, part) for part in found.parts)
                out.append(about(finding("SD811.base-refs", "spec.baseRefs", name=found.name, made=made), item))
            watched.setdefault(item.namespace, {})[item.index] = (item, found)
    # Every top-level workload of each namespace (KAITO's and the plain kinds', watched or not), so that
    # one whose pods another's pattern would match is left out of it (monitoring.swallowed).
    neighbours: dict[str, list[monitoring.Monitored]] = {}
    for w in index.workloads:
        if w.namespace in watched and w.item.index not in parents:
            neighbours.setdefault(w.namespace, []).append(_monitored(w, settings))
    for item in index.items:
        if item.namespace in watched and known_kind(item.kind) and item.is_mapping and item.name \
                and item.index not in index.config and item.annotation(krm.LOCAL_CONFIG_ANNOTATION) != "true":
            neighbours.setdefault(item.namespace, []).append(_plain(item, _kserve_data(item)))
    rules: dict[str, list[Wanted]] = {}
    for namespace, by_index in watched.items():
        ws = [by_index[i] for i in sorted(by_index)]
        around = neighbours.get(namespace, ())
        more = dashboards.records(namespace, [m for _, m in ws], neighbours=around) \
            if settings.grafana_dashboards else None
        for rule in monitoring.prometheus_rules(namespace, [m for _, m in ws], settings.min_acceptance_rate,
                                                neighbours=around, more=more):
            mine = _watched_by(rule, ws)
            rules.setdefault(namespace, []).append((rule, mine[0][0], mine))
            if not namespace:
                out.append(about(finding("SD810", workloads=_listed(mine), name=rule["metadata"]["name"]), mine[0][0]))
    return rules, out


def _watched_by(rule: dict[str, Any], ws: list[Watched]) -> list[Watched]:
    """The workloads of `ws` that the rule (or part) has records of, in their order."""
    recorded = {(r["labels"][monitoring.KIND_LABEL], r["labels"][monitoring.WORKLOAD_LABEL])
                for g in rule["spec"]["groups"] for r in g["rules"] if "record" in r}
    return [w for w in ws if (w[1].kind, w[1].name) in recorded]


def _part(data: Any, namespace: str) -> str | None:
    """The bits of the part a rule is (its group `kaito-specdec.<namespace>.<bits>`; "" for a whole rule), None
    for a rule that cannot be read or is neither."""
    try:
        name = data["spec"]["groups"][0]["name"]
    except (KeyError, IndexError, TypeError):
        return None
    whole = f"kaito-specdec.{namespace}" if namespace else "kaito-specdec"
    bits = name[len(whole) + 1:] if isinstance(name, str) and name.startswith(whole + ".") else None
    if name == whole:
        return ""
    return bits if bits and set(bits) <= {"0", "1"} else None


def _successor(item: Item, want: list[Wanted]) -> str:
    """The name of the wanted rule that takes over from a derived one dropped in its namespace: the part whose
    bits extend the old one's, or that the old one's extend (a split or a join), else the first."""
    try:
        old = _part(item.data(), item.namespace)
    except ItemError:
        old = None
    for rule, _, _ in want:
        new = _part(rule, item.namespace)
        if old is not None and new is not None and (new.startswith(old) or old.startswith(new)):
            return str(rule["metadata"]["name"])
    return str(want[0][0]["metadata"]["name"])


def _listed(ws: list[Watched]) -> str:
    """The workloads a rule watches, in a few words: the first two by kind and name, then how many more."""
    named = ", ".join(f"{m.kind} {q(m.name)}" for _, m in ws[:2])
    return named if len(ws) <= 2 else f"{named} and {len(ws) - 2} more"


def prometheus_rules(index: Index, settings: Settings, plan: Plan) -> Step:
    """The rules the setting asks for: kept, regenerated, added after their first workload; the others dropped."""
    found: dict[str, list[Item]] = {}
    others: dict[tuple[str, str], Item] = {}   # PrometheusRules that are not ours, by namespace and name
    for item in filter(is_rule, index.items):
        if not is_derived_rule(item):
            others.setdefault((item.namespace, item.name), item)
        elif item.index not in index.config:
            found.setdefault(item.namespace, []).append(item)
    want, out = wanted(index, settings, plan) if settings.prometheus_rules else ({}, [])
    if not want and not found:
        return step(out)
    ops: dict[int, list[Op]] = {}
    added: list[Added] = []
    removed: list[int] = []
    taken = {item.file()[0] for item in index.items if item.file()[0]}
    for namespace, rules in want.items():
        mine = found.pop(namespace, [])
        kept: set[int] = set()
        for rule, first, ws in rules:
            name = rule["metadata"]["name"]
            same = [item for item in mine if item.name == name]
            other = others.get((namespace, name))
            if other is not None:
                out.append(about(finding("SD806", name=name), other))
            elif same:
                kept.add(same[0].index)
                out += _keep(same[0], rule, ops)
            else:
                added.append(Added(first.index, with_location(rule, first.ann, taken)))
                added_rule = finding("SD801", name=name, workloads=_listed(ws),
                                     not_drafting_for=monitoring.NOT_DRAFTING_FOR, alert_for=monitoring.ALERT_FOR,
                                     threshold=monitoring.number(settings.min_acceptance_rate))
                out.append(about(added_rule, first, change=True))
        for item in mine:
            if item.index not in kept:
                removed.append(item.index)
                out.append(about(finding("SD802", name=_successor(item, rules)), item, change=True))
    for items in found.values():
        for item in items:
            removed.append(item.index)
            dropped = finding("SD803") if settings.prometheus_rules else finding("SD804")
            out.append(about(dropped, item, change=True))
    return step(out, ops=ops, added=added, removed=removed)


def _keep(item: Item, rule: dict[str, Any], ops: dict[int, list[Op]]) -> list[Result]:
    """The rule in the input, as it is, or regenerated in its file when it differs (edited by hand)."""
    name = rule["metadata"]["name"]
    try:
        data = item.data()
    except ItemError as exc:
        return [about(finding("SD807", name=name, reason=exc), item)]
    regenerated = regeneration(data, rule)
    if regenerated is None:
        return []
    ops[item.index] = regenerated
    return [about(finding("SD805", name=name), item, change=True)]
