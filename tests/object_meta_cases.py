"""An object's metadata as kubectl 1.32 decodes it (ObjectMeta's Go types): each case's metadata lines (below
`name: a` of a ConfigMap) and kubectl's verdict, measured with `kubectl label --local -f F x=y -o json` —
None where kubectl reads the object, else the one field it refuses (SD067's field). Held against the real kubectl
by tests/e2e/test_e2e_object_meta.py; the schema check by tests/domain/test_object_meta.py.
"""

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"

CASES: dict[str, tuple[str, str | None]] = {
    # generation: int64
    "generation-string": ('generation: "5"', "metadata.generation"),
    "generation-fraction": ("generation: 5.5", "metadata.generation"),
    "generation-int": ("generation: 5", None),
    "generation-whole-float": ("generation: 2.0", None),
    "generation-exponent": ("generation: 1e21", "metadata.generation"),
    "generation-int64-max": ("generation: 9223372036854775807", None),
    "generation-past-int64": ("generation: 9223372036854775808", "metadata.generation"),
    "generation-boolean": ("generation: true", "metadata.generation"),
    "generation-null": ("generation: null", None),
    "generation-capitalized": ('Generation: "5"', None),  # case-sensitive: an unknown field
    "deletion-grace-string": ('deletionGracePeriodSeconds: "x"', "metadata.deletionGracePeriodSeconds"),
    "deletion-grace-int": ("deletionGracePeriodSeconds: 30", None),
    # Time
    "creation-number": ("creationTimestamp: 5", "metadata.creationTimestamp"),
    "creation-text": ('creationTimestamp: "x"', "metadata.creationTimestamp"),
    "creation-null": ("creationTimestamp: null", None),
    "creation-unquoted": ("creationTimestamp: 2024-01-01T00:00:00Z", None),
    "creation-date": ("creationTimestamp: 2024-01-01", "metadata.creationTimestamp"),
    "creation-mapping": ("creationTimestamp: {a: b}", "metadata.creationTimestamp"),
    "deletion-time": ('deletionTimestamp: "2024-01-01T00:00:00+02:00"', None),
    "deletion-time-bad": ('deletionTimestamp: "2024-02-30T00:00:00Z"', "metadata.deletionTimestamp"),
    # strings
    "uid-number": ("uid: 5", "metadata.uid"),
    "uid-binary": ("uid: !!binary aGk=", None),  # go-yaml v2 decodes it into the string "hi"
    "resource-version-number": ("resourceVersion: 5", "metadata.resourceVersion"),
    "self-link-number": ("selfLink: 5", "metadata.selfLink"),
    "generate-name-number": ("generateName: 5", "metadata.generateName"),
    "namespace-mapping": ("namespace: {a: b}", "metadata.namespace"),
    # finalizers: []string
    "finalizers-number": ("finalizers: [5]", "metadata.finalizers[0]"),
    "finalizers-string": ("finalizers: x", "metadata.finalizers"),
    "finalizers-strings": ("finalizers: [a/b, 'c']", None),
    "finalizers-null-entry": ("finalizers: [null]", None),
    "finalizers-empty": ("finalizers: []", None),
    # managedFields: []ManagedFieldsEntry
    "managed-manager-number": ("managedFields: [{manager: 5}]", "metadata.managedFields[0].manager"),
    "managed-time-number": ("managedFields: [{time: 5}]", "metadata.managedFields[0].time"),
    "managed-fields-v1-anything": ("managedFields: [{fieldsV1: 5, manager: m, time: '2024-01-01T00:00:00Z'}]", None),
    "managed-not-a-list": ("managedFields: {manager: m}", "metadata.managedFields"),
    # ownerReferences: []OwnerReference
    "owner-uid-number": ("ownerReferences: [{apiVersion: v1, kind: K, name: owner, uid: 5}]",
                         "metadata.ownerReferences[0].uid"),
    "owner-name-number": ("ownerReferences: [{apiVersion: v1, kind: K, name: 5, uid: u}]",
                          "metadata.ownerReferences[0].name"),
    "owner-kind-exponent": ("ownerReferences: [{apiVersion: v1, kind: 1e21, name: owner, uid: u}]",
                            "metadata.ownerReferences[0].kind"),
    "owner-controller-string": ("ownerReferences: [{apiVersion: v1, kind: K, name: owner, uid: u, controller: 'true'}]",
                                "metadata.ownerReferences[0].controller"),
    "owner-controller-block-string": ("ownerReferences:\n  - apiVersion: v1\n    kind: K\n    name: owner\n    uid: u\n"
                                      "    controller: |-\n      true", "metadata.ownerReferences[0].controller"),
    "owner-block-deletion-number": ("ownerReferences: [{apiVersion: v1, kind: K, name: owner, uid: u, "
                                    "blockOwnerDeletion: 1}]", "metadata.ownerReferences[0].blockOwnerDeletion"),
    "owner-controller-null": ("ownerReferences: [{apiVersion: v1, kind: K, name: owner, uid: u, controller: null}]", None),
    "owner-controller-yes": ("ownerReferences: [{apiVersion: v1, kind: K, name: owner, uid: u, controller: yes}]", None),
    "owner-extra-key": ("ownerReferences: [{apiVersion: v1, kind: K, name: owner, uid: u, extra: 5}]", None),
    "owners-mapping": ("ownerReferences: {}", "metadata.ownerReferences"),
    "owners-number-entry": ("ownerReferences: [5]", "metadata.ownerReferences[0]"),
    "owners-empty": ("ownerReferences: []", None),
    "owners-second": ("ownerReferences:\n  - {apiVersion: v1, kind: K, name: owner, uid: u}\n  - {apiVersion: v1, "
                      "kind: K, name: other, uid: 7}", "metadata.ownerReferences[1].uid"),
    # labels and annotations that are no mapping (their values are SD066's)
    "labels-list": ("labels: []", "metadata.labels"),
    "labels-number": ("labels: 5", "metadata.labels"),
    "annotations-string": ("annotations: x", "metadata.annotations"),
    "annotations-list": ("annotations: [a]", "metadata.annotations"),
    "labels-null": ("labels:", None),
    # unknown fields pass
    "unknown-field": ("unknownField: 5", None),
    # through an alias and a merge key (the reader reads those from the data)
    "alias-value": ("labels: {a: &g '5'}\ngeneration: *g", "metadata.generation"),
    "merge-key": ("<<: {generation: '5'}", "metadata.generation"),
}

# Strings as a Time (time.Parse(time.RFC3339, …)): kubectl 1.32's verdict, True where it reads one.
TIMES: dict[str, bool] = {
    "2024-01-01T00:00:00Z": True,
    "2024-02-30T00:00:00Z": False,          # day out of range
    "2023-02-29T00:00:00Z": False,
    "2024-02-29T00:00:00Z": True,
    "2024-01-01t00:00:00Z": False,          # cannot parse "t00:00:00Z" as "T"
    "2024-01-01": False,
    "2024-01-01T5:04:05Z": True,            # an hour of one digit (the general parser)
    "2024-01-01T00:00:00,5Z": True,         # a comma before the fraction
    "2024-01-01T00:00:00.1234567891234Z": True,
    "2024-01-01T00:00:00.Z": False,
    "2024-01-01T00:00:00+24:00": True,
    "2024-01-01T00:00:00+00:60": True,
    "2024-01-01T00:00:00+25:00": False,     # time zone offset hour out of range
    "2024-01-01T00:00:00-00:00": True,
    "2024-01-01T00:00:00+0000": False,
    "2024-01-01T00:00:00z": False,
    "2024-01-01T24:00:00Z": False,          # hour out of range
    "2024-01-01T00:00:60Z": False,
    "2024-01-01 00:00:00Z": False,
    "2024-1-01T00:00:00Z": False,
    "2024-01-01T00:0:00Z": False,
    " 2024-01-01T00:00:00Z": False,
    "+024-01-01T00:00:00Z": False,
    "0000-01-01T00:00:00Z": True,
    "2024-13-01T00:00:00Z": False,
    "2024-00-01T00:00:00Z": False,
    "2024-01-00T00:00:00Z": False,
    "2024-01-32T00:00:00Z": False,
    "2024-01-01T00:00:00Zx": False,         # extra text
    "x": False,
}
