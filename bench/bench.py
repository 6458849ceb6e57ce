"""Benchmark: time the function on synthetic platform repositories of growing size.

    python bench/bench.py [--sizes 1000,4000,16000] [--repeat 3] [--orphans 500]

Each item triple is a user inference ConfigMap, a Workspace (half of them enabled, a third tuned) and an
unrelated Deployment with comments. Prints seconds per run (median) and items per second, for the C
and the pure-Python YAML backend; the figures in README.md come from here. Not a test: no timing
assertions anywhere in the suite.
"""
from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from krm_fn import yamlio  # noqa: E402
from krm_fn.cli import main  # noqa: E402


def resource_list(triples: int, orphans: int = 0) -> bytes:
    """`triples` item triples, then `orphans` derived ConfigMaps no workload references any more (each
    is retired: the function looks for anything else that mentions it first)."""
    out = ["apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"]
    for i in range(orphans):
        out.append(
            f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: specdec-ngram-{i:010x}\n"
            f"    namespace: ns-{i % 20}\n    annotations:\n      kaito-specdec.dev/derived: \"true\"\n"
            f"  data:\n    inference_config.yaml: |\n      vllm:\n        speculative-config: '{{}}'\n")
    for i in range(triples):
        enabled = "true" if i % 2 else "false"
        preset = "deepseek-r1-0528" if i % 3 == 0 else "phi-4"
        out.append(
            f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm-{i}\n    namespace: ns-{i % 20}\n"
            f"  data:\n    inference_config.yaml: |\n      # tuned by hand\n      vllm:\n"
            f"        max-model-len: {1000 + i}\n"
            f"- apiVersion: kaito.sh/v1beta1\n  kind: Workspace\n  metadata:\n    name: ws-{i}\n"
            f"    namespace: ns-{i % 20}\n    annotations:\n      kaito.sh/enable-speculative-decoding: \"{enabled}\"\n"
            f"  resource:\n    instanceType: Standard_NC24ads_A100_v4\n"
            f"  inference:\n    preset:\n      name: {preset}\n    config: cm-{i}\n"
            f"- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web-{i}  # a comment\n"
            f"  spec:\n    replicas: 2\n    template:\n      spec:\n        containers:\n"
            f"        - name: web\n          image: nginx:1.27\n          args: [\"--port\", \"8080\"]\n")
    return "".join(out).encode()


def run_once(data: bytes) -> float:
    start = time.perf_counter()
    code = main([], stdin=io.BytesIO(data), stdout=io.StringIO(), stderr=io.StringIO(), environ={})
    elapsed = time.perf_counter() - start
    assert code == 0
    return elapsed


def main_bench() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="1000,4000,16000", help="item counts (rounded to triples)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--orphans", type=int, default=0,
                   help="plus this many derived ConfigMaps nothing references (retired)")
    args = p.parse_args()
    backends = ["c", "pure"] if yamlio.C_AVAILABLE else ["pure"]
    print(f"{'items':>7} {'MiB':>6} " + " ".join(f"{b + ' s':>9} {b + ' items/s':>12}" for b in backends))
    for size in (int(s) for s in args.sizes.split(",")):
        data = resource_list(max(1, (size - args.orphans) // 3), args.orphans)
        cells = []
        for backend in backends:
            yamlio.set_backend(backend)
            secs = statistics.median(run_once(data) for _ in range(args.repeat))
            cells.append(f"{secs:>9.2f} {size / secs:>12.0f}")
        print(f"{size:>7} {len(data) / 2**20:>6.1f} " + " ".join(cells))


if __name__ == "__main__":
    main_bench()
