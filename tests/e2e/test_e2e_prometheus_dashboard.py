"""Every panel of the Grafana dashboard (grafanaDashboards) run on a real Prometheus server: Debian's `prometheus`
(`.ci/run` installs the package), started on loopback on a free port with a temporary storage folder.

Series shaped as vLLM exports them (the names, types and `model_name`/`engine` labels of vLLM's
PrometheusStatLogger, vllm/v1/metrics/loggers.py, and SpecDecodingProm, vllm/v1/spec_decode/metrics.py, v0.10.2
to v0.28.0; the scrape's `namespace`, `pod`, `job`, `instance`, `container`) are written as OpenMetrics and loaded
into the TSDB with `promtool tsdb create-blocks-from openmetrics`; the rendered PrometheusRule's groups are the
server's rule file. Every series is linear (a constant rate per pod) and every pod's samples share timestamps, so:

- at a fixed evaluation time inside the recorded history, each record's own expression (the server does not
  evaluate rules over backfilled history) returns exactly the figure computed here from the per-pod rates;
- once the server has evaluated the rules at the present time, each panel's expression, with the variables set as
  Grafana sets them, returns the same as the record's expression evaluated at that sample's timestamp; and for
  the ratios and the gauge, whose figures do not depend on where the window ends, exactly the computed figure.
"""
from __future__ import annotations

import json
import math
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from typing import Any, NamedTuple

import pytest
import yaml

from e2e_support import clean_env, describe, specdec_executable

STEP = 15                 # seconds between samples, as a scrape interval
HISTORY = 40 * 60         # seconds of recorded series
NAMESPACE = "team-a"
WORKSPACE = """apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: {name}
  namespace: {namespace}
  annotations:
    kaito.sh/enable-speculative-decoding: "true"
resource:
  instanceType: Standard_NC24ads_A100_v4
inference:
  preset:
    name: phi-4
"""


class Pod(NamedTuple):
    namespace: str
    name: str
    owner: str | None      # the Workspace whose pod it is (None: a look-alike no record may count)
    drafts: float          # per second
    draft_tokens: float
    accepted: float
    generated: float
    finished: float
    queries: float         # prefix-cache queried tokens per second
    hits: float
    running: float         # requests running (a gauge)


PODS = [
    Pod(NAMESPACE, "phi-4-0", "phi-4", 10, 40, 24, 34, 1, 500, 200, 7),
    Pod(NAMESPACE, "phi-4-1", "phi-4", 6, 24, 9, 15, 0.5, 300, 30, 3),
    Pod(NAMESPACE, "llama-0", "llama", 4, 12, 3, 7, 0.25, 100, 0, 2),
    # A Deployment's pod `phi-4-<hash>-<5>` and the same names in another namespace: counted by no record.
    Pod(NAMESPACE, "phi-4-5d8f9-bcdfg", None, 100, 100, 100, 200, 9, 900, 900, 50),
    Pod("team-b", "phi-4-0", None, 100, 100, 1, 101, 9, 900, 900, 50),
    Pod("team-b", "llama-0", None, 100, 100, 1, 101, 9, 900, 900, 50),
]
COUNTERS = {  # family (vLLM's name; the sample adds _total) -> the pod's rate
    "vllm:spec_decode_num_drafts": lambda p: p.drafts,
    "vllm:spec_decode_num_draft_tokens": lambda p: p.draft_tokens,
    "vllm:spec_decode_num_accepted_tokens": lambda p: p.accepted,
    "vllm:generation_tokens": lambda p: p.generated,
    "vllm:prefix_cache_queries": lambda p: p.queries,
    "vllm:prefix_cache_hits": lambda p: p.hits,
}


def _labels(pod: Pod, i: int, **more: str) -> str:
    labels = {"namespace": pod.namespace, "pod": pod.name, "model_name": "microsoft/phi-4", "engine": "0",
              "job": "vllm", "instance": f"10.0.0.{i + 1}:5000", "container": "vllm", **more}
    return ",".join(f'{k}="{v}"' for k, v in labels.items())


def openmetrics(start: int, end: int) -> str:
    """The pods' series from `start` to `end` (seconds), one sample every STEP, as OpenMetrics."""
    times = range(start, end + 1, STEP)
    lines = []
    for family, rate in COUNTERS.items():
        lines.append(f"# TYPE {family} counter")
        for i, pod in enumerate(PODS):
            lines += [f"{family}_total{{{_labels(pod, i)}}} {rate(pod) * (t - start + 3600):.6f} {t}" for t in times]
    lines.append("# TYPE vllm:request_success counter")
    for i, pod in enumerate(PODS):
        for reason, share in (("stop", 0.75), ("length", 0.25)):
            labels = _labels(pod, i, finished_reason=reason)
            lines += [f"vllm:request_success_total{{{labels}}} {pod.finished * share * (t - start + 3600):.6f} {t}"
                      for t in times]
    lines.append("# TYPE vllm:num_requests_running gauge")
    for i, pod in enumerate(PODS):
        lines += [f"vllm:num_requests_running{{{_labels(pod, i)}}} {pod.running} {t}" for t in times]
    lines.append("# EOF")
    return "\n".join(lines) + "\n"


def expected(workload: str) -> dict[str, float]:
    """Each record the panels read, for one workload, from its pods' rates."""
    pods = [p for p in PODS if p.owner == workload]
    total = {field: sum(getattr(p, field) for p in pods) for field in Pod._fields[3:]}
    return {
        "kaito_specdec:acceptance_rate:ratio_rate5m": total["accepted"] / total["draft_tokens"],
        "kaito_specdec:mean_acceptance_length:rate5m": 1 + total["accepted"] / total["drafts"],
        "kaito_specdec:drafts:increase15m": total["drafts"] * 900,
        "kaito_specdec:decode_tokens:increase15m": (total["generated"] - total["finished"]) * 900,
        "kaito_specdec:prefix_cache_hit_ratio:ratio_rate5m": total["hits"] / total["queries"],
        "kaito_specdec:requests_running:sum": total["running"],
    }


# Records whose figure does not depend on where the window ends (ratios of rates over the same samples; a gauge).
WINDOW_FREE = ("kaito_specdec:acceptance_rate:ratio_rate5m", "kaito_specdec:mean_acceptance_length:rate5m",
               "kaito_specdec:prefix_cache_hit_ratio:ratio_rate5m", "kaito_specdec:requests_running:sum")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"

    def get(self, path: str, **params: Any) -> Any:
        url = f"{self.base}{path}?{urllib.parse.urlencode(params)}" if params else f"{self.base}{path}"
        with urllib.request.urlopen(url, timeout=30) as response:  # loopback only
            return json.loads(response.read()) if path.startswith("/api/") else response.read()

    def query(self, expr: str, at: float | None = None) -> list[dict[str, Any]]:
        params: dict[str, Any] = {"query": expr}
        if at is not None:
            params["time"] = f"{at:.3f}"
        answer = self.get("/api/v1/query", **params)
        assert answer["status"] == "success", answer
        result: list[dict[str, Any]] = answer["data"]["result"]
        return result


def _wait(check: Any, what: str, tries: int = 240) -> Any:
    """Poll `check` (twice a second, `tries` times) until it returns something; fail naming `what`."""
    for _ in range(tries):
        try:
            found = check()
        except OSError:
            found = None
        if found:
            return found
        time.sleep(0.5)
    pytest.fail(f"the Prometheus server never {what}")


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any]]:
    """The rule and the dashboard kaito-specdec renders for the two Workspaces of team-a."""
    stream = "---\n".join(WORKSPACE.format(name=n, namespace=NAMESPACE) for n in ("phi-4", "llama"))
    path = tmp_path_factory.mktemp("render") / "workspaces.yaml"
    path.write_text(stream, encoding="utf-8")
    proc = subprocess.run([str(specdec_executable()), "render", "--grafana-dashboards", str(path)],
                          capture_output=True, text=True, env=clean_env(), check=False)
    assert proc.returncode == 0, describe(proc)
    docs = [d for d in yaml.safe_load_all(proc.stdout) if d]
    rule, = [d for d in docs if d["kind"] == "PrometheusRule"]
    cm, = [d for d in docs if d["kind"] == "ConfigMap" and (d["metadata"].get("labels") or {}).get("grafana_dashboard")]
    board = json.loads(next(iter(cm["data"].values())))
    return rule, board


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, rendered: tuple[dict[str, Any], dict[str, Any]]) -> Any:
    prometheus, promtool = shutil.which("prometheus"), shutil.which("promtool")
    if not prometheus or not promtool:
        pytest.skip("prometheus and promtool (Debian's package `prometheus`, which .ci/run installs) are not on PATH")
    rule, _ = rendered
    work = tmp_path_factory.mktemp("prometheus")
    end = int(time.time()) // STEP * STEP - 2 * STEP     # the last sample: in the past, so the head takes the rules'
    start = end - HISTORY
    series = work / "series.om"
    series.write_text(openmetrics(start, end), encoding="utf-8")
    data = work / "data"
    proc = subprocess.run([promtool, "tsdb", "create-blocks-from", "openmetrics", str(series), str(data)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, describe(proc)
    groups = [{**g, "interval": "1s"} for g in rule["spec"]["groups"]]
    (work / "rules.yaml").write_text(yaml.safe_dump({"groups": groups}), encoding="utf-8")
    (work / "prometheus.yml").write_text(yaml.safe_dump({"global": {"evaluation_interval": "1s"},
                                                         "rule_files": [str(work / "rules.yaml")]}), encoding="utf-8")
    proc = subprocess.run([promtool, "check", "config", str(work / "prometheus.yml")], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, describe(proc)
    port = _free_port()
    log = (work / "prometheus.log").open("w")
    process = subprocess.Popen([prometheus, f"--config.file={work / 'prometheus.yml'}", f"--storage.tsdb.path={data}",
                                f"--web.listen-address=127.0.0.1:{port}", "--storage.tsdb.retention.time=3650d"],
                               stdout=log, stderr=subprocess.STDOUT, cwd=work)
    try:
        srv = Server(port)
        _wait(lambda: process.poll() is None and srv.get("/-/ready"), "got ready")
        yield srv, end
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def _records(rule: dict[str, Any]) -> dict[tuple[str, str], str]:
    """(record, workload) -> its expression, from the rendered rule."""
    return {(r["record"], r["labels"]["kaito_workload"]): r["expr"]
            for g in rule["spec"]["groups"] for r in g["rules"] if "record" in r}


def _panel_exprs(board: dict[str, Any]) -> list[tuple[str, str]]:
    """(panel title, expression) of every target, with the variables as Grafana sets them: the namespace, and
    All the workloads (a regex of the values, as Grafana writes a multi-value variable for Prometheus)."""
    out = []
    for panel in board["panels"]:
        for target in panel["targets"]:
            expr = target["expr"].replace("$namespace", NAMESPACE).replace("$kaito_workload", "(llama|phi-4)")
            out.append((panel["title"], expr))
    return out


def _by_workload(result: list[dict[str, Any]]) -> dict[str, float]:
    return {r["metric"]["kaito_workload"]: float(r["value"][1]) for r in result}


def test_each_records_expression_gives_the_figures_of_the_series(server: Any,
                                                                 rendered: tuple[dict[str, Any], dict[str, Any]]) -> None:
    srv, end = server
    rule, board = rendered
    records = _records(rule)
    read = {expr.split("{")[0] for _, expr in _panel_exprs(board)}
    assert read == set(expected("phi-4"))
    for (record, workload), expr in sorted(records.items()):
        if record not in read:
            continue
        result = srv.query(expr, at=end)
        assert [r["metric"] for r in result] == [{"namespace": NAMESPACE}], (record, workload, result)
        assert math.isclose(float(result[0]["value"][1]), expected(workload)[record], rel_tol=1e-9), (record, workload)


def test_every_panel_reads_the_records_the_server_evaluates(server: Any,
                                                            rendered: tuple[dict[str, Any], dict[str, Any]]) -> None:
    srv, _ = server
    rule, board = rendered
    records = _records(rule)
    everyone = "|".join(f"({name})" for name in sorted(expected("phi-4")))
    _wait(lambda: len(srv.query(f'count by (__name__) ({{__name__=~"{everyone}"}})')) == len(expected("phi-4")),
          "evaluated every record")
    for title, expr in _panel_exprs(board):
        record = expr.split("{")[0]
        # The sample the panel reads, and when the server recorded it.
        stamped = _by_workload(srv.query(f"timestamp({expr})"))
        got = _by_workload(srv.query(expr))
        assert sorted(got) == ["llama", "phi-4"], (title, expr, got)
        for workload, value in got.items():
            raw = srv.query(records[(record, workload)], at=stamped[workload])
            assert math.isclose(value, float(raw[0]["value"][1]), rel_tol=1e-9), (title, workload)
            if record in WINDOW_FREE:
                assert math.isclose(value, expected(workload)[record], rel_tol=1e-9), (title, workload)
