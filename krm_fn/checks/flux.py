"""A value Flux fills in after the function ran: kustomize-controller's `postBuild.substitute` replaces
`${VAR}` (and `${VAR:=default}`, `${VAR:-default}`) in the rendered manifests before it applies them. The
function cannot know what KAITO's webhook will see there, so a check leaves such a value alone rather than
fail a pipeline on `name: phi-4-${CLUSTER}` (as written, the API server refuses it anyway: `$` is in no name).
"""


def substituted_later(value: object) -> bool:
    return isinstance(value, str) and "${" in value
