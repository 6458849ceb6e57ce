"""A small model of what KAITO's controllers do between two renders, per release (issue 21).

Given the objects in the cluster after the last sync and the next rendered output, `Cluster.sync` applies the
output (ConfigMaps first, as kustomize, kpt, Argo CD and Flux order them, or in stream order, as
`kubectl apply -f` does), prunes what the output no longer has (when the orchestrator prunes), and runs the
controllers until nothing changes. `Cluster.pods()` then says, per Workspace, what its pods' vLLM command
and mounts are, whether vLLM can start and what speculative config it runs. Only what speculative decoding
touches is modelled: the config reference, the `--kaito-config-file` flag, KAITO's own `--speculative-config`
(v0.13), and the opt-in annotation.

Every rule below is read off KAITO's source (the kaito-project/kaito repository; file, tag, lines).

Workspace controller, `pkg/workspace/controllers/workspace_controller.go`
    The revision hashes `resource`, `inference` and `tuning`, never annotations (v0.12.0, 498-505):
        func ComputeHash(w *kaitov1beta1.Workspace) string { ... encoder.Encode(w.Resource)
            encoder.Encode(w.Inference)  encoder.Encode(w.Tuning) ... }
    A missing StatefulSet is created from the current spec (v0.12.0, 634-639: `if apierrors.IsNotFound(err)
    { return resources.CreateResource(ctx, workloadObj, c.Client) }`); the controller `Owns(&appsv1.StatefulSet{})`
    (1543), so deleting the StatefulSet recreates it with the current command.
    On a new revision it copies only these into the existing StatefulSet (v0.10.0, 503-506; v0.11.0, 624-627;
    v0.12.0, 669-672), not the command:
        spec.Containers[0].Env = desiredPodSpec.Containers[0].Env
        spec.Containers[0].VolumeMounts = desiredPodSpec.Containers[0].VolumeMounts
        spec.InitContainers = desiredPodSpec.InitContainers
        spec.Volumes = desiredPodSpec.Volumes
    (v0.12.0, 652-664: the whole template only on a base-image upgrade requested by a label; not modelled.)
    The v0.13 code: design #2303, step 4.5 ("Rollout detection must include the annotation", docs/proposals/
    20260827-speculative-decoding.md) folds the annotation into ComputeHash ("Extend the hashed struct with a
    `SpecDecoAnnotation string` field") and "extends the selective update to also set
    `spec.Containers[0].Command = desiredPodSpec.Containers[0].Command` (and `Args` for completeness)".
    ASSUMED: PR #2312's hunk of workspace_controller.go could not be read, again. The kaito-project/kaito
    mirror's newest main is 056b8280b (2026-08-21, v0.12.0 + 2) and its pull refs end at #2292 (no
    refs/pull/2312); the code index holds of the PR only its webhook files (`validateSpeculativeDecoding` in
    api/v1beta1 inferenceset and api/v1alpha1 multiroleinference validation, through
    `speculativedecoding.ValidateOptIn(...)`) and the tests of its injection decision (`wantDecision
    SpecDecoDecision`, `ws.Status.TargetNodeCount = targetNodes`, `userOverride bool`); the review threads
    show inferenceset_controller.go (below), generator.go and the e2e test, not this file. So the model
    takes the design's step 4.5 as what v0.13 does: annotation hashed, command copied.

The vLLM command, `pkg/model/interface.go`
    `--kaito-config-file` is on the command only when a config volume is mounted (v0.10.0, 359-361; v0.11.0,
    422-424; v0.12.0, 482-484):
        if rc.ConfigVolume != nil {
            p.VLLM.ModelRunParams["kaito-config-file"] = path.Join(rc.ConfigVolume.MountPath, ConfigfileNameVLLM)
    and the volume is always `config-volume` at one mount path (`pkg/utils/common_preset.go`, v0.10.0, 161-178),
    so a new config reference keeps the path and only changes the ConfigMap behind it.

The config volume, `pkg/workspace/inference/preset_inferences.go`
    v0.10: always mounted; with no `inference.config` KAITO copies its default `inference-params-template`
    into the namespace (v0.10.0, 376-397: `resources.EnsureConfigOrCopyFromDefault(...,
    client.ObjectKey{Name: v1beta1.DefaultInferenceConfigTemplate})`, `pkg/utils/resources/resources.go`
    152-210: a user ConfigMap that is not found is an error and the reconcile stops).
    v0.11, v0.12: mounted only when the Workspace names one (v0.11.0, 454-459; v0.12.0, 531-537):
        // Mount the user-provided inference config ConfigMap when set. When empty,
        // no config volume is mounted and the runtime falls back to its built-in defaults.
        if userConfig := ctx.Workspace.Inference.Config; userConfig != "" {

KAITO's vLLM runtime, `presets/workspace/inference/vllm/inference_api.py`
    The flag opens the file, so a flag without the volume crash-loops (v0.12.0, 134-135 and 175-177; v0.10.0,
    100-101; v0.11.0, 126-127 and 167-168):
        if kaito_args.kaito_config_file:
            file_config = KaitoConfig.from_yaml(kaito_args.kaito_config_file)
        ...  with open(yaml_file) as file:
    and every key under `vllm:` becomes `--<key> <value>` (v0.12.0, 143-145).

KAITO's own injection (v0.13 code, design #2303 step 3): with the annotation "true" KAITO adds
`--speculative-config` unless the referenced ConfigMap has the key `vllm.speculative-config`
(`loadUserSpeculativeConfig`: "returns (true, nil) iff the vllm.speculative-config key is present").

InferenceSet controller, `pkg/inferenceset/inferenceset_controller.go`
    A new child Workspace gets a copy of the template's annotations and its `inference` (v0.10.0, 278-303:
    `workspaceAnnotations := maps.Clone(iObj.Spec.Template.Annotations)` ... `workspaceObj.Inference =
    &iObj.Spec.Template.Inference`; v0.12.0 `pkg/utils/inferenceset/inferenceset.go` 133,
    NewWorkspaceForInferenceSet). Existing children get labels only (v0.12.0, 389-425: "Reconcile labels on
    existing workspaces by additively propagating InferenceSet metadata labels"); no template field reaches
    them. The v0.13 code (PR #2312, inferenceset_controller.go ~342, review thread of 2026-09-07:
    `desiredSpecDecoValue, desiredHasSpecDeco := desired.Annotations[kaitov1beta1.AnnotationEnableSpeculativeDecoding]`;
    design #2303 step 4.5: "reconcile **only the `kaito.sh/enable-speculative-decoding` key** on existing
    child Workspaces") syncs that one key, nothing else. A later revision of the design adds that a changed
    template preset makes the reconciler recreate the children ("deletes exactly one preset-mismatched
    child per reconcile, requeues"; "The selective annotation-only sync path documented above continues to
    run only when the preset is unchanged"); no PR code for it was readable, so the model keeps them (then
    SD424's recreate is what the user does; if KAITO does it, doing it again is harmless).

MultiRoleInference controller, `pkg/controllers/multiroleinference/controller.go` (v0.11.0 and v0.12.0,
    409-494), CreateOrUpdate of the InferenceSet `<mri>-<role type>`:
        isName := fmt.Sprintf("%s-%s", mri.Name, role.Type)
        if len(mri.Annotations) > 0 { ... desired.Spec.Template.Annotations = templateAnnotations }
        desired.Spec.Template.Inference = kaitov1beta1.InferenceSpec{Preset: ... mri.Spec.Model.Name ...}
        if role.RuntimeConfig != "" { desired.Spec.Template.Inference.Config = role.RuntimeConfig }
    so a MultiRoleInference without annotations leaves its children's template annotations as they were, and
    the children's Workspaces follow the InferenceSet rules above. There is no MultiRoleInference before v0.11.

Kinds and versions each release serves (config/crd/bases/): v0.10.0 installs the InferenceSet CRD with one
    version, `name: v1alpha1` (kaito.sh_inferencesets.yaml:32, `served: true` :350), and no MultiRoleInference;
    v0.11.0 adds `name: v1beta1` (:432) and kaito.sh_multiroleinferences.yaml. The API server answers anything
    else with `no matches for kind`.

The MultiRoleInference controller runs only behind a feature gate, off by default:
    consts.FeatureFlagEnableMultiRoleInferenceController: false,   (pkg/featuregates/featuregates.go:34 at
    v0.12.0, :32 at v0.11.0); the model runs it when `Cluster.gates` turns it on (KAITO's `--feature-gates`).

InferenceSet scale-down, which children go (inferenceset_controller.go):
    v0.10.0 (:214-262) and v0.11.0: "first delete workspace that is not in ready state", then "delete rest of
    extra workspaces" from the start of the list (the API server lists by name: the oldest generated names
    first); v0.12.0 `selectWorkspacesToDelete` (:225-300): "old before new, and within each, not-ready before
    ready" (sort.SliceStable), and a Ready one only while `readyBudget := readyCount - desiredReplicas` lasts.
    Ready is `DetermineWorkspacePhase(ws) == "succeeded"`: here, a pod that can start. v0.12.0 also deletes
    Workspaces on an old base image first, and new-image ones only past the old ones (:244-297):
        old, err := c.isWorkspaceOnOldImage(ctx, ws, desiredImage)
        // Delete in priority order: old before new, and within each, not-ready before ready.
            if candidates[i].old != candidates[j].old {
                return candidates[i].old // old-image workspaces first
        newBudget := numToDelete - oldCount
            if !cand.old && newBudget <= 0 {
                continue // keep new-image replicas unless genuinely over-provisioned
    Old is the StatefulSet's image against KAITO's own (:199-207, `desiredImage := inference.GetBaseImageName()`):
        return workspace.GetInferenceContainerImage(ss) != desiredImage, nil
    and a Workspace with no StatefulSet yet is new (`if apierrors.IsNotFound(err) { return false, nil }`). Here
    `Cluster.base_image` is KAITO's image (a KAITO upgrade changes it); a StatefulSet keeps the image it was
    created with (the selective update above copies no image). `Cluster.surge` is v0.12.0's AutoUpgradeRunner
    with the Surge strategy (pkg/controllers/autoupgrade/runner.go:326-410): at the desired count with a
    drifted Workspace, "it creates ONE new Workspace on the new base image" (`NewWorkspaceForInferenceSet`).

Admission, what `sync` refuses
    v0.10.0's InferenceSet: `if is.Spec.Replicas < 1 { ... "must be at least 1")) }`
    (api/v1alpha1/inferenceset_validation.go:54-56, and the CRD's `minimum: 1`); v0.11.0 admits 0.
    v0.10.0's `IsValidPreset` (pkg/utils/plugin/plugin.go:79-91): `KaitoModelRegister.Has(preset)`, the names
    as registered (V010_PRESETS: the `Name:` of each presets/workspace/models/*/model.go), else `org/name`;
    so a Workspace created with `Phi-4` is refused there ("Unsupported inference preset name").
    A Workspace update that changes its preset (`InferenceSpec.validateUpdate`, api/v1beta1/
    workspace_validation.go, v0.10.0 660-662, v0.11.0 691-693, v0.12.0 895-897):
        if !reflect.DeepEqual(i.Preset, old.Preset) {
            errs = errs.Also(apis.ErrGeneric("field is immutable", "preset"))
    and the v0.13 design keeps it ("`InferenceSpec.Preset` is enforced immutable on the child by
    `api/v1beta1/workspace_validation.go:895-897`"), so a Workspace's preset changes only by deleting and
    creating it (`sync(replace=True)`). An
    InferenceSet's template preset is mutable (design #2303: "api/v1beta1/inferenceset_validation.go:75-82
    allows it"); its existing Workspaces keep the old one (below).
    A MultiRoleInference update that changes `spec.model.name` (api/v1alpha1/multiroleinference_validation.go
    75-80 at v0.12.0, 73-76 at v0.11.0):
        if m.Spec.Model.Name != old.Spec.Model.Name {
            errs = errs.Also(apis.ErrInvalidValue(fmt.Sprintf("model name is immutable, was %q, now %q", ...
    and, from v0.12.0, a v1beta1 InferenceSet update that changes `spec.template.resource.partition`
    (api/v1beta1/inferenceset_validation.go:78-80: "Partition config is immutable once set",
    `apis.ErrGeneric("field is immutable", "template", "resource", "partition")`). Both change only by
    deleting and creating the object (`sync(replace=True)`).
    A Workspace create whose `inference.config` names a ConfigMap that does not exist (v0.12.0
    `api/v1beta1/inference_config_validation.go` 56-66: "ConfigMap '%s' specified in 'config' not found in
    namespace '%s'", from ValidateCreate, `api/v1beta1/workspace_validation.go` 105-122); from v0.12.0 every
    v1beta1 InferenceSet admission validates the Workspace it projects the same way
    (`ValidateInferenceSetWorkspace`, krm_fn/checks/releases.py).
    A name that is not a DNS-1123 label (`validation.IsDNS1123Label(is.Name)`,
    `api/v1beta1/inferenceset_validation.go` 39, v0.12.0; MultiRoleInference `api/v1alpha1/
    multiroleinference_validation.go` 38): a MultiRoleInference child `<mri>-<role>` over 63 characters is
    refused, so that role never runs.

Pods: a StatefulSet's pods run its template; a template change rolls them. A pod (re)starts only if the
ConfigMap of its config volume exists (kubelet waits for a missing ConfigMap volume) and, when the command
has `--kaito-config-file`, the volume is mounted (else inference_api.py cannot open the file: crash-loop).
"""
from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

import yaml

RELEASES = ("v0.10", "v0.11", "v0.12", "v0.13")
KAITO_VERSION = {"v0.10": "v0.10.0", "v0.11": "v0.11.0", "v0.12": "v0.12.0", "v0.13": "v0.13.0"}
ENABLE = "kaito.sh/enable-speculative-decoding"
CREATED_BY = "inferenceset.kaito.sh/created-by"
DEFAULT_CONFIGMAP = "inference-params-template"  # v0.10's default, copied into every namespace
# Its text at v0.10.0 (charts/kaito/workspace/templates/inference-params.yaml), comments left out: KAITO passes
# every `vllm:` key to vLLM (--cpu-offload-gb 0 --swap-space 4), the other keys to its own runtime.
DEFAULT_CONFIGMAP_TEXT = ("max_probe_steps: 6\nkv_cache_cpu_memory_utilization: 0.5\n"
                          "vllm:\n  cpu-offload-gb: 0\n  swap-space: 4\n")
V010_PRESETS = frozenset({
    "deepseek-r1-0528", "deepseek-r1-distill-llama-8b", "deepseek-r1-distill-qwen-14b", "deepseek-v3-0324",
    "falcon-40b", "falcon-40b-instruct", "falcon-7b", "falcon-7b-instruct", "gemma-3-27b-instruct",
    "gemma-3-4b-instruct", "gpt-oss-120b", "gpt-oss-20b", "llama-3.1-8b-instruct", "llama-3.3-70b-instruct",
    "ministral-3-14b-instruct", "ministral-3-3b-instruct", "ministral-3-8b-instruct", "mistral-7b",
    "mistral-7b-instruct", "mistral-large-3-675b-instruct", "phi-3-medium-128k-instruct", "phi-3-medium-4k-instruct",
    "phi-3-mini-128k-instruct", "phi-3-mini-4k-instruct", "phi-3.5-mini-instruct", "phi-4", "phi-4-mini-instruct",
    "qwen2.5-coder-32b-instruct", "qwen2.5-coder-7b-instruct"})
MRI_GATE = "enableMultiRoleInferenceController"   # KAITO's feature gate, off by default (v0.11, v0.12)
IMMUTABLE = "preset: field is immutable"       # a Workspace's preset, on every release
IMMUTABLE_MODEL = "model name is immutable"     # a MultiRoleInference's spec.model.name (v0.11 on)

def kaito_builtin(preset: str) -> str:
    """What the v0.13 code injects by itself: its tuned table or the universal ngram fallback (SPEC.md 4.1,
    the table of PR #2312's description, which krm_fn.domain.presets.DEFAULT_TABLE holds)."""
    from krm_fn.domain.presets import DEFAULT_TABLE, resolve
    return resolve(preset, DEFAULT_TABLE).json


def _key(obj: dict) -> tuple[str, str, str]:
    meta = obj.get("metadata") or {}
    return obj["kind"], meta.get("namespace") or "default", meta["name"]


def _ann(meta: Any) -> dict:
    ann = (meta or {}).get("annotations") if isinstance(meta, dict) else None
    return ann if isinstance(ann, dict) else {}



@dataclass
class Template:
    """What KAITO rendered into a Workspace's StatefulSet."""

    revision: str
    configmap: str | None     # the ConfigMap of `config-volume` (None: no config volume)
    config_flag: bool         # --kaito-config-file on the command
    injected: str | None      # KAITO's own --speculative-config on the command (v0.13), its JSON
    image: str = ""           # the base image it runs (KAITO's `base_image` when it was created)


@dataclass
class Pod:
    workspace: str
    configmap: str | None
    config_flag: bool
    can_start: bool
    why: str                  # why it cannot start ("" when it can)
    speculative_config: str | None  # what vLLM runs with (None: not speculating)


@dataclass
class Cluster:
    release: str
    objects: dict = field(default_factory=dict)        # (kind, ns, name) -> object, as applied or controller-made
    managed: set = field(default_factory=set)          # keys the GitOps sync applied (what it may prune)
    statefulsets: dict = field(default_factory=dict)   # (ns, workspace) -> Template
    refused: list = field(default_factory=list)        # admission refusals of the last sync
    gates: dict = field(default_factory=dict)          # KAITO's --feature-gates (MRI_GATE: off unless set)
    base_image: str = "base"                           # KAITO's base image (GetBaseImageName): an upgrade changes it
    _generated: int = 0

    # ---- the sync -------------------------------------------------------------------------------------
    def sync(self, output: str | list, prune: bool = True, stream_order: bool = False, replace: bool = False) -> Cluster:
        """`replace`: an object refused as immutable is deleted and created again (Argo CD's `Replace=true`,
        `kubectl replace --force`): the only way a Workspace's preset changes."""
        docs = [d for d in (yaml.safe_load_all(output) if isinstance(output, str) else output) if d]
        docs = [d for d in docs if d.get("kind") not in ("ResourceList",)] or []
        if not stream_order:
            docs = sorted(docs, key=lambda d: d["kind"] != "ConfigMap")  # stable: ConfigMaps first
        self.refused = []
        applied = set()
        for d in docs:
            d = copy.deepcopy(d)
            meta = d.setdefault("metadata", {})
            meta["annotations"] = {k: v for k, v in _ann(meta).items() if not k.startswith(("config.kubernetes.io/", "internal.config.kubernetes.io/"))}
            key = _key(d)
            problem = self._admit(d, key not in self.objects)
            if "immutable" in problem and replace:
                self._delete(key)
                problem = self._admit(d, True)
            if problem:
                self.refused.append((key, problem))
                continue
            self.objects[key] = d
            applied.add(key)
        if prune:
            for key in sorted(self.managed - applied - {k for k, _ in self.refused}):
                self.objects.pop(key, None)
                if key[0] == "Workspace":
                    self.statefulsets.pop((key[1], key[2]), None)
        self.managed = (self.managed | applied) if not prune else (applied | (self.managed & {k for k, _ in self.refused}))
        self.reconcile()
        return self

    def _admit(self, obj: dict, create: bool) -> str:
        kind, ns, name = _key(obj)
        if self.release == "v0.10" and ((kind == "InferenceSet" and obj.get("apiVersion") != "kaito.sh/v1alpha1")
                                        or kind == "MultiRoleInference"):
            return f'no matches for kind "{kind}" in version "{obj.get("apiVersion")}"'
        if self.release == "v0.10" and kind == "Workspace" and create:
            preset = str(((obj.get("inference") or {}).get("preset") or {}).get("name") or "")
            org, slash, rest = preset.partition("/")
            if preset and preset not in V010_PRESETS and not (slash and org and rest):
                return f"Unsupported inference preset name {preset}: inference.presetName"
        if self.release == "v0.10" and kind == "InferenceSet" and int((obj.get("spec") or {}).get("replicas", 1)) < 1:
            return f"invalid value: {(obj.get('spec') or {}).get('replicas')}: must be at least 1: spec.replicas"
        if kind in ("InferenceSet", "MultiRoleInference", "Workspace") and (len(name) > 63):
            return f"{kind} name {name!r} is not a DNS-1123 label (IsDNS1123Label)"
        if kind == "Workspace" and not create and \
                ((obj.get("inference") or {}).get("preset") != (self.objects[(kind, ns, name)].get("inference") or {}).get("preset")):
            return IMMUTABLE
        if kind == "MultiRoleInference" and not create:
            old_model = ((self.objects[(kind, ns, name)].get("spec") or {}).get("model") or {}).get("name")
            new_model = ((obj.get("spec") or {}).get("model") or {}).get("name")
            if old_model != new_model:
                return f"{IMMUTABLE_MODEL}, was {old_model!r}, now {new_model!r}"
        if kind == "InferenceSet" and not create and self.release >= "v0.12" and obj.get("apiVersion") == "kaito.sh/v1beta1":
            def partition(o: dict) -> Any:
                return (((o.get("spec") or {}).get("template") or {}).get("resource") or {}).get("partition")
            if partition(obj) != partition(self.objects[(kind, ns, name)]):
                return "template.resource.partition: field is immutable"
        ref = None
        if kind == "Workspace" and create:
            ref = (obj.get("inference") or {}).get("config")
        if kind == "InferenceSet" and self.release >= "v0.12" and obj.get("apiVersion") == "kaito.sh/v1beta1":
            ref = (((obj.get("spec") or {}).get("template") or {}).get("inference") or {}).get("config")
        if ref and ("ConfigMap", ns, ref) not in self.objects:
            return f"ConfigMap {ref!r} specified in 'config' not found in namespace {ns!r}"
        return ""

    def _delete(self, key: tuple) -> None:
        """Delete an object and, as Kubernetes' garbage collector does through KAITO's ownerReferences, what
        its controller made: a MultiRoleInference's InferenceSets, an InferenceSet's Workspaces."""
        self.objects.pop(key, None)
        self.statefulsets.pop((key[1], key[2]), None)
        if key[0] == "MultiRoleInference":
            for child in [k for k in self.objects if k[0] == "InferenceSet" and k[1] == key[1] and k[2].startswith(key[2] + "-")]:
                self._delete(child)
        if key[0] == "InferenceSet":
            for child in [k for k, o in self.objects.items() if k[0] == "Workspace" and k[1] == key[1]
                          and ((o.get("metadata") or {}).get("labels") or {}).get(CREATED_BY) == key[2]]:
                self._delete(child)

    # ---- what the user can do about a warning ---------------------------------------------------------
    def delete_statefulset(self, namespace: str, workspace: str) -> Cluster:
        """`kubectl delete statefulset <workspace>`: KAITO recreates it from the Workspace as it is now."""
        self.statefulsets.pop((namespace or "default", workspace), None)
        self.reconcile()
        return self

    def delete_children(self, namespace: str, inferenceset: str) -> Cluster:
        """`kubectl delete workspace -l inferenceset.kaito.sh/created-by=<name>`: KAITO recreates them from
        the template as it is now."""
        ns = namespace or "default"
        for key in [k for k, o in self.objects.items() if k[0] == "Workspace" and k[1] == ns
                    and ((o.get("metadata") or {}).get("labels") or {}).get(CREATED_BY) == inferenceset]:
            del self.objects[key]
            self.statefulsets.pop((key[1], key[2]), None)
        self.reconcile()
        return self

    # ---- the controllers ------------------------------------------------------------------------------
    def reconcile(self) -> None:
        for _ in range(5):
            before = json.dumps([sorted(self.objects.items(), key=str), sorted(self.statefulsets.items(), key=str)], default=str)
            if self.release >= "v0.11" and self.gates.get(MRI_GATE, False):
                self._multiroleinferences()
            self._inferencesets()
            self._workspaces()
            after = json.dumps([sorted(self.objects.items(), key=str), sorted(self.statefulsets.items(), key=str)], default=str)
            if before == after:
                return

    def _multiroleinferences(self) -> None:
        for key, mri in list(self.objects.items()):
            if key[0] != "MultiRoleInference":
                continue
            spec = mri.get("spec") or {}
            for role in spec.get("roles") or []:
                name = f"{key[2]}-{role['type']}"
                if len(name) > 63:
                    continue  # the InferenceSet webhook refuses it: this role never runs
                child_key = ("InferenceSet", key[1], name)
                child = self.objects.get(child_key) or {"apiVersion": "kaito.sh/v1beta1", "kind": "InferenceSet",
                                                         "metadata": {"name": name, "namespace": key[1]}}
                child = copy.deepcopy(child)
                cspec = child.setdefault("spec", {})
                if role.get("replicas") is not None:
                    cspec["replicas"] = role["replicas"]
                template = cspec.setdefault("template", {})
                if _ann(mri.get("metadata")):
                    template.setdefault("metadata", {})["annotations"] = dict(_ann(mri.get("metadata")))
                inference = {"preset": {"name": (spec.get("model") or {}).get("name")}}
                if role.get("runtimeConfig"):
                    inference["config"] = role["runtimeConfig"]
                template["inference"] = inference
                self.objects[child_key] = child

    def _inferencesets(self) -> None:
        for key, iset in list(self.objects.items()):
            if key[0] != "InferenceSet":
                continue
            spec = iset.get("spec") or {}
            template = spec.get("template") or {}
            t_ann = _ann(template.get("metadata"))
            children = sorted(k for k, o in self.objects.items() if k[0] == "Workspace" and k[1] == key[1]
                              and ((o.get("metadata") or {}).get("labels") or {}).get(CREATED_BY) == key[2])
            want = int(spec.get("replicas", 1) or 0)
            for k in self._scale_down(children, want):
                del self.objects[k]
                self.statefulsets.pop((k[1], k[2]), None)
            children = [k for k in children if k in self.objects]
            for k in children:
                if self.release >= "v0.13":  # only the opt-in key, nothing else
                    ann = self.objects[k]["metadata"].setdefault("annotations", {})
                    if ENABLE in t_ann:
                        ann[ENABLE] = t_ann[ENABLE]
                    else:
                        ann.pop(ENABLE, None)
            for _ in range(want - len(children)):
                self._new_child(key)

    def _new_child(self, key: tuple) -> None:
        """NewWorkspaceForInferenceSet: a Workspace from the InferenceSet's template as it is now."""
        template = (self.objects[key].get("spec") or {}).get("template") or {}
        self._generated += 1
        name = f"{key[2]}-{self._generated:05d}"
        self.objects[("Workspace", key[1], name)] = {
            "apiVersion": "kaito.sh/v1beta1", "kind": "Workspace",
            "metadata": {"name": name, "namespace": key[1], "labels": {CREATED_BY: key[2]},
                         "annotations": dict(_ann(template.get("metadata")))},
            "inference": copy.deepcopy(template.get("inference") or {})}

    def surge(self, namespace: str, inferenceset: str) -> Cluster:
        """v0.12's AutoUpgradeRunner, Surge strategy (module docstring): one Workspace more, on the new base
        image, when a child runs an old one and the InferenceSet has exactly its replicas."""
        key = ("InferenceSet", namespace or "default", inferenceset)
        children = self.children_of(inferenceset, key[1])
        drifted = [n for n in children if (key[1], n) in self.statefulsets
                   and self.statefulsets[(key[1], n)].image != self.base_image]
        if self.release >= "v0.12" and drifted and len(children) == int((self.objects[key].get("spec") or {}).get("replicas", 1)):
            self._new_child(key)
            self.reconcile()
        return self

    def _scale_down(self, children: list, want: int) -> list:
        """The children an InferenceSet deletes to get to `want` (the module's docstring: not-ready first, in
        list order; v0.12 on: old-image ones first, Ready ones kept while Ready would drop below `want`,
        new-image ones only past the old ones)."""
        extra = len(children) - want
        if extra <= 0:
            return []
        pods = self.pods()
        ready = {k: k[2] in pods and pods[k[2]].can_start for k in children}
        if self.release < "v0.12":
            return sorted(children, key=lambda k: ready[k])[:extra]   # stable: not-ready first, in list order
        # v0.12.0 inferenceset_controller.go:252-267: "old before new, and within each, not-ready before ready"
        old = {k: (k[1], k[2]) in self.statefulsets and self.statefulsets[(k[1], k[2])].image != self.base_image
               for k in children}
        order = sorted(children, key=lambda k: (not old[k], ready[k]))
        budget = sum(ready.values()) - want                 # readyBudget := readyCount - desiredReplicas
        new_budget = extra - sum(old.values())              # newBudget := numToDelete - oldCount
        out = []
        for k in order:
            if len(out) >= extra:
                break
            if ready[k] and budget <= 0:
                continue
            if not old[k] and new_budget <= 0:
                continue
            out.append(k)
            budget -= ready[k]
            new_budget -= not old[k]
        return out

    def _desired(self, ws: dict) -> Template:
        inference = ws.get("inference") or {}
        enabled = _ann(ws.get("metadata")).get(ENABLE)
        hashed = [inference, enabled if self.release >= "v0.13" else None]
        revision = hashlib.sha256(json.dumps(hashed, sort_keys=True).encode()).hexdigest()[:8]
        ref = inference.get("config") or None
        configmap = ref if ref else (DEFAULT_CONFIGMAP if self.release == "v0.10" else None)
        injected = None
        if self.release >= "v0.13" and enabled == "true" and not self._sets_speculative_config(ws, ref):
            injected = kaito_builtin(str((inference.get("preset") or {}).get("name")))
        return Template(revision, configmap, configmap is not None, injected, self.base_image)

    def _workspaces(self) -> None:
        for key, ws in list(self.objects.items()):
            if key[0] != "Workspace" or not (ws.get("inference") or {}).get("preset"):
                continue
            desired = self._desired(ws)
            ref = (ws.get("inference") or {}).get("config")
            if self.release == "v0.10" and ref and ("ConfigMap", key[1], ref) not in self.objects:
                continue  # EnsureConfigOrCopyFromDefault: "user specified ConfigMap %s not found": no update
            existing = self.statefulsets.get((key[1], key[2]))
            if existing is None:
                self.statefulsets[(key[1], key[2])] = desired
            elif existing.revision != desired.revision:
                follows = self.release >= "v0.13"  # design #2303 step 4.5: the command is copied too
                self.statefulsets[(key[1], key[2])] = Template(
                    desired.revision, desired.configmap,
                    desired.config_flag if follows else existing.config_flag,
                    desired.injected if follows else existing.injected, existing.image)

    def _configmap_text(self, ns: str, name: str | None) -> str | None:
        if name == DEFAULT_CONFIGMAP and self.release == "v0.10":
            return DEFAULT_CONFIGMAP_TEXT
        cm = self.objects.get(("ConfigMap", ns, name)) if name else None
        return None if cm is None else str((cm.get("data") or {}).get("inference_config.yaml", ""))

    def _sets_speculative_config(self, ws: dict, ref: str | None) -> bool:
        text = self._configmap_text((ws.get("metadata") or {}).get("namespace") or "default", ref)
        doc = yaml.safe_load(text) if text else None
        return isinstance(doc, dict) and isinstance(doc.get("vllm"), dict) and "speculative-config" in doc["vllm"]

    # ---- what runs ------------------------------------------------------------------------------------
    def pods(self) -> dict[str, Pod]:
        out = {}
        for (ns, name), t in sorted(self.statefulsets.items()):
            text = self._configmap_text(ns, t.configmap)
            why = ""
            if t.configmap is not None and text is None:
                why = f"ConfigMap {t.configmap!r} of its config volume does not exist"
            elif t.config_flag and t.configmap is None:
                why = "--kaito-config-file names a file no volume provides (inference_api.py crash-loops)"
            spec = None
            if not why:
                doc = yaml.safe_load(text) if (t.config_flag and text) else None
                vllm = doc.get("vllm") if isinstance(doc, dict) else None
                if isinstance(vllm, dict) and "speculative-config" in vllm:
                    spec = vllm["speculative-config"]
                elif t.injected:
                    spec = t.injected
            out[name] = Pod(name, t.configmap, t.config_flag, not why, why, spec)
        return out

    def children_of(self, inferenceset: str, namespace: str = "default") -> list[str]:
        return sorted(k[2] for k, o in self.objects.items() if k[0] == "Workspace" and k[1] == namespace
                      and ((o.get("metadata") or {}).get("labels") or {}).get(CREATED_BY) == inferenceset)


def intended(output: str | list, namespace: str = "default") -> dict[str, str | None]:
    """What the Git tree says, per root workload of the rendered output: the speculative config its pods
    should run (the value in the ConfigMap the output points it at), or None for off."""
    docs = [d for d in (yaml.safe_load_all(output) if isinstance(output, str) else output) if d]
    cms = {(d["metadata"].get("namespace") or "default", d["metadata"]["name"]): d for d in docs if d.get("kind") == "ConfigMap"}

    def value(ref: str | None) -> str | None:
        cm = cms.get((namespace, ref)) if ref else None
        doc = yaml.safe_load((cm.get("data") or {}).get("inference_config.yaml", "")) if cm else None
        vllm = doc.get("vllm") if isinstance(doc, dict) else None
        return vllm.get("speculative-config") if isinstance(vllm, dict) else None

    out: dict[str, str | None] = {}
    for d in docs:
        kind, meta = d.get("kind"), d.get("metadata") or {}
        if kind == "Workspace":
            on = _ann(meta).get(ENABLE) == "true"
            out[meta["name"]] = value((d.get("inference") or {}).get("config")) if on else None
        elif kind == "InferenceSet":
            t = (d.get("spec") or {}).get("template") or {}
            on = _ann(t.get("metadata")).get(ENABLE) == "true"
            out[meta["name"]] = value((t.get("inference") or {}).get("config")) if on else None
        elif kind == "MultiRoleInference":
            on = _ann(meta).get(ENABLE) == "true"
            for role in (d.get("spec") or {}).get("roles") or []:
                out[f"{meta['name']}-{role['type']}"] = value(role.get("runtimeConfig")) if on else None
    return out
