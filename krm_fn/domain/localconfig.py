"""Orchestrator configuration among the items: what is configuration for kustomize or kpt, not a manifest.

kustomize's own files need no apiVersion or kind (a bare `resources:` list is a legal kustomization.yaml,
and kpt passes it as an item), so they are recognised by file name and shape, never checked as
Kubernetes objects, passed through untouched in KRM mode and left out of a `render` stream.
"""

import posixpath

import yaml

from ..text import krm
from ..text.items import Item
from ..text.tree import child, scalar


# kustomize's names for its config file (kustomize's konfig.RecognizedKustomizationFileNames).
KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
KUSTOMIZE_KINDS = ("Kustomization", "Component")
# The fields of a Kustomization (kustomize v5 types.Kustomization), for items with no file name to go by.
KUSTOMIZATION_FIELDS = frozenset((
    "apiVersion", "kind", "metadata", "openapi", "namePrefix", "nameSuffix", "namespace", "commonLabels",
    "labels", "commonAnnotations", "patchesStrategicMerge", "patchesJson6902", "patches", "images",
    "imageTags", "replacements", "replicas", "vars", "sortOptions", "resources", "components", "crds",
    "bases", "configMapGenerator", "secretGenerator", "helmGlobals", "helmCharts", "helmChartInflationGenerator",
    "generatorOptions", "configurations", "generators", "transformers", "validators", "buildMetadata",
))
# Their types: a Helm values file may have `resources:` or `components:`, but as mappings. The rest are lists.
_SCALAR_FIELDS = frozenset(("apiVersion", "kind", "namePrefix", "nameSuffix", "namespace"))
_MAPPING_FIELDS = frozenset(("metadata", "openapi", "commonLabels", "commonAnnotations", "sortOptions",
                             "helmGlobals", "generatorOptions"))
# Fields only a kustomization has (a Helm values.yaml may well have `resources:` or `images:`).
_DISTINCT = frozenset(("bases", "patchesStrategicMerge", "patchesJson6902", "configMapGenerator",
                       "secretGenerator", "namePrefix", "nameSuffix", "commonLabels", "generators",
                       "transformers", "components", "helmCharts", "replacements"))
# Annotations that mark an object as a KRM function's config (kustomize transformers, generators).
FUNCTION_ANNOTATIONS = ("config.kubernetes.io/function", "config.k8s.io/function")
# The fields of a kustomization that name files of kustomize configuration (no manifests): plugin configs,
# patches, field specs, CRD schemas, replacements — entries as `- FILE` or `- path: FILE`.
_FILE_FIELDS = ("transformers", "generators", "validators", "patches", "patchesJson6902",
                "patchesStrategicMerge", "configurations", "crds", "replacements")


def file_name(item: Item) -> str:
    path = item.file()[0]
    return posixpath.basename(path.replace("\\", "/")) if path else ""


def is_kustomization(item: Item) -> bool:
    """A kustomization (or Component): by file name, or by kind, or — with no file to go by — by shape."""
    if not item.is_mapping:
        return False
    kustomize_api = item.api_version.startswith(krm.KUSTOMIZE_GROUP + "/")
    if item.kind in KUSTOMIZE_KINDS and (kustomize_api or not item.api_version):
        return True
    if item.api_version and not kustomize_api:
        return False
    name = file_name(item)
    if name:
        return name in KUSTOMIZATION_NAMES and not item.kind
    keys = {k.value for k, _ in item.node.value if isinstance(k, yaml.ScalarNode)}
    return not item.kind and bool(keys) and keys <= KUSTOMIZATION_FIELDS and bool(keys & _DISTINCT) \
        and all(isinstance(k, yaml.ScalarNode) and _typed_as_kustomize(k.value, v) for k, v in item.node.value)


def _typed_as_kustomize(key: str, value: yaml.Node) -> bool:
    if isinstance(value, yaml.ScalarNode) and value.tag == "tag:yaml.org,2002:null":
        return True  # `resources:` with nothing under it is legal
    expected = yaml.ScalarNode if key in _SCALAR_FIELDS else \
        yaml.MappingNode if key in _MAPPING_FIELDS else yaml.SequenceNode
    return isinstance(value, expected)


def is_function_config(item: Item) -> bool:
    """A KRM function's or kustomize plugin's config object (`config.kubernetes.io/function`, `builtin`)."""
    return item.api_version == "builtin" or any(item.annotation(a) is not None for a in FUNCTION_ANNOTATIONS)


def config_files(items: list[Item]) -> set[str]:
    """The files that kustomizations among the items name as configuration: transformer, generator and
    validator configs, patches (a JSON 6902 patch is a list; a strategic-merge patch a partial object),
    `configurations`, `crds`, `replacements` and `openapi` files."""
    out: set[str] = set()
    for item in items:
        if not is_kustomization(item):
            continue
        folder = posixpath.dirname(item.file()[0].replace("\\", "/"))
        refs = [child(child(item.node, "openapi"), "path")]
        for name in _FILE_FIELDS:
            entries = child(item.node, name)
            for entry in entries.value if isinstance(entries, yaml.SequenceNode) else []:
                refs.append(child(entry, "path") if isinstance(entry, yaml.MappingNode) else entry)
        refs += generator_inputs(item.node)
        for ref in map(scalar, refs):
            # An inline patch is a multi-line string; a URL is no file of the tree.
            if ref and "\n" not in ref and "://" not in ref:
                out.add(posixpath.normpath(posixpath.join(folder, ref)))
    return out


def generator_inputs(node: yaml.Node) -> list[yaml.Node]:
    """The files a kustomization's configMapGenerator and secretGenerator read as data (`files: [KEY=]FILE`,
    `envs: [FILE]`, the old `env: FILE`): a YAML file among them is a ConfigMap's value, not an object."""
    out: list[yaml.Node] = []
    for name in ("configMapGenerator", "secretGenerator"):
        generators = child(node, name)
        for gen in generators.value if isinstance(generators, yaml.SequenceNode) else []:
            for key in ("files", "envs"):
                entries = child(gen, key)
                for entry in entries.value if isinstance(entries, yaml.SequenceNode) else []:
                    text = scalar(entry)
                    if text and "=" in text:  # `KEY=FILE`: the key is the ConfigMap's, the file after `=`
                        entry = yaml.ScalarNode("tag:yaml.org,2002:str", text.split("=", 1)[1])
                    out.append(entry)
            env = child(gen, "env")
            if env is not None:
                out.append(env)
    return out


# kubebuilder scaffolds files next to their kustomization that it lists only in commented-out lines: patches
# (`manager_webhook_patch.yaml`, `cainjection_patch.yaml`) and field-spec configs (`kustomizeconfig.yaml`).
_OWN_NAMES = ("kustomizeconfig.yaml", "kustomizeconfig.yml")
_FIELD_SPEC_KEYS = frozenset(("nameReference", "namespace", "varReference", "commonLabels", "commonAnnotations",
                              "namePrefix", "nameSuffix", "images", "replicas", "labels"))


def _looks_like_kustomize_own(item: Item) -> bool:
    """A file kustomize would read as configuration: named like a patch or field-spec config, a JSON 6902
    patch (a list of `op:`s), or a field-spec config (`nameReference:`, `varReference:` …) — and no object."""
    name = file_name(item)
    if name in _OWN_NAMES or "patch" in name.lower():
        return True
    if isinstance(item.node, yaml.SequenceNode):
        return bool(item.node.value) and all(child(e, "op") is not None for e in item.node.value)
    if isinstance(item.node, yaml.MappingNode):
        keys = {k.value for k, _ in item.node.value if isinstance(k, yaml.ScalarNode)}
        return bool(keys) and keys <= _FIELD_SPEC_KEYS and bool(keys & {"nameReference", "varReference"})
    return False


def stray_files(items: list[Item], named: set[str] | None = None) -> list[Item]:
    """Items that are no Kubernetes object (not a mapping, or no kind) in a kustomization's folder that it
    does not name, and that look like kustomize's own files: left out as configuration, with a warning
    (shape.py), never refused as broken objects."""
    folders = {kustomization_folder(i) for i in items if is_kustomization(i) and i.file()[0]}
    if not folders:
        return []
    named = config_files(items) if named is None else named
    out = []
    for item in items:
        if item.is_mapping and (item.kind or is_kustomization(item)):
            continue
        path = item.file()[0].replace("\\", "/")
        if not path or (posixpath.dirname(path) or ".") not in folders or posixpath.normpath(path) in named:
            continue
        if _looks_like_kustomize_own(item):
            out.append(item)
    return out


def kustomize_config(items: list[Item]) -> set[int]:
    """Indexes of kustomize's configuration among the items: kustomizations, the files they name, and the
    files beside them that look like kustomize's own (stray_files)."""
    kustomizations = [item for item in items if is_kustomization(item)]
    if not kustomizations:  # most inputs: one look at each item, not four
        return set()
    files = config_files(kustomizations)

    def named(item: Item) -> bool:
        path = item.file()[0]
        return bool(path) and posixpath.normpath(path.replace("\\", "/")) in files

    out = {item.index for item in kustomizations} | {item.index for item in items if files and named(item)}
    return out | {item.index for item in stray_files(items, files)}


def kustomization_folder(item: Item) -> str:
    folder = posixpath.dirname(item.file()[0].replace("\\", "/"))
    return folder or "."


def unlisted_files(items: list[Item], paths: list[str]) -> list[tuple[Item, str]]:
    """(kustomization, file name) for each of `paths` (files kpt writes) in a folder whose kustomization
    does not list it under `resources`: `kustomize build` would leave it out."""
    return _by_listing(items, paths, listed=False)


def listed_files(items: list[Item], paths: list[str]) -> list[tuple[Item, str]]:
    """(kustomization, file name) for each of `paths` (files kpt deletes) that the kustomization of its
    folder lists under `resources`: `kustomize build` would fail on the missing file."""
    return _by_listing(items, paths, listed=True)


def _by_listing(items: list[Item], paths: list[str], listed: bool) -> list[tuple[Item, str]]:
    if not any(paths):
        return []
    folders: dict[str, Item] = {}
    for item in items:
        # is_kustomization first: it rules out an ordinary object by its apiVersion alone (file() reads four
        # annotations), and this runs for every item of a large input.
        if is_kustomization(item) and item.file()[0]:
            folders.setdefault(kustomization_folder(item), item)
    out = []
    for path in sorted(set(filter(None, paths))):
        kustomization = folders.get(posixpath.dirname(path) or ".")
        if kustomization is None:
            continue
        name = posixpath.basename(path)
        resources = child(kustomization.node, "resources")
        entries = resources.value if isinstance(resources, yaml.SequenceNode) else []
        if (name in {posixpath.normpath(scalar(e) or "") for e in entries}) == listed:
            out.append((kustomization, name))
    return out
