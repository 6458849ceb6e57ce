"""SD0xx: the input, its shape, the settings, reading and writing."""

from ._spec import ERROR, WARNING, Spec

SPECS = (
    # The reader's own words (text/reader.py, yamlio.py: InputError), which name the file, line and fault in as
    # many ways as YAML and the ResourceList can go wrong: the finding carries them as they are.
    Spec("SD001", ERROR, "the input cannot be read (not UTF-8, not YAML, not a ResourceList)",
         "{reason}",
         can_disable=False),
    # `reason`: the reader's words for the empty input.
    Spec("SD002", ERROR, "the input is empty because a command piped into kaito-specdec failed",
         "{reason} (when a command piped into kaito-specdec failed, its own error above says why)",
         can_disable=False, could_not_judge=True),
    # `where`: the item's document and line (stages/shape.py), for an item that may have no name to show.
    Spec("SD003", ERROR, "an item is no Kubernetes object (not a mapping, no kind or apiVersion, no name, a Helm or CI file)",
         {"not-a-mapping": "{where} is not a mapping; every item must be a Kubernetes object",
          "missing-field": "{where} has no {path} (a non-empty string)",
          "helm-file": "{where} is {what}, not a Kubernetes object (it has no kind); give kaito-specdec manifests only (render a chart with `helm template` first)",
          "other-file": "{where} is {what}, not a Kubernetes object (it has no kind); give kaito-specdec manifests only",
          "no-kind-or-api-version": "{where} is not a Kubernetes object: it has neither apiVersion nor kind",
          "unquoted-timestamp": "{where}: {path} {text} is unquoted: kubectl reads the text, kustomize and kpt a timestamp they write back in another form; write it in quotes",
          "unquoted-not-a-string": "{where}: {path} has invalid value {text} (unquoted, YAML reads it as {reads}); the API server refuses anything but a string here: write it in quotes"},
         can_disable=False),
    Spec("SD004", ERROR, "an item has a key twice",
         {"merge-key": "{where}: the key << appears twice (line {first} and line {second}); kustomize and kpt refuse such a document, and kubectl reads it otherwise: keep one << (it takes a list of mappings to merge)",
          "key": "{where}: the key {key!q} appears twice (line {first} and line {second}); Kubernetes refuses such a document"},
         can_disable=False),
    Spec("SD008", WARNING, "the same object twice in the input",
         "the same object as {first} (kind, namespace and name): one of them would be lost",
         why="One stream (materialize mode, kpt, a pipe) holding the same object twice is applied as one of them. In `--mode validate` nothing is merged: the same object in files of two folders is a copy per cluster or environment, as GitOps repositories keep them (each folder synced on its own), and is said only when both are in one folder."),
    Spec("SD009", ERROR, "a KAITO object or ConfigMap whose fields cannot be read",
         "cannot be read as a Kubernetes object: {reason}",
         can_disable=False),
    Spec("SD010", WARNING, "a file beside a kustomization, not listed by it, that looks like kustomize's own: left out",
         "{where} looks like kustomize configuration the kustomization in {folder} does not list: left out; list it there if used, or in .krmignore (kpt) if not",
         why=("A file beside a kustomization that the kustomization does not list, and that looks like kustomize's own (a\n"
              "patch, or `kustomizeconfig.yaml`, as kubebuilder scaffolds): it is left out as configuration. List it in the\n"
              "kustomization if it is used, or in the package's `.krmignore` (kpt) if it is not.")),
    Spec("SD011", WARNING, "the kaito-specdec.dev/disable annotation names what it cannot turn off",
         {"not-a-string": 'kaito-specdec.dev/disable is not a string of ids such as "SD412,SD420"; it is ignored',
          "malformed-id": "kaito-specdec.dev/disable: {entry!q} is no finding id (SD and three digits); it is ignored",
          "unknown-id": "kaito-specdec.dev/disable: {entry!q} is no finding id of this version; it is ignored",
          "cannot-disable": "kaito-specdec.dev/disable: {entry!q} cannot be turned off (`kaito-specdec explain {entry}` says why); it is ignored"}),
    Spec("SD012", WARNING, "a file ends in a block scalar without a final line break: kubectl and kustomize read its value apart",
         "the file ends in this block scalar without a line break: kubectl reads its value with one more final line break than kustomize, kpt and the output do; end the file with a line break"),
    # `line`, `column`: where kubectl's JSON decoder stops (refusals.kubectl_json_fault).
    Spec("SD013", WARNING, "a file kubectl reads as JSON (it starts with `{`) is no JSON: kubectl refuses it, kustomize and kpt read it as YAML",
         "kubectl reads this file as JSON (it starts with `{{`) and refuses it (no JSON at line {line}, column {column}); kustomize and kpt read it as YAML, as kaito-specdec does: write JSON, or put `---` first",
         why=("kubectl (`apply -f`, `create -f`) looks at the first bytes of each file: one whose first character but\n"
              "spaces is `{` is read as a stream of JSON values, anything else as YAML. Flow YAML there (unquoted keys),\n"
              "or JSON with a comment, a trailing comma, NaN or a `---` document after it, is refused by kubectl and read\n"
              "by kustomize and kpt, which read every file as YAML; kaito-specdec reads it as they do, and `render`'s\n"
              "output (which starts with `---`) reads as YAML to kubectl too. Write the file as JSON, or start it with\n"
              "`---` or a comment line so that kubectl reads it as YAML.")),
    # `text`: the value as written (stages/shape.py); the field is the result's.
    Spec("SD017", ERROR, "a number with a fraction in an integer field: the API server refuses it",
         "{text} is a number with a fraction: kubectl and kustomize send it as it is and the API server refuses it in this integer field; write a whole number",
         why=("kubectl and kustomize send a whole number written as a float (`2.0`, `2e0`, `!!float 2`) as the integer\n"
              "(`2`), and the function reads it so; one with a fraction (`2.5`) is sent as it is, and the API server\n"
              "refuses it in an integer field (`must be of type integer`)."),
         can_disable=False),
    Spec("SD018", ERROR, "a value kubectl and kustomize cannot send (.nan, .inf, a tag they cannot decode): they refuse the file",
         {"not-json": "{text} reads as {reads}, which JSON cannot hold: kubectl and kustomize refuse the file; write a number, or quote it for a string",
          "cannot-decode": "{text}: go-yaml {reason}, so kubectl and kustomize refuse the file; drop the tag, or quote the value for a string"},
         why=("kubectl converts each object to JSON (sigs.k8s.io/yaml `YAMLToJSON`, encoding/json), which has no NaN or\n"
              "infinity (`json: unsupported value: NaN`), and kustomize does the same; a tagged scalar go-yaml cannot decode\n"
              "as its tag (`!!int 2.0`, `!!float nan`) stops both readers. The function refuses such an object anywhere\n"
              "in the input, as they refuse its whole file."),
         can_disable=False),
    Spec("SD019", WARNING, "a key that is no string: kubectl reads its text, kustomize and kpt refuse the file or read another key",
         {"refused": "the key {text} reads as {reads}: kubectl sends the key {key!q}, kustomize and kpt refuse an object with a key that is no string; quote it",
          "read-apart": "the key {text} reads as a boolean to kubectl, which sends the key {key!q}, and as the string {text!q} to kustomize and kpt; quote it",
          "alias": "the key *{alias} is its anchor's text {text!q}: kubectl sends that key, kustomize and kpt read it again as {reads} where they rewrite the mapping (annotations always) and refuse the object; write the key itself"},
         why=("kubectl (go-yaml v2, sigs.k8s.io/yaml) turns a key that is a number or a boolean into its text;\n"
              "kustomize and kpt (go-yaml v3, kyaml) refuse the object (`json: unsupported type:\n"
              "map[interface {}]interface {}`), and read `yes`, `on` and the like as strings where kubectl reads `true`.\n"
              "A quoted key is the same string to every reader. An alias as a key (`*t :`, the anchor `&t \"true\"`) is\n"
              "its anchor's text to kubectl; go-yaml v3 reads that text again, unquoted, where kyaml rewrites the\n"
              "mapping (annotations in every kustomize build and kpt run; any mapping when the anchor is plain).")),
    # SD020, SD021, SD032 and SD041 start with `source`, where the setting was set (`invalid functionConfig: `,
    # `environment variable KAITO_SPECDEC_MODE (or …): `; model/config.py: ConfigError.prefixed), "" where a value is
    # judged alone. What a source gave (`key`, `value`, `name`, SD032's `kind`) is quoted by the call site
    # (presets.quoted): a YAML date or another value JSON cannot hold shows as its text, where `!q` would fail on it.
    Spec("SD020", ERROR, "an unknown setting (the message names the setting it resembles)",
         {"did-you-mean": "{source}unknown setting {key}; did you mean {setting}?",
          "known-settings": "{source}unknown setting {key}; known settings: {known}"},
         can_disable=False, could_not_judge=True),
    # A variant per setting (and per fault where a setting has several).
    # `config`: presets.py's words about a speculative config (tunedPresets' or ngramFallback's JSON, its keys and
    # values against the vLLM release), which name the setting and what in it is wrong in many ways.
    Spec("SD021", ERROR, "a setting has a value it does not take (the message names the setting)",
         {"mode": "{source}mode: invalid value {value}; expected one of: {expected}",
          "failOn": "{source}failOn: invalid value {value}; expected one of: {expected}",
          "tunedPresets": "{source}tunedPresets: expected a mapping of preset name to speculative config JSON, got {got}",
          "tunedPresets-json": "{source}tunedPresets: not valid JSON ({reason} at line {line}, column {column})",
          "tunedPresets-number": "{source}tunedPresets: cannot be read: {reason}",
          "tunedPresets-name": "{source}tunedPresets: preset names must be non-empty strings, got {name}",
          "config": "{source}{reason}",
          "kaitoVersion": "{source}kaitoVersion: invalid value {value}; expected a KAITO release such as v0.12.0",
          "kaitoVersion-unmodelled": "{source}kaitoVersion: {value} is not a release this function models ({first} to {last}); set the release your cluster runs, or leave it unset",
          "vllmVersion": "{source}vllmVersion: invalid value {value}; expected the vLLM release your inference image runs, such as {default} (the one KAITO's current image ships)",
          "vllmVersion-number": "{source}vllmVersion: invalid value {value}; expected the vLLM release your inference image runs in quotes (YAML reads an unquoted 0.10 as the number 0.1), such as {default} (the one KAITO's current image ships)",
          "featureGates": '{source}featureGates: expected a string such as "vLLM=false", got {got}',
          "featureGates-pair": "{source}featureGates: malformed pair {pair!q}, expect name=bool",
          "featureGates-gate": "{source}featureGates: unknown KAITO feature gate {gate!q}; known gates: {known}",
          "featureGates-value": "{source}featureGates: invalid value of {gate}: {value!q}; expected true or false",
          "disable": '{source}disable: expected finding ids separated by commas, such as "SD112, SD008", got {value}',
          "disable-malformed": "{source}disable: malformed finding id {entry!q}; an id is SD and three digits, such as SD112",
          "disable-unknown": "{source}disable: unknown finding id {entry}; `kaito-specdec findings` lists every id",
          "prometheusRules": '{source}prometheusRules: invalid value {value}; expected "true" or "false"',
          "grafanaDashboards": '{source}grafanaDashboards: invalid value {value}; expected "true" or "false"',
          "minAcceptanceRate": "{source}minAcceptanceRate: invalid value {value}; expected the acceptance rate (accepted / drafted tokens) below which the PrometheusRule alerts, a number from 0 to 1 such as {default}",
          "maxInput": "{source}invalid size {value!r}; expected a positive number of bytes, optionally with Ki, Mi or Gi (e.g. 512Mi)"},
         can_disable=False, could_not_judge=True),
    Spec("SD032", ERROR, "the functionConfig cannot be read as a ConfigMap or a SpeculativeDecodingPolicy",
         {"kind": "{source}functionConfig has kind {kind}; expected ConfigMap or SpeculativeDecodingPolicy",
          "unreadable": "invalid functionConfig: it cannot be read: {reason}",
          "not-a-mapping": "{source}functionConfig is not a mapping; expected a ConfigMap or a SpeculativeDecodingPolicy",
          "data-not-a-mapping": "{source}functionConfig ConfigMap data is not a mapping of strings",
          "spec-not-a-mapping": "{source}functionConfig SpeculativeDecodingPolicy spec is not a mapping"},
         can_disable=False, could_not_judge=True),
    Spec("SD041", ERROR, "disable names a finding that cannot be turned off",
         "{source}disable: {entry} cannot be turned off: it reports input or settings the function cannot process or write safely; fix what it names instead",
         can_disable=False, could_not_judge=True),
    Spec("SD048", WARNING, "a kaitoVersion older than v0.10.0: admission and rollout are judged as v0.10.0's",
         "KAITO {version} (the kaitoVersion setting) is older than the releases whose admission and rollout are modelled ({first} to {last}): those checks follow {first} (webhook rules and pod names still by release); check the output on your cluster, or upgrade KAITO",
         why=("A `kaitoVersion` from v0.3 to v0.9. The function knows some facts of those releases: the webhook rules by the\n"
              "release that brought them (the adapter limit from v0.3.0, `kaito.sh/node-image-family` from v0.9.0; a rule\n"
              "brought later is not checked), and the Deployment a single-node Workspace ran as before v0.8.0 (the pod names\n"
              "the PrometheusRule selects, [fixtures/monitoring-kaito-before-v0.8](../fixtures/monitoring-kaito-before-v0.8/fnconfig.yaml)).\n"
              "KAITO's admission, rollout and life cycle are modelled from its source for v0.10.0 to v0.12.0 only (v0.13\n"
              "from its design): where the rules differ by release, an older release is judged as v0.10.0 (a config always\n"
              "mounted, the annotation ignored, InferenceSets at `kaito.sh/v1alpha1` only, no MultiRoleInference). Whether\n"
              "such a KAITO reads the written `inference_config.yaml` as v0.10.0 does, or what its controllers do with the\n"
              "output on a running Workspace, is not known here. The run goes on, so the release-dated checks still help; the\n"
              "warning says that the rest is v0.10.0's. Upgrade KAITO, or check the output on the cluster, then turn the\n"
              "warning off (`disable: SD048`; with `failOn: warning` it would fail every run). A release older than v0.3 or\n"
              "newer than v0.13 is an error (SD021): nothing of it is modelled.")),
    # KRM mode reads its settings from the functionConfig only (model/policies.py): a policy among the items that
    # says otherwise is not applied, and says so.
    Spec("SD049", WARNING, "KRM mode: a SpeculativeDecodingPolicy among the items that is not the functionConfig: not applied",
         "not applied: KRM mode reads its settings from the functionConfig only; pass this policy as the functionConfig (kpt: --fn-config, or the Kptfile's configPath) or remove it"),
    Spec("SD050", WARNING, "a kustomization does not list the derived ConfigMap kpt writes beside it",
         "{kustomization} does not list {name}, a ConfigMap kaito-specdec derived for the workloads there: `kustomize build` would leave it out and they would point at a ConfigMap that does not exist; add it to resources (or run kaito-specdec as a kustomize transformer)"),
    Spec("SD051", WARNING, "a kustomization lists the file of a derived ConfigMap this run drops",
         "{kustomization} lists {name}, the file of a ConfigMap kaito-specdec derived and this run drops: kpt deletes the file and `kustomize build` would fail on the missing resource; remove it from resources"),
    Spec("SD060", ERROR, "stdout is closed",
         "stdout is closed: nowhere to write the output",
         can_disable=False, could_not_judge=True),
    Spec("SD061", ERROR, "the reader of stdout closed the pipe before the output was whole",
         "stdout: the reader closed the pipe after {done} of {total} bytes; the output is incomplete",
         can_disable=False, could_not_judge=True),
    # `counted` where the writer knows how much went out (the real stdout's descriptor).
    Spec("SD062", ERROR, "stdout cannot be written",
         {"counted": "stdout: cannot write the output ({reason}) after {done} of {total} bytes; the output is incomplete",
          "uncounted": "stdout: cannot write the output ({reason}); the output is incomplete"},
         can_disable=False, could_not_judge=True),
    Spec("SD063", ERROR, "interrupted",
         "interrupted; any output is incomplete",
         can_disable=False, could_not_judge=True),
    Spec("SD064", ERROR, "the input nests too deeply to process",
         "ResourceList: the input nests too deeply to process (hundreds of levels); no Kubernetes object does",
         can_disable=False, could_not_judge=True),
    # `what`: the value as written and what YAML makes of it (`2 reads as a number`), or `is a mapping`, `is a
    # list` (stages/shape.py: no_string_values); the field names the label or annotation.
    Spec("SD066", ERROR, "a label or annotation value that is no string: kubectl and the API server refuse the object",
         "the value {what}, and kubectl and the API server take strings only (kustomize reads it): write a quoted string",
         why=("Labels and annotations are a `map[string]string` (ObjectMeta): kubectl refuses the object (`json: cannot\n"
              "unmarshal number into Go struct field ObjectMeta.metadata.annotations of type string`), and so does\n"
              "the API server; kustomize and kpt read and write it on. A null is sent as no value and taken."),
         can_disable=False),
    # `what`: the value as kubectl reads it and what it is (`\`'true'\` is a string`, `the value is a list`); `want`,
    # `go` and `fix`: what the Go field takes (domain/object_meta.py), which field that is, and how to write one;
    # the field names the path (`metadata.ownerReferences[0].controller`).
    Spec("SD067", ERROR, "a metadata field of another type than ObjectMeta's: kubectl and the API server refuse the object",
         "{what} where kubectl and the API server want {want} ({go}): they refuse the object; {fix}",
         why=("kubectl and the API server decode every object's `metadata` into ObjectMeta's Go types\n"
              "(k8s.io/apimachinery): `generation` an integer, `creationTimestamp` an RFC 3339 time, `finalizers` a list\n"
              "of strings, an ownerReference's `controller` a boolean … A field of another type (`controller: 'true'`,\n"
              "`finalizers: x`) makes them refuse the whole object (`json: cannot unmarshal string into Go struct\n"
              "field OwnerReference.metadata.ownerReferences.controller of type bool`); kustomize and kpt read and\n"
              "write it on. Keys are matched case-sensitively (`Generation` is an unknown field, and unknown fields\n"
              "pass), null passes for every field, and a whole number written `2.0` is the integer 2."),
         can_disable=False),
    Spec("SD065", ERROR, "an internal error",
         "kaito-specdec internal error: {exception}: {reason}",
         can_disable=False, could_not_judge=True),
    # The field is the block scalar's (stages/shape.py: keep_blocks_before_comments).
    Spec("SD069", WARNING, "a keep block scalar (`|+`) ends its document before a comment: kustomize writes it back with one more line break",
         "this keep block scalar (`|+`) ends its document, and a comment follows its blank lines: kubectl reads them as written, `kustomize build` sends one more line break; move the comment above it, or end the block with `|` or `|-`",
         why=("A keep block scalar keeps its trailing blank lines. When it is the document's last value and a comment\n"
              "line follows those blank lines, kustomize (kyaml) writes it back with one more blank line, so what\n"
              "`kustomize build | kubectl apply` sends differs from what `kubectl apply -f` sends (a script's or a\n"
              "config file's last bytes). Found by the differential fuzzer; `kpt fn source` keeps it.")),
    # `text`: the scalar's text after the tag; `reads`: what it is unquoted (go_scalars.plain_reads_as).
    Spec("SD068", WARNING, "a value tagged `!` that kustomize and kpt write back untagged, as no string",
         "`! {text}` is the string {text!q} to kubectl; kustomize and kpt drop the tag and may write it back plain, which kubectl then reads as {reads}: quote it instead",
         why=("`!` is YAML's non-specific tag: on a plain scalar it makes the scalar a string, and go-yaml v2\n"
              "(kubectl, Argo CD) reads `! 5` as \"5\". kustomize and kpt (kyaml) keep the value but write it back\n"
              "without the tag and unquoted (`5`), so what they send is a number, a boolean or null: kubectl then\n"
              "refuses a label or an annotation, and the API server a string field. `\"5\"` is the same to all.")),
)
