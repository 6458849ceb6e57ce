"""SD2xx: the cascade from parents to children."""

from ._spec import ERROR, INFO, WARNING, Spec

SPECS = (
    Spec("SD201", WARNING, "a MultiRoleInference opts in while KAITO's MultiRoleInference controller is off: nothing cascades",
         "KAITO runs with the feature gate enableMultiRoleInferenceController=false (featureGates setting): it creates no InferenceSets for a MultiRoleInference, so nothing cascades from it"),
    # parents: each parent as `Kind "name"`, joined by " and ".
    Spec("SD202", WARNING, "a child claimed by parents that disagree on the annotation: left as it is",
         {"parents": "claimed by {parents}, which disagree on the opt-in; left as it is",
          "same-name": "claimed by {kind} {name!q} ({count} objects of that name), which disagree on the opt-in; left as it is"}),
    Spec("SD203", ERROR, "a child whose annotations or inference is not a mapping (Kubernetes refuses it)",
         "a child of {kind} {name!q}, but its {path} is not a mapping (Kubernetes refuses the object); make it a mapping",
         can_disable=False),
    Spec("SD204", WARNING, "a MultiRoleInference's child InferenceSet differs from what KAITO's controller makes of it",
         "differs from what MultiRoleInference {name!q} makes of it ({fields}): KAITO's controller replaces these from the MultiRoleInference, so it is checked and decided as KAITO will run it; update the file to match"),
    Spec("SD205", INFO, "the annotation set on a child from its parent",
         "set to {value!q} from {kind} {name!q} (KAITO propagates it to the {child_kind}s it creates)"),
    Spec("SD206", INFO, "the annotation removed from a child, as on its parent",
         "removed, as on {kind} {name!q} (KAITO propagates it to the {child_kind}s it creates)"),
    Spec("SD207", INFO, "the annotation written on a child, where its parent's controller overwrites it",
         {"parent-has-none": "{value!q} here decides nothing: KAITO copies the annotation from {kind} {name!q}, which has none; set it there ({there})",
          "parent-says": "{value!q} here decides nothing: KAITO copies the annotation from {kind} {name!q}, which says {parent_value!q}; set it there ({there})"},
         why=("KAITO's InferenceSet and MultiRoleInference controllers overwrite a child's annotations from the parent: the\n"
              "opt-in written on a Workspace an InferenceSet creates (or on an InferenceSet a MultiRoleInference creates)\n"
              "decides nothing. Set it on the parent, at the field the message names.")),
)
