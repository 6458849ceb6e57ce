"""SD5xx: render and its files."""

from ._spec import ERROR, WARNING, Spec

SPECS = (
    # krm_fn.stages.placement
    Spec("SD501", WARNING, "render: a kustomization is rendered as it is, not built",
         "… is a kustomization: render does not build it (its patches, generators, transformers and name prefixes are not applied) and leaves its kustomize configuration out; to build it, run `kustomize build … | kaito-specdec render -`"),
    # krm_fn.text.streams
    Spec("SD502", ERROR, "a file looks like a Helm template",
         "…; this looks like a Helm template: render the chart with `helm template` and pipe that in",
         can_disable=False),
    # krm_fn.text.streams
    Spec("SD503", ERROR, "render: stdin is empty",
         "stdin is empty: no manifests to render (when a command piped into kaito-specdec failed, its own error above says why)",
         can_disable=False),
    # krm_fn.text.streams
    Spec("SD504", ERROR, "render: the input holds no Kubernetes objects",
         "no Kubernetes objects in the input (…); expected manifests",
         can_disable=False),
    # krm_fn.text.streams
    Spec("SD505", ERROR, "render: no object in the input is a manifest for a cluster",
         "nothing to write: none of the … objects in the input is a manifest for a cluster (kustomize or kpt configuration, local-config objects, derived ConfigMaps no workload uses); an empty stream would make Argo CD prune everything",
         can_disable=False),
    # krm_fn.text.streams
    Spec("SD510", ERROR, "stdin is closed",
         "stdin is closed; expected … on stdin",
         can_disable=False),
    # krm_fn.text.streams
    Spec("SD511", ERROR, "stdin cannot be read",
         "stdin: cannot read: …",
         can_disable=False),
    # krm_fn.text.streams
    Spec("SD512", ERROR, "the input is larger than the input size limit",
         "…: the input is larger than the limit of …; raise it with KAITO_SPECDEC_MAX_INPUT (e.g. 1Gi) or `render --max-input` if that much is expected",
         can_disable=False),
    # krm_fn.text.streams
    Spec("SD513", ERROR, "a file or folder named on the command line cannot be opened",
         "…: …",
         can_disable=False),
    # krm_fn.text.streams
    Spec("SD514", ERROR, "a path that is not a regular file",
         "…: …, not a regular file; render reads regular files and folders only (use - for stdin)",
         can_disable=False),
    # krm_fn.text.streams
    Spec("SD515", ERROR, "a folder that cannot be listed",
         "…: cannot read the folder: …; its manifests would be missing",
         can_disable=False),
    # krm_fn.text.streams
    Spec("SD516", ERROR, "a broken symlink",
         "…: a broken symlink (to …); remove it or restore its target",
         can_disable=False),
    # krm_fn.text.streams
    Spec("SD517", ERROR, "a symlink to a file outside the folders given",
         "…: a symlink to …, outside the folders given; not followed (name that file or its folder on the command line to render it)",
         can_disable=False),
    # krm_fn.text.streams
    Spec("SD518", ERROR, "the --config file is not YAML",
         "…: not a valid functionConfig: …",
         can_disable=False),
)
