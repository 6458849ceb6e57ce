"""SD5xx: render and its files."""

from ._spec import ERROR, INFO, WARNING, Spec

SPECS = (
    Spec("SD501", WARNING, "render: a kustomization is rendered as it is, not built",
         "{folder} is a kustomization: render does not build it (its patches, generators, transformers and name prefixes are not applied) and leaves its kustomize configuration out; to build it, run `kustomize build {folder} | kaito-specdec render -`"),
    # `reason`: the reader's words (SD001's) for the file that is not YAML.
    Spec("SD502", ERROR, "a file looks like a Helm template",
         "{reason}; this looks like a Helm template: render the chart with `helm template` and pipe that in",
         can_disable=False, could_not_judge=True),
    Spec("SD503", ERROR, "render: stdin is empty",
         "stdin is empty: no manifests to render (when a command piped into kaito-specdec failed, its own error above says why)",
         can_disable=False, could_not_judge=True),
    Spec("SD504", ERROR, "render: the input holds no Kubernetes objects",
         "no Kubernetes objects in the input ({sources}); expected manifests",
         can_disable=False, could_not_judge=True),
    Spec("SD505", ERROR, "render: no object in the input is a manifest for a cluster",
         "nothing to write: none of the {count} objects in the input is a manifest for a cluster (kustomize or kpt configuration, local-config objects, derived ConfigMaps no workload uses); an empty stream would make Argo CD prune everything",
         can_disable=False, could_not_judge=True),
    # `folders`: the kustomizations that would have been built, `install`: how to get a kustomize.
    Spec("SD506", WARNING, "render: no kustomize to build the kustomizations with",
         "no kustomize found (standalone `kustomize`, or `kubectl kustomize`) to build {folders}: their files are read unbuilt; {install}",
         can_disable=False),
    # `reason`: kustomize's error on one line (domain/kustomize_tree.build_error: kubectl's without klog's header).
    Spec("SD507", ERROR, "render: a kustomization does not build",
         "`{command}` failed: {reason}",
         can_disable=False),
    # `named`: the program --kustomize or KAITO_SPECDEC_KUSTOMIZE names.
    Spec("SD509", ERROR, "render: the kustomize named cannot be run",
         "{named!q} (--kustomize or KAITO_SPECDEC_KUSTOMIZE) is no program that can be run, so the kustomizations ({folders}) are judged unbuilt; name a kustomize or kubectl on PATH, or a path to one",
         why="A kustomize named on purpose is one the run was required to build with: judging the folders as loose files instead would give findings kustomize's build never has (SD501, SD008), so the run says it could not judge them and exits 2.",
         can_disable=False, could_not_judge=True),
    Spec("SD508", ERROR, "render: materialize over several kustomize roots",
         "nothing written: {count} kustomizations are built from the folders given ({roots}) and render writes one stream; name one of them, or run with --mode validate",
         can_disable=False, could_not_judge=True),
    Spec("SD510", ERROR, "stdin is closed",
         "stdin is closed; expected {what} on stdin",
         can_disable=False, could_not_judge=True),
    Spec("SD511", ERROR, "stdin cannot be read",
         "stdin: cannot read: {reason}",
         can_disable=False, could_not_judge=True),
    Spec("SD512", ERROR, "the input is larger than the input size limit",
         "{source}: the input is larger than the limit of {limit}; raise it with KAITO_SPECDEC_MAX_INPUT (e.g. 1Gi) or `render --max-input` if that much is expected",
         can_disable=False, could_not_judge=True),
    # `reason`: the system's words (strerror), such as "No such file or directory".
    Spec("SD513", ERROR, "a file or folder named on the command line cannot be opened",
         "{path}: {reason}",
         can_disable=False, could_not_judge=True),
    Spec("SD514", ERROR, "a path that is not a regular file",
         "{path}: {kind}, not a regular file; render reads regular files and folders only (use - for stdin)",
         can_disable=False, could_not_judge=True),
    Spec("SD515", ERROR, "a folder that cannot be listed",
         "{folder}: cannot read the folder: {reason}; its manifests would be missing",
         can_disable=False, could_not_judge=True),
    Spec("SD516", ERROR, "a broken symlink",
         "{path}: a broken symlink (to {target}); remove it or restore its target",
         can_disable=False, could_not_judge=True),
    Spec("SD517", ERROR, "a symlink to a file outside the folders given",
         "{path}: a symlink to {target}, outside the folders given; not followed (name that file or its folder on the command line to render it)",
         can_disable=False, could_not_judge=True),
    Spec("SD518", ERROR, "the --config file is not YAML",
         "{path}: not a valid functionConfig: {reason}",
         can_disable=False, could_not_judge=True),
    # A SpeculativeDecodingPolicy among render's inputs (model/policies.py, docs/settings.md "A policy among the
    # inputs"): with no --config (nor a piped ResourceList's functionConfig) one is the configuration (SD526);
    # a second, or one that differs from the configuration given, is refused naming both places.
    Spec("SD525", ERROR, "render: a SpeculativeDecodingPolicy among the inputs that cannot be the configuration",
         {"two": "a second SpeculativeDecodingPolicy among the inputs (the first: {first}); render takes one as its configuration: keep one, or name it with --config",
          "config": "a SpeculativeDecodingPolicy among the inputs that differs from --config, the configuration: leave out --config to use it, or remove it, or make the two the same",
          "piped": "a SpeculativeDecodingPolicy among the inputs that differs from the piped ResourceList's functionConfig, the configuration: keep one of them, or make the two the same"},
         can_disable=False, could_not_judge=True),
    Spec("SD526", INFO, "render: the SpeculativeDecodingPolicy among the inputs is the configuration",
         "the configuration of this run (no --config given): its spec holds the settings; it is not written out"),
    # `reason`: the system's words (strerror). The report it could not hold goes to stderr, this error with it.
    Spec("SD519", ERROR, "the --output file cannot be written",
         "--output {path}: cannot write the report: {reason}; it is on stderr instead",
         can_disable=False, could_not_judge=True),
)
