"""Synthetic platform repositories for the benchmark: a kpt package and the ResourceList `kpt fn source`
makes of it, byte for byte (tests/test_bench.py compares the two when kpt is installed).

Ordinary objects are what a platform repository is mostly made of: Deployments with comments, flow
mappings, a literal block holding a shell script with `&&` (an `&` is what once sent the writer back to a
full Python-level parse), and Services, ten to a file. Beside them, `kaito/` holds the ten objects the
function is for: enabled and disabled Workspaces, two of them tuned through inference ConfigMaps.
Standard library only.
"""
from __future__ import annotations

from pathlib import Path

PER_FILE = 10
KAITO_OBJECTS = 10
SEQINDENT = "compact"
# kpt fn eval/source want a Kptfile; kpt passes it along as a local-config item, `render` leaves it out.
KPTFILE = ("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: bench\n"
           "  annotations:\n    config.kubernetes.io/local-config: \"true\"\n")


def _deployment(i: int) -> str:
    return (
        f"# web-{i}: the front end, scaled by the HPA in hpa.yaml\n"
        "apiVersion: apps/v1\n"
        "kind: Deployment\n"
        "metadata:\n"
        f"  name: web-{i} # keep in step with the Service\n"
        f"  namespace: team-{i % 20}\n"
        f"  labels: {{app: web-{i}, tier: front, team: team-{i % 20}}}\n"
        "spec:\n"
        "  replicas: 2\n"
        "  selector:\n"
        f"    matchLabels: {{app: web-{i}}}\n"
        "  template:\n"
        "    metadata:\n"
        f"      labels: {{app: web-{i}, tier: front}}\n"
        "    spec:\n"
        "      containers:\n"
        "      - name: web\n"
        "        image: nginx:1.27 # pinned by Renovate\n"
        "        args: [\"--port\", \"8080\", \"--log-level=info\"]\n"
        "        ports:\n"
        "        - containerPort: 8080\n"
        "          name: http\n"
        "        command:\n"
        "        - sh\n"
        "        - -c\n"
        "        - |\n"
        "          set -eu\n"
        "          test -d /srv/www && echo ready\n"
        "          exec nginx -g 'daemon off;'\n"
        "        resources:\n"
        "          requests: {cpu: 100m, memory: 64Mi}\n"
        "          limits: {memory: 128Mi}\n"
    )


def _service(i: int) -> str:
    return (
        "apiVersion: v1\n"
        "kind: Service\n"
        "metadata:\n"
        f"  name: web-{i}\n"
        f"  namespace: team-{i % 20}\n"
        "spec:\n"
        f"  selector: {{app: web-{i}}}\n"
        "  ports:\n"
        "  - port: 80 # the ingress talks to this one\n"
        "    targetPort: http\n"
    )


def _ordinary(i: int) -> str:
    return _deployment(i) if i % 2 == 0 else _service(i)


def _kaito(j: int) -> str:
    """Ten objects: eight Workspaces (five enabled; two tuned by a ConfigMap) and those two ConfigMaps."""
    if j >= 8:
        k = j - 8
        return (
            "apiVersion: v1\n"
            "kind: ConfigMap\n"
            "metadata:\n"
            f"  name: tuned-{k}\n"
            "  namespace: ml\n"
            "data:\n"
            "  inference_config.yaml: |\n"
            "    # tuned by hand after the load test\n"
            "    vllm:\n"
            f"      max-model-len: {4096 * (k + 1)}\n"
        )
    enabled = "true" if j < 5 else "false"
    preset = ("deepseek-r1-0528", "phi-4", "llama-3.1-8b-instruct")[j % 3]
    # An instance type that holds the model on one node (KAITO's node estimator; else a multi-node warning).
    instance_type = "Standard_ND96isr_H200_v5" if preset == "deepseek-r1-0528" else "Standard_NC24ads_A100_v4"
    config = f"  config: tuned-{j}\n" if j < 2 else ""
    return (
        "apiVersion: kaito.sh/v1beta1\n"
        "kind: Workspace\n"
        "metadata:\n"
        f"  name: ws-{j}\n"
        "  namespace: ml\n"
        "  annotations:\n"
        f"    kaito.sh/enable-speculative-decoding: \"{enabled}\"\n"
        "resource:\n"
        f"  instanceType: {instance_type}\n"
        "  labelSelector:\n"
        f"    matchLabels: {{apps: ws-{j}}}\n"
        "inference:\n"
        "  preset:\n"
        f"    name: {preset}\n"
        f"{config}"
    )


def _orphan(k: int) -> str:
    """A derived ConfigMap no workload references any more: the function retires it."""
    return (
        "apiVersion: v1\n"
        "kind: ConfigMap\n"
        "metadata:\n"
        f"  name: specdec-ngram-{k:010x}\n"
        "  namespace: ml\n"
        "  annotations:\n"
        "    kaito-specdec.dev/derived: \"true\"\n"
        "data:\n"
        "  inference_config.yaml: |\n"
        "    vllm:\n"
        "      speculative-config: '{}'\n"
    )


def files(ordinary: int, kaito: bool = True, orphans: int = 0) -> list[tuple[str, list[str]]]:
    """(relative path, documents) of the package, in the order kpt reads it (sorted paths)."""
    out: list[tuple[str, list[str]]] = [("Kptfile", [KPTFILE])]
    for start in range(0, ordinary, PER_FILE):
        docs = [_ordinary(i) for i in range(start, min(start + PER_FILE, ordinary))]
        out.append((f"apps/app-{start // PER_FILE:05d}.yaml", docs))
    if kaito:
        out.append(("kaito/workspaces.yaml", [_kaito(j) for j in range(KAITO_OBJECTS)]))
    if orphans:
        out.append(("kaito/retired.yaml", [_orphan(k) for k in range(orphans)]))
    return sorted(out)


def one_workspace() -> list[tuple[str, list[str]]]:
    return [("Kptfile", [KPTFILE]), ("workspace.yaml", [_kaito(0).replace("  config: tuned-0\n", "")])]


def write_package(root: Path, layout: list[tuple[str, list[str]]]) -> None:
    """The package as files."""
    for rel, docs in layout:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("---\n".join(docs))


def plain_stream(layout: list[tuple[str, list[str]]]) -> str:
    """The same objects as one `---` stream (what `kustomize build` hands to `render -`), without the
    Kptfile."""
    return "---\n".join(doc for rel, docs in layout if rel != "Kptfile" for doc in docs)


def _indent_item(doc: str, annotations: str) -> str:
    """One document as a `- ` entry of `items:`, with kpt's bookkeeping annotations appended to
    metadata.annotations (created at the end of metadata when missing), as kyaml writes it."""
    lines = doc.splitlines(True)
    meta = lines.index("metadata:\n")
    end = meta + 1
    while end < len(lines) and lines[end].startswith("  "):
        end += 1
    block = lines[meta + 1:end]
    if "  annotations:\n" in block:
        at = meta + 1 + block.index("  annotations:\n") + 1
        while at < end and lines[at].startswith("    "):
            at += 1
        lines[at:at] = annotations.splitlines(True)
    else:
        lines[end:end] = ["  annotations:\n", *annotations.splitlines(True)]
    return "- " + lines[0] + "".join("  " + r if r.strip() else r for r in lines[1:])


def resource_list(layout: list[tuple[str, list[str]]]) -> str:
    """The ResourceList `kpt fn source DIR` writes for the package."""
    parts = ["apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"]
    for rel, docs in layout:
        for index, doc in enumerate(docs):
            ann = (f"    config.kubernetes.io/index: '{index}'\n"
                   f"    config.kubernetes.io/path: '{rel}'\n"
                   f"    internal.config.kubernetes.io/index: '{index}'\n"
                   f"    internal.config.kubernetes.io/path: '{rel}'\n"
                   f"    internal.config.kubernetes.io/seqindent: '{SEQINDENT}'\n")
            parts.append(_indent_item(doc, ann))
    return "".join(parts)


def count(layout: list[tuple[str, list[str]]]) -> int:
    """The objects in the package, the Kptfile left out."""
    return sum(len(docs) for rel, docs in layout if rel != "Kptfile")


__all__ = ["files", "one_workspace", "write_package", "plain_stream", "resource_list", "count"]
