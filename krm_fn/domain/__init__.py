"""What KAITO, vLLM and the orchestrators do, as data and pure functions: no item, index or plan here.

KAITO: its kinds and where each keeps the annotation and config references (`kinds`), its presets and the
tuned-or-ngram decision (`presets`), node sizing (`kaito_sizing`), the inference ConfigMap's document
(`inference_config`), derived ConfigMaps (`derived`), pod names (`pod_names`) and the PrometheusRule's text
(`monitoring`). vLLM: its `--speculative-config` schema per release (`vllm_schema`), what a release does with a
command line (`vllm_releases`), reading a container's command (`vllm_command`, `shellwords`, `vllm_model`), and
the plain workloads that run it (`plain_kinds`, `plain_workloads`). kustomize and kpt: their configuration
among the items (`localconfig`).
"""
