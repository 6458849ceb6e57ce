"""The run, in order: read -> settings -> plan -> write.

`run_krm` and `run_render` return an Outcome; only cli.py writes it anywhere. The findings reported here
have their homes below (streams, config; the plan's in its stages); this module only puts them in order.
"""

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

import yaml

from .domain.localconfig import is_function_config, kustomize_config
from .model import policies
from .model.config import ConfigError, Settings, resolve_settings, unreadable
from .model.report import about
from .model.origins import Affixes, Patch, Source, local_paths, place
from .model.report import STDIN
from .plan import plan_all
from .stages import placement
from .text import streams, yamlio
from .text.edits import Changes
from .text.reader import read_resource_list, read_stream
from .text.items import InputError, Item, ResourceList, Stream
from .text.tree import child, scalar
from .text.results import ResourceRef, Result, Severity, exit_status, finding, sort_results
from .text.writer import write_resource_list, write_stream


class Summary(NamedTuple):
    """What the last line on stderr sums up besides the results: the files and objects read, and the
    workloads that run speculative decoding by kind of config (plan.enabled_by_config)."""
    files: int
    objects: int
    enabled: tuple[tuple[str, int], ...] = ()
    kpt: bool = False    # KRM mode, the items read by kpt from a package: kpt prints the results itself


class Outcome(NamedTuple):
    output: str          # what goes to stdout ("" when nothing may be written)
    results: list[Result]
    exit_code: int
    summary: Summary | None = None


_SEVERITY_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


def settings_notes(settings: Settings, resource: ResourceRef | None = None,
                   scope: str = "ResourceList") -> list[Result]:
    """The warnings about the settings themselves (an old kaitoVersion, SD048), once a run, unless disabled;
    `resource`: the functionConfig they were read from (KRM mode), as the settings' errors name it."""
    return [n._replace(resource=resource, scope=scope) for n in settings.notes if n.id not in settings.disable]


def refused(results: list[Result], output: str = "", summary: Summary | None = None) -> Outcome:
    """A run stopped by `results`: 1, or 2 when one of them means the run could not judge (the catalogue's
    could_not_judge: a path it cannot read, a bad setting), never 0."""
    return Outcome(output, results, max(exit_status(results), 1), summary)


def _error_outcome(result: Result) -> Outcome:
    return refused([result])


def _ordered(results: list[Result], items: list[Item]) -> list[Result]:
    """The results by resource in input order (sort_results): a resource where its first item is, one no
    item is after all. Only the resources the results name are looked for, compared as plain tuples: a
    ResourceRef built and hashed per item was 1-2 % of a 1 000-object run."""
    wanted = {(r.resource.api_version, r.resource.kind, r.resource.name, r.resource.namespace): r.resource
              for r in results if r.resource is not None}
    order: dict[ResourceRef, int] = {}
    for position, item in enumerate(items if wanted else ()):
        ref = wanted.get((item.api_version, item.kind, item.name, item.namespace))
        if ref is not None and ref not in order:
            order[ref] = position
            if len(order) == len(wanted):
                break
    for ref in wanted.values():
        order.setdefault(ref, len(items))
    return sort_results(results, order)


def run_krm(data: bytes, environ: Mapping[str, str]) -> Outcome:
    """KRM function mode: a ResourceList in, a ResourceList out."""
    try:
        rl = read_resource_list(data)
    except InputError as exc:
        if not data.strip():  # `kpt fn source DIR | kaito-specdec` where kpt failed: its error is the one
            return _error_outcome(streams.empty_piped_input(str(exc)))
        return _error_outcome(streams.unreadable_input(str(exc)))
    try:
        fc = _function_config(rl)
        settings = resolve_settings(fc, environ)
    except ConfigError as exc:
        ref = _function_config_ref(rl)
        results = [e.finding.result(resource=ref) for e in exc.each()]
        try:
            return refused(results, write_resource_list(rl, Changes(), results))
        except InputError:  # nor can the list be written back (an entry it must write out whole): the error alone
            return refused(results)
    changes, results, enabled = plan_all(rl.items, settings, placement.kpt_files)
    notes = [r for r in policies.krm_notes(fc, rl.items) if r.id not in settings.disable]
    results = settings_notes(settings, _function_config_ref(rl)) + notes + results
    # Errors first, then warnings, then infos (each in input order): kpt shows the first lines of `Results:`.
    results = sorted(_ordered(results, rl.items), key=lambda r: _SEVERITY_ORDER[r.severity])
    try:
        output = write_resource_list(rl, changes, results)
    except InputError as exc:  # an item the output needs whole cannot be read (an alias bomb, …)
        return _error_outcome(streams.unreadable_input(str(exc)))
    paths = {path for path, _ in map(Item.file, rl.items) if path}
    summary = Summary(len(paths), len(rl.items), tuple(sorted(enabled.items())), kpt=read_by_kpt(rl.items))
    return Outcome(output, results, exit_status(results, settings.fail_on), summary)


KPT_READ = "internal.config.kubernetes.io/seqindent"  # kpt's package reader sets it, kustomize never (docs/cli.md)


def read_by_kpt(items: list[Item]) -> bool:
    """Whether kpt read these items from a package (kpt fn eval/render): kpt then prints the ResourceList's
    results under `Results:`, so the stderr lines would say each finding twice."""
    objects = [item for item in items if item.is_mapping]
    return bool(objects) and all(item.annotation(KPT_READ) is not None for item in objects)


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
        raise unreadable(exc) from None


def _unreadable_file(exc: InputError, sources: list[tuple[str, bytes]]) -> Result:
    """A file that is not UTF-8 or YAML: the reader's words at its file and line (a Helm template says so)."""
    text = dict(sources).get(exc.source, b"")
    at = {"file_path": exc.source, "file_line": exc.line}
    helm = b"{{" in text and b"}}" in text
    return streams.helm_template(str(exc), **at) if helm else streams.unreadable_input(str(exc), "render", **at)


class _Stop(Exception):
    """A step of render after which nothing more is read, planned or written: `outcome` is the run's."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__()
        self.outcome = outcome


class Build(NamedTuple):
    """A kustomize build of a root of the folders given (cli.py ran it): its stream, the files its origin
    annotations name (as written there) and the overlays' patch files, for the findings' places."""

    root: str                          # the root's folder, as shown
    data: bytes
    sources: Mapping[str, Source]
    patches: tuple[Patch, ...] = ()
    stripped: tuple[str, ...] = ()     # annotations the build added only for the places: not written
    failed: Result | None = None       # the root does not build (SD507): still one of the roots, nothing written
    affixes: Affixes | None = None     # the name prefixes and suffixes of its kustomizations (None: not known)


def origin_paths(name: str, data: bytes) -> list[str]:
    """The local files a stream's origin annotations name, as written there ([] when it cannot be read: the
    run reads it again and says why)."""
    try:
        return local_paths(read_stream([(name, data)]).items)
    except InputError:
        return []


def run_render(sources: list[tuple[str, bytes]], fc: Any, environ: Mapping[str, str],
               overrides: Mapping[str, Any], builds: tuple[Build, ...] = (),
               places: Mapping[str, Source] | None = None, notes: tuple[Result, ...] = (),
               patches: tuple[Patch, ...] = (), found: tuple[tuple[str, bytes], ...] = (),
               affixes: Affixes | None = None) -> Outcome:
    """The Flux / Argo CD path: plain documents in, a plain `---` stream out (nothing on failure).

    `builds`: the kustomize roots of the folders given, each judged as its own stream (`sources`, the files
    under no kustomization, as one more); `places`: the files the origin annotations of stdin name, and
    `patches` the patch files of the kustomization built, when it is known (and `affixes`, its name prefixes
    and suffixes); `notes`: what the command line
    said about the builds (no kustomize). A root that does not build is a Build with `failed` set: one of the
    roots all the same (materialize over it and another is SD508), and the run writes nothing. `found`: the
    tree's files that hold a SpeculativeDecodingPolicy (a build drops it): with the files under no
    kustomization, the run's policies among the inputs, one configuration for every root (_tree_config)."""
    if builds:
        try:
            fc, said = _tree_config(sources, found, fc, environ, overrides)
        except _Stop as stop:
            return stop.outcome
        notes = (*said, *notes)
    loose = Build("", b"", places or {}, patches, affixes=affixes)
    several = (1 if sources else 0) + len(builds) > 1
    units = [_unit(sources, fc, environ, overrides, places or {}, loose)] if sources or not builds else []
    units += [_unit([(b.root, b.data)], fc, environ, overrides, b.sources, b, several) for b in builds]
    if len(units) == 1 and not notes:
        return units[0].outcome
    return _together(units, list(notes), *_judged_by(fc, environ, overrides))


def _tree_config(sources: list[tuple[str, bytes]], found: tuple[tuple[str, bytes], ...], fc: Any,
                 environ: Mapping[str, str], overrides: Mapping[str, Any]) -> tuple[Any, list[Result]]:
    """The configuration of a run over a tree of kustomizations by docs/settings.md's "A policy among the
    inputs": the policies in the files under no kustomization and in the tree's files (`found`) are the
    inputs' policies of every root alike, said once (SD526; _Stop with SD525 or the policy's own errors at
    its file). Each root then reads the same configuration, and a copy of the policy its build keeps (one
    with no local-config annotation) is that configuration: nothing more is said of it."""
    items: list[Item] = []
    for source in [*sources, *found]:
        try:
            items += read_stream([source]).items
        except InputError:  # the run reads it again and says why (a listed file: kustomize does)
            continue
    fc, said, refusals = policies.render_config(fc, False, items)
    if refusals:
        raise _Stop(refused(refusals))
    if not said:
        return fc, []
    try:
        settings = resolve_settings(fc, environ, overrides)
    except ConfigError as exc:
        raise _Stop(refused([about(e.finding, policies.among(items)[0]) for e in exc.each()])) from None
    return fc, [r for r in said if r.id not in settings.disable]


class _Unit(NamedTuple):
    outcome: Outcome
    root: str = ""
    homes: Mapping[tuple[str, str, str, str], tuple[str, int]] = MappingProxyType({})  # resource -> file, document
    files: frozenset[str] = frozenset()                              # the files read (or built from)


def _unit(sources: list[tuple[str, bytes]], fc: Any, environ: Mapping[str, str], overrides: Mapping[str, Any],
          places: Mapping[str, Source], build: Build, several: bool = False) -> _Unit:
    """One stream judged: the files given (under no kustomization), or a root's build. `several`: one of
    several roots, where a root that builds to nothing (a folder of placeholders, Flux's `flux-system` before
    its first bootstrap) has nothing to judge and nothing to lose: the others are the run."""
    if build.failed is not None:
        return _Unit(refused([build.failed]), build.root)
    try:
        stream, broken = _read_sources(sources)
        settings, said = _render_settings(stream, fc, environ, overrides, broken)
    except _Stop as stop:
        return _Unit(stop.outcome, build.root)
    if not stream.items and several and build.root:
        return _Unit(Outcome("", [], 0, Summary(0, 0)), build.root)
    if not stream.items:
        # An empty render handed to Argo CD with auto-prune deletes everything: never a silent success.
        if [name for name, _ in sources] == ["<stdin>"]:
            return _Unit(_error_outcome(streams.empty_stdin()))
        return _Unit(_error_outcome(streams.no_objects(", ".join(name for name, _ in sources) or "no files")))
    if places:
        place([i for i in stream.items if i.origin == STDIN or build.root], places, build.patches, build.affixes)
    files = frozenset(i.home.path for i in stream.items if i.home is not None) if build.root \
        else frozenset(name for name, _ in sources)
    outcome = _plan_and_write(stream, settings, broken, len(files), said, build.stripped)
    homes = {(i.api_version, i.kind, i.name, i.namespace): (i.home.path, i.home.node.start_mark.line)
             for i in stream.items if i.home is not None and i.home.node is not None}
    return _Unit(outcome, build.root, homes, files)


def _judged_by(fc: Any, environ: Mapping[str, str], overrides: Mapping[str, Any]) -> tuple[bool, Severity]:
    """Whether the run materializes, and what fails it (each unit says what is wrong with the settings)."""
    try:
        settings = resolve_settings(fc, environ, overrides)
    except ConfigError:
        return False, Severity.ERROR
    return settings.mode != "validate", settings.fail_on


def _together(units: list[_Unit], notes: list[Result], materialize: bool, fail_on: Severity) -> Outcome:
    """Several streams judged apart, reported as one: a finding at the same place from several roots once,
    naming the roots where the verdict differs; a stream written only when there is one."""
    results = list(notes)
    said: dict[tuple[Any, ...], int] = {}
    roots_of: dict[int, list[str]] = {}
    for unit in units:
        for r in unit.outcome.results:
            key = (r.id, r.severity, r.message, r.file_path, r.file_line, r.field_path)
            if key in said and unit.root:
                roots_of[said[key]].append(unit.root)
                continue
            said[key] = len(results)
            roots_of[len(results)] = [unit.root] if unit.root else []
            results.append(r)
    built = [(u.root, set(u.homes.values())) for u in units if u.root]
    for at, roots in roots_of.items():
        r = results[at]
        home = _home_of(units, r)
        reached = [root for root, homes in built if home is not None and r.file_path == home[0] and home in homes]
        if roots and len(roots) < len(reached):
            results[at] = r._replace(message=f"{r.message} (built from {', '.join(roots)})")
    if materialize and len(units) > 1:  # a root that does not build is one of them: never one stream written
        roots = [u.root or "files under no kustomization" for u in units]
        results.append(finding("SD508", count=len(units), roots=", ".join(roots)).result(scope="render"))
    # The worst of the units' (2: one could not judge) and of what is said of them all (SD508 is a 2 itself).
    code = max([u.outcome.exit_code for u in units] + [exit_status(results, fail_on)])
    # A stream only when there is one and the run passes: a part of the tree handed to Argo CD or Flux
    # would prune what the rest holds.
    output = units[0].outcome.output if len(units) == 1 and code == 0 else ""
    summary = _summed([u.outcome.summary for u in units])
    if summary is not None:
        summary = summary._replace(files=len(frozenset().union(*(u.files for u in units))))
    return Outcome(output, results, code, summary)


def _home_of(units: list[_Unit], r: Result) -> tuple[str, int] | None:
    if r.resource is None:
        return None
    key = (r.resource.api_version, r.resource.kind, r.resource.name, r.resource.namespace)
    return next((u.homes[key] for u in units if key in u.homes), None)


def _summed(summaries: list[Summary | None]) -> Summary | None:
    found = [s for s in summaries if s is not None]
    if not found:
        return None
    enabled: dict[str, int] = {}
    for s in found:
        for kind, n in s.enabled:
            enabled[kind] = enabled.get(kind, 0) + n
    return Summary(sum(s.files for s in found), sum(s.objects for s in found), tuple(sorted(enabled.items())))


def _read_sources(sources: list[tuple[str, bytes]]) -> tuple[Stream, list[Result]]:
    """The stream of the files, and an error for each file that cannot be read. Each such file gets its own
    error at its own place; the others are still read and checked, for their findings (nothing is written).
    _Stop when nothing is left to check."""
    try:
        return read_stream(sources), []
    except InputError as exc:
        together = exc
    broken, readable = [], []
    for source in sources:
        try:
            read_stream([source])
        except InputError as each:
            broken.append(_unreadable_file(each, sources))
        else:
            readable.append(source)
    if not broken:  # only the files together fail (cannot happen today): the error as it came
        raise _Stop(_error_outcome(_unreadable_file(together, sources)))
    try:
        stream = read_stream(readable)
    except InputError:
        raise _Stop(refused(broken)) from None
    if not stream.items:
        raise _Stop(refused(broken))
    return stream, broken


def _render_settings(stream: Stream, fc: Any, environ: Mapping[str, str], overrides: Mapping[str, Any],
                     broken: list[Result]) -> tuple[Settings, list[Result]]:
    """The settings of a render and what is said of where they come from (_Stop with their errors, after
    `broken`'s). A SpeculativeDecodingPolicy among the inputs: model/policies.py."""
    said: list[Result] = []
    try:
        # A ResourceList piped in (`kpt fn source | kaito-specdec render -`) brings its own functionConfig.
        piped = fc is None and stream.function_config is not None
        if fc is None and stream.function_config is not None:
            fc = yamlio.construct(stream.function_config)
        fc, said, refusals = policies.render_config(fc, piped, stream.items)
        if refusals:
            raise _Stop(refused(broken + refusals))
        return resolve_settings(fc, environ, overrides), said
    except ConfigError as exc:
        # From a policy among the inputs: its errors at its file.
        source = policies.among(stream.items)[0] if said else None
        raise _Stop(refused(broken + [about(e.finding, source) if source else e.unplaced("render")
                                      for e in exc.each()])) from None
    except (yaml.YAMLError, RecursionError, TypeError, ValueError) as exc:
        raise _Stop(_error_outcome(unreadable(exc).unplaced("render"))) from None


def _plan_and_write(stream: Stream, settings: Settings, broken: list[Result], files: int,
                    said: list[Result], stripped: tuple[str, ...] = ()) -> Outcome:
    """The plan of a stream read, and the stream it writes when nothing stops it (`broken`: the files that
    could not be read, whose errors come first; `said`: where the settings come from, SD526)."""
    changes, results, enabled = plan_all(stream.items, settings, placement.render_stream)
    left_out = orchestrator_config(stream.items)
    said = [r for r in said if r.id not in settings.disable]
    results = said + settings_notes(settings, scope="render") + _ordered(results, stream.items)
    code = exit_status(results, settings.fail_on)
    summary = Summary(files, len(stream.items), tuple(sorted(enabled.items())))
    if broken:
        return refused(broken + results, summary=summary)
    if code != 0:
        return Outcome("", results, code, summary)
    changes = changes.removing(left_out)  # kustomize configuration is not a manifest: it never reaches the stream
    try:
        output = write_stream(stream, changes, stripped)
    except InputError as exc:  # an item the output needs whole cannot be read (an alias bomb, …)
        return _error_outcome(streams.unreadable_input(str(exc), "render"))
    if not output.strip():
        # Check what is written, not what was read: only configuration, or only retired derived ConfigMaps.
        results.append(streams.nothing_to_write(len(stream.items)))
        return refused(results, summary=summary)
    return Outcome(output, results, 0, summary)


def orchestrator_config(items: list[Item]) -> set[int]:
    """Indexes of the items `render` leaves out: kustomizations and the files they name (patches, plugin
    configs), KRM function configs."""
    return kustomize_config(items) | {item.index for item in items if is_function_config(item)}

