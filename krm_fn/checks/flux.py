"""A value Flux fills in after the function ran (kustomize-controller's `postBuild.substitute` of `${VAR}`,
`${VAR:=default}`, `${VAR:-default}`; docs/checks.md): a check leaves it alone rather than fail a pipeline on
`name: phi-4-${CLUSTER}`, which the function cannot judge.
"""


def substituted_later(value: object) -> bool:
    return isinstance(value, str) and "${" in value
