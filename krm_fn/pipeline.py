"""The stages, in order: read -> settings -> index, validate and decide -> plan -> write.

`run_krm` and `run_render` return an Outcome; only cli.py writes it anywhere.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import yaml

from . import constants as C
from . import yamlio
from .config import ConfigError, Settings, resolve_settings
from .index import is_derived, ref_of
from .plan import plan
from .localconfig import (is_function_config, is_kustomization, kustomization_folder, kustomize_config,
                          unlisted_files)
from .reader import InputError, Item, ResourceList, child, read_resource_list, read_stream, scalar
from .report import where
from .results import ResourceRef, Result, Severity, exit_status, sort_results
from .changes import Changes
from .writer import write_resource_list, write_stream


@dataclass(frozen=True)
class Outcome:
    output: str          # what goes to stdout ("" when nothing may be written)
    results: list[Result]
    exit_code: int

    def lines(self) -> list[str]:
        """The stderr lines: every error and warning (info results are in the ResourceList only)."""
        return [r.line() for r in self.results if r.severity is not Severity.INFO]


def _error_outcome(message: str, scope: str = "ResourceList") -> Outcome:
    result = Result(Severity.ERROR, message, scope=scope)
    return Outcome("", [result], 1)


def _ordered(results: list[Result], items: list) -> list[Result]:
    order: dict = {}
    for item in items:
        order.setdefault(ref_of(item), len(order))
    return sort_results(results, order)


def run_krm(data: bytes, environ: Mapping[str, str]) -> Outcome:
    """KRM function mode: a ResourceList in, a ResourceList out."""
    try:
        rl = read_resource_list(data)
    except InputError as exc:
        if not data.strip():  # `kpt fn source DIR | kaito-specdec` where kpt failed: its error is the one
            return _error_outcome(f"{exc} (when a command piped into kaito-specdec failed, its own error above "
                                  "says why)")
        return _error_outcome(str(exc))
    try:
        fc = _function_config(rl)
        settings = resolve_settings(fc, environ)
    except ConfigError as exc:
        results = [Result(Severity.ERROR, str(exc), _function_config_ref(rl), field_path=exc.field)]
        return Outcome(write_resource_list(rl, Changes(), results), results, 1)
    changes, results = plan(rl.items, settings)
    results = _ordered(results + unlisted_warnings(rl.items, changes), rl.items)
    try:
        output = write_resource_list(rl, changes, results)
    except InputError as exc:  # an item the output needs whole cannot be read (an alias bomb, …)
        return _error_outcome(str(exc))
    return Outcome(output, results, exit_status(results, settings.fail_on))


def unlisted_warnings(items: list[Item], changes: Changes) -> list[Result]:
    """kpt on a kustomize folder: a derived ConfigMap's file (new, or written by an earlier run) that the
    folder's kustomization does not list is left out of `kustomize build`; its workload points at nothing."""
    paths = [((data.get("metadata") or {}).get("annotations") or {}).get(C.PATH_ANNOTATION, "")
             for _, data in changes.added]
    paths += [item.file()[0] for item in items if is_derived(item) and item.index not in changes.removed]
    return [Result(Severity.WARNING, f"{kustomization.file()[0]} does not list {name}, a ConfigMap kaito-specdec "
                                     "derived for the workloads there: `kustomize build` would leave it out and "
                                     "they would point at a ConfigMap that does not exist; add it to resources "
                                     "(or run kaito-specdec as a kustomize transformer)", **where(kustomization))
            for kustomization, name in unlisted_files(items, paths)]


def _function_config_ref(rl: ResourceList) -> ResourceRef | None:
    """The functionConfig object (kpt's `function-input` ConfigMap, a policy), for results about it."""
    node = rl.function_config
    if not isinstance(node, yaml.MappingNode):
        return None
    meta = child(node, "metadata")
    ref = ResourceRef(scalar(child(node, "apiVersion")) or "", scalar(child(node, "kind")) or "",
                      scalar(child(meta, "name")) or "", scalar(child(meta, "namespace")) or "")
    return ref if ref.kind else None


def _function_config(rl: ResourceList) -> Any:
    if rl.function_config is None:
        return None
    try:
        return yamlio.construct(rl.function_config)
    except (yaml.YAMLError, RecursionError, TypeError, ValueError) as exc:
        raise ConfigError(f"invalid functionConfig: it cannot be read: {' '.join(str(exc).split())}") from None


def run_render(sources: list[tuple[str, bytes]], fc: Any, environ: Mapping[str, str],
               overrides: Mapping[str, Any]) -> Outcome:
    """The Flux / Argo CD path: plain documents in, a plain `---` stream out (nothing on failure)."""
    try:
        stream = read_stream(sources)
    except InputError as exc:
        message = str(exc)
        text = dict(sources).get(exc.source, b"")
        if b"{{" in text and b"}}" in text:
            message += "; this looks like a Helm template: render the chart with `helm template` and pipe that in"
        result = Result(Severity.ERROR, message, file_path=exc.source, file_line=exc.line, scope="render")
        return Outcome("", [result], 1)
    try:
        # A ResourceList piped in (`kpt fn source | kaito-specdec render -`) brings its own functionConfig.
        if fc is None and stream.function_config is not None:
            fc = yamlio.construct(stream.function_config)
        settings = resolve_settings(fc, environ, overrides)
    except ConfigError as exc:
        return _error_outcome(str(exc), "render")
    except (yaml.YAMLError, RecursionError, TypeError, ValueError) as exc:
        return _error_outcome(f"invalid functionConfig: it cannot be read: {' '.join(str(exc).split())}",
                              "render")
    if not stream.items:
        # An empty render handed to Argo CD with auto-prune deletes everything: never a silent success.
        if [name for name, _ in sources] == ["<stdin>"]:
            return _error_outcome("stdin is empty: no manifests to render (when a command piped into "
                                  "kaito-specdec failed, its own error above says why)", "render")
        where = ", ".join(name for name, _ in sources) or "no files"
        return _error_outcome(f"no Kubernetes objects in the input ({where}); expected manifests", "render")
    changes, results = plan(stream.items, settings)
    left_out = orchestrator_config(stream.items)
    results = _ordered(results + kustomization_warnings(stream.items), stream.items)
    code = exit_status(results, settings.fail_on)
    if code != 0:
        return Outcome("", results, code)
    changes = changes.removing(left_out)  # kustomize configuration is not a manifest: it never reaches the stream
    try:
        output = write_stream(stream, changes)
    except InputError as exc:  # an item the output needs whole cannot be read (an alias bomb, …)
        return _error_outcome(str(exc), "render")
    if not output.strip():
        # Check what is written, not what was read: only configuration, or only retired derived ConfigMaps.
        results.append(Result(Severity.ERROR, f"nothing to write: none of the {len(stream.items)} objects in "
                                              "the input is a manifest for a cluster (kustomize or kpt "
                                              "configuration, local-config objects, derived ConfigMaps no "
                                              "workload uses); an empty stream would make Argo CD prune "
                                              "everything", scope="render"))
        return Outcome("", results, 1)
    return Outcome(output, results, 0)


def orchestrator_config(items: list[Item]) -> set[int]:
    """Indexes of the items `render` leaves out: kustomizations and the files they name (patches, plugin
    configs), KRM function configs."""
    return kustomize_config(items) | {item.index for item in items if is_function_config(item)}


def kustomization_warnings(items: list[Item]) -> list[Result]:
    """`render DIR` of a kustomization renders its files as they are, unbuilt: say so, and what to run."""
    out = []
    for item in items:
        if is_kustomization(item) and not item.kind == "Component":
            folder = kustomization_folder(item)
            out.append(Result(Severity.WARNING, f"{folder} is a kustomization: render does not build it (its "
                                                "patches, generators, transformers and name prefixes are not "
                                                "applied) and leaves its kustomize configuration out; to build "
                                                f"it, run `kustomize build {folder} | kaito-specdec render -`",
                              **where(item)))
    return out


__all__ = ["Outcome", "Settings", "run_krm", "run_render"]
