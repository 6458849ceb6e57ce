"""Enable then disable gives back a `sh -c` script written as any block scalar byte for byte (issue #40, class 8):
keep (`|+`) and strip (`|-`) chomping, an indentation indicator (`|2-`, the first line indented further),
trailing blank lines the keep scalar holds, the script ending the file or followed by a key or a document,
in render and in KRM mode."""
from __future__ import annotations

import pytest

from golden import wrap, without_results
from runner import run

ON = 'kaito.sh/enable-speculative-decoding: "true"'
OFF = 'kaito.sh/enable-speculative-decoding: "false"'
HEAD = f"""\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: q
  annotations:
    {ON}
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.0
        command: ["sh", "-c"]
        args:
"""
NEXT = "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n"
SCRIPTS = {
    "keep-ending-the-file": "        - |+\n          echo start\n          vllm serve Qwen/Qwen3.5-4B --port 8000\n",
    "keep-with-blank-lines-ending-the-file":
        "        - |+\n          echo start\n          vllm serve Qwen/Qwen3.5-4B --port 8000\n\n\n",
    "keep-with-blank-lines-then-a-document":
        "        - |+\n          vllm serve Qwen/Qwen3.5-4B\n\n\n" + NEXT,
    "keep-then-an-element": "        - |+\n          vllm serve Qwen/Qwen3.5-4B\n\n        - other\n",
    "keep-one-line": "        - |+\n          vllm serve Qwen/Qwen3.5-4B --port 8000\n",
    "indicator-strip": "        - |2-\n            echo start\n          vllm serve Qwen/Qwen3.5-4B\n",
    "indicator-strip-blank-line-after": "        - |2-\n            echo start\n          vllm serve Qwen/Qwen3.5-4B\n\n",
    "indicator-keep-then-a-document": "        - |2+\n            echo start\n          vllm serve Qwen/Qwen3.5-4B\n\n" + NEXT,
    "indicator-and-chomping-swapped": "        - |-2\n            echo start\n          vllm serve Qwen/Qwen3.5-4B\n",
    "indicator-vllm-first": "        - |2\n          vllm serve Qwen/Qwen3.5-4B\n            --port 8000\n",
    "strip-with-a-trailing-blank-line": "        - |-\n          vllm serve Qwen/Qwen3.5-4B\n\n",
}


def _off(text: str) -> str:
    return text.replace(ON, OFF)


@pytest.mark.parametrize("case", SCRIPTS)
def test_render_enable_then_disable_gives_the_script_back(case: str) -> None:
    text = HEAD + SCRIPTS[case]
    code, on, err = run(["render", "-"], text)
    assert code == 0, err
    assert "--speculative-config=" in on and 'command: ["sh", "-c"]' in on, on  # edited in place
    code, off, err = run(["render", "-"], _off(on))
    assert code == 0, err
    assert off == "---\n" + _off(text), off


@pytest.mark.parametrize("case", SCRIPTS)
def test_krm_enable_then_disable_gives_the_script_back(case: str) -> None:
    text = wrap(HEAD + SCRIPTS[case])
    first = run([], text)
    assert first.code == 0, first.err
    assert "--speculative-config=" in first.out and 'command: ["sh", "-c"]' in first.out, first.out
    second = run([], _off(without_results(first.out)))
    assert second.code == 0, second.err
    assert without_results(second.out) == _off(text)
