"""Objects that name a derived ConfigMap in every way YAML can spell a string, in the places Kubernetes (or
anything else) could mean it, for the disable life cycle of tests/test_invariants.py (issue #19, class 2).

A case is a Workspace the function enables (step 1 derives `specdec-ngram-80815d3ebc` for it), then
disables with another object still naming that ConfigMap (step 2): the ConfigMap must stay. Its control
names a name one character off, spelled the same way: the ConfigMap must go. What "names" means is written
here independently of krm_fn/model/index.py: some key or string of the object, as YAML composes it (escapes
decoded, double-quoted lines joined, aliases and merge keys followed), holds the name as a whole word.

Spellings: plain, single- and double-quoted, `\\x` `\\u` `\\U` escapes, a double-quoted name folded over two
lines (an escaped line break), plain and quoted multi-line values and block scalars (for a name inside a
longer value), aliases (anchored in the envelope, on the derived ConfigMap's own name, on the Workspace's
reference), merge keys (`<<: *m`, `<<: [*m]`, flow and block), and a whole object written as JSON with
`\\u` escapes. Places: a volume, a projected source, envFrom, env valueFrom, a CronJob's job template, a
shell argument, an annotation, a ConfigMap's data key, a custom resource's field.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass

NAME = "specdec-ngram-80815d3ebc"
OTHER = "specdec-ngram-80815d3ebd"  # the control's name: one character off
ON = 'kaito.sh/enable-speculative-decoding: "true"'

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
WORKSPACE = ("- apiVersion: kaito.sh/v1beta1\n  kind: Workspace\n  metadata:\n    name: phi\n    annotations:\n"
             f"      {ON}\n  inference:\n    preset:\n      name: phi-4\n")


def _escape(c: str, rng: random.Random) -> str:
    form = rng.choice(["x", "u", "U"])
    return {"x": f"\\x{ord(c):02x}", "u": f"\\u{ord(c):04x}", "U": f"\\U{ord(c):08x}"}[form]


# How the value is written: a scalar's spellings, then aliases (where the anchor is), merge keys, JSON.
SPELLINGS = ["plain", "single", "double", "escapes", "escape-one", "folded", "plain-lines", "single-lines",
             "double-lines", "literal", "folded-block"]
FORMS = SPELLINGS + ["alias-envelope", "alias-configmap", "alias-workspace", "merge-block", "merge-flow",
                     "merge-list", "json"]


def spell(rng: random.Random, how: str, value: str, name: str, indent: int) -> str:
    """YAML text of a scalar whose value is `value` (which holds `name`), spelled `how` (one of SPELLINGS;
    continuation lines at `indent`). Every spelling but plain, single and double keeps the text from
    holding `name` as it is, or breaks the line inside the value."""
    at = value.index(name)
    inside = rng.randrange(at + 1, at + len(name))  # a character of the name itself, not its first
    pad = "\n" + " " * indent
    if how == "plain":
        return value
    if how == "single":
        return "'" + value.replace("'", "''") + "'"
    if how == "double":
        return json.dumps(value)
    if how in ("escapes", "escape-one"):
        chosen = {inside} | ({i for i in range(len(value)) if rng.random() < 0.3} if how == "escapes" else set())
        return '"' + "".join(_escape(c, rng) if i in chosen else c for i, c in enumerate(value)) + '"'
    if how == "folded":
        # An escaped line break joins the lines with nothing between them (the next line's blanks dropped).
        return '"' + value[:inside] + "\\" + pad + value[inside:] + '"'
    if how in ("plain-lines", "single-lines", "double-lines"):
        # A line break between words folds to one space.
        i = rng.choice([i for i, c in enumerate(value) if c == " "])
        body = value[:i] + pad + value[i + 1:]
        return body if how == "plain-lines" else ("'" + body + "'" if how == "single-lines" else '"' + body + '"')
    if how == "literal":
        return "|" + pad + "# a script" + pad + value
    assert how == "folded-block"
    return ">" + pad + value


def _fits(place: Place, form: str) -> bool:
    if place.key:
        return form in ("plain", "single", "double", "escapes", "escape-one")
    if form.endswith("-lines"):
        return not place.equals  # a value with a space in it
    if form in ("literal", "folded-block"):
        return not place.flow
    if form.startswith("merge"):
        return place.equals
    return True


@dataclass
class Place:
    """A user object (an item of the list, its lines from `- `) with `{V}` where the value goes: `equals`,
    the value is the name itself; else it holds it inside a longer string. `merge`: the lines of a merge
    key standing for the `{V}` line (a mapping with the name at `name`)."""

    name: str
    lines: str
    equals: bool = True
    flow: bool = False
    key: bool = False

    def indent(self) -> int:
        line = next(ln for ln in self.lines.splitlines() if "{V}" in ln)
        return len(line) - len(line.lstrip(" ")) + 4


def _deployment(spec: str) -> str:
    return ("- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: user\n  spec:\n"
            "    selector:\n      matchLabels: {app: user}\n    template:\n      metadata:\n"
            "        labels: {app: user}\n      spec:\n" + spec)


PLACES = [
    Place("volume", _deployment("        containers:\n        - name: c\n          image: busybox:1.36\n"
                                "        volumes:\n        - name: cfg\n          configMap:\n"
                                "            name: {V}\n")),
    Place("volume-flow", _deployment("        containers: [{name: c, image: busybox:1.36}]\n"
                                     "        volumes:\n        - {name: cfg, configMap: {name: {V}}}\n"), flow=True),
    Place("projected", _deployment("        containers: [{name: c, image: busybox:1.36}]\n"
                                   "        volumes:\n        - name: all\n          projected:\n"
                                   "            sources:\n            - secret: {name: s}\n"
                                   "            - configMap:\n                name: {V}\n")),
    Place("envFrom", _deployment("        containers:\n        - name: c\n          image: busybox:1.36\n"
                                 "          envFrom:\n          - configMapRef:\n              name: {V}\n")),
    Place("configMapKeyRef", _deployment("        containers:\n        - name: c\n          image: busybox:1.36\n"
                                         "          env:\n          - name: CFG\n            valueFrom:\n"
                                         "              configMapKeyRef: {key: inference_config.yaml, name: {V}}\n"),
          flow=True),
    Place("cronjob", "- apiVersion: batch/v1\n  kind: CronJob\n  metadata:\n    name: user\n  spec:\n"
                     "    schedule: '*/5 * * * *'\n    jobTemplate:\n      spec:\n        template:\n"
                     "          spec:\n            restartPolicy: Never\n"
                     "            containers: [{name: c, image: busybox:1.36}]\n            volumes:\n"
                     "            - name: cfg\n              configMap:\n                name: {V}\n"),
    Place("shell-argument", "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: user\n  spec:\n"
                            "    containers:\n    - name: c\n      image: busybox:1.36\n      args:\n"
                            "      - sh\n      - -c\n      - {V}\n", equals=False),
    Place("annotation", "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: user\n    annotations:\n"
                        "      example.com/reads: {V}\n  spec:\n    ports: [{port: 80}]\n", equals=False),
    Place("data-key", "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: user\n  data:\n"
                      "    {V}: mounted elsewhere\n", key=True),
    Place("custom-resource", "- apiVersion: example.com/v1\n  kind: Widget\n  metadata:\n    name: user\n"
                             "  spec:\n    settings:\n      source:\n        configMap: {V}\n"),
]

LONGER = ["cat /cfg/{N}/inference_config.yaml", "kubectl get configmap {N} -o yaml", "--config-map={N} and more"]


@dataclass
class Case:
    """One life cycle: what names the ConfigMap and how, the user object in its step 1 and step 2 forms,
    the envelope lines before `items:` and the edits to make to step 1's output for step 2."""

    label: str
    name: str             # the name the user object means (NAME, or OTHER for the control)
    envelope: str         # lines before `items:` (anchors a merge key or an alias names)
    user_before: str      # the user object at step 1 (the name spelled plainly, no alias)
    user_after: str       # the user object at step 2
    anchor: str = ""      # "configmap" / "workspace": put `&n` on that object's name at step 2
    disable: str = "false"  # how the Workspace is disabled: "false", or "removed"


def case(n: int, rng: random.Random, name: str = NAME) -> Case:
    """The n-th case: FORMS in turn, each in a place that fits it; the details (which characters are
    escaped, where lines break, how the Workspace is disabled) drawn from `rng`."""
    form = FORMS[n % len(FORMS)]
    if name != NAME and form in ("alias-configmap", "alias-workspace"):
        form = "alias-envelope"  # the control's name is on neither object: anchor it out here
    fitting = [p for p in PLACES if _fits(p, form)]
    # In turn too, each round shifted, so that two rounds of FORMS take every place.
    place = fitting[(n // len(FORMS) * 5 + FORMS.index(form) * 3) % len(fitting)]
    value = name if place.equals else rng.choice(LONGER).format(N=name)
    plain_line = place.lines.replace("{V}", value)
    envelope, anchor, after = "", "", plain_line
    label = f"{place.name}/{form}"
    if form in SPELLINGS:
        after = place.lines.replace("{V}", spell(rng, form, value, name, place.indent()))
    elif form.startswith("alias"):
        home = form.partition("-")[2]
        if home == "envelope":
            how = rng.choice([h for h in SPELLINGS if not h.endswith("-lines") or not place.equals])
            envelope = f"x-name: &n {spell(rng, how, value, name, 4)}\n"
            label += f"-{how}"
        else:
            anchor = home
        after = place.lines.replace("{V}", "*n")
    elif form.startswith("merge"):
        how = rng.choice(["plain", "single", "double", "escapes", "escape-one", "folded"])
        envelope = f"x-source: &m {{name: {spell(rng, how, value, name, 4)}, optional: true}}\n"
        merge = "<<: [*m]" if form == "merge-list" else "<<: *m"
        line = next(ln for ln in place.lines.splitlines(True) if "{V}" in ln)
        pad = line[:len(line) - len(line.lstrip(" "))]
        if place.flow:
            after = place.lines.replace("{name: {V}}", "{" + merge + "}").replace("name: {V}", merge)
        elif form == "merge-flow":
            key = line.strip().partition(":")[0]
            parent = place.lines[:place.lines.index(line)].rstrip("\n").rpartition("\n")[2]
            # `configMap:` + `name: {V}` below it becomes `configMap: {<<: *m}`
            after = place.lines.replace(parent + "\n" + line, parent + " {" + merge + "}\n") \
                if key == "name" else place.lines.replace(line, pad + merge + "\n")
        else:
            after = place.lines.replace(line, pad + merge + "\n")
        label += f"-{how}"
    else:  # the whole object as JSON, some of the name's characters \u-escaped (its second always)
        import yaml
        data = yaml.safe_load(plain_line[2:].replace("\n  ", "\n"))
        text = json.dumps(data)
        at = text.index(json.dumps(value)[1:-1])
        escaped = "".join(f"\\u{ord(c):04x}" if (i == 1 or rng.random() < 0.3) and c.isalnum() else c
                          for i, c in enumerate(name))
        after = "- " + text[:at] + text[at:].replace(name, escaped, 1) + "\n"
        plain_line = "- " + text + "\n"
    return Case(label, name, envelope, plain_line, after, anchor, rng.choice(["false", "removed"]))


def step1(c: Case) -> str:
    return HEAD + c.envelope + "items:\n" + WORKSPACE + c.user_before


def step2(c: Case, out1: str) -> str:
    """Step 1's output, the Workspace disabled and the user object as step 2 has it."""
    assert c.user_before in out1, "step 1 changed the user object"
    text = out1.replace(c.user_before, c.user_after)
    text = text.replace(f"      {ON}\n", "" if c.disable == "removed" else
                        '      kaito.sh/enable-speculative-decoding: "false"\n')
    if c.disable == "removed":
        text = text.replace("    annotations:\n  inference:", "  inference:")
    if c.anchor == "configmap":
        text = text.replace(f"    name: {NAME}\n    annotations:\n      kaito-specdec.dev/derived",
                            f"    name: &n {NAME}\n    annotations:\n      kaito-specdec.dev/derived")
    elif c.anchor == "workspace":
        text = text.replace(f"    config: {NAME}\n", f"    config: &n {NAME}\n")
    assert c.anchor == "" or "&n" in text
    return text
