"""How Kubernetes and the controllers above it name pods: as patterns that a PromQL `pod=~` matcher holds and
that can be compared (whether two workloads' pods can have the same name).

Each form below is built from the code that makes the names (quoted where it is written), so that a pattern
matches every pod a workload can have and, where the alphabet allows it, no pod of another:

- The API server's GenerateName (k8s.io/apiserver pkg/storage/names/generate.go): `maxNameLength = 63`,
  `randomLength = 5`, `MaxGeneratedNameLength = maxNameLength - randomLength`; `if len(base) >
  MaxGeneratedNameLength { base = base[:MaxGeneratedNameLength] }`, then `utilrand.String(randomLength)`,
  whose letters are `alphanums = "bcdfghjklmnpqrstvwxz2456789"` (k8s.io/apimachinery pkg/util/rand/rand.go:
  "We omit vowels"). So `llama-guard` is no name GenerateName makes from `llama-`: `u` and `a` are vowels.
- A controller's pods get `GenerateName: <controller>-` (kubernetes pkg/controller/controller_utils.go,
  getPodsPrefix: `prefix := fmt.Sprintf("%s-", controllerName)`): a ReplicaSet's, a DaemonSet's, a Job's.
- A Deployment's ReplicaSet is `Name: d.Name + "-" + podTemplateSpecHash` (pkg/controller/deployment/sync.go)
  and the hash `rand.SafeEncodeString(fmt.Sprint(podTemplateSpecHasher.Sum32()))` (controller_utils.go,
  ComputeHash): the decimal digits of a uint32 (1 to 10 of them), each mapped to `alphanums[int(b) %
  len(alphanums)]`, which for "0".."9" gives `4 5 6 7 8 9 b c d f`.
- A StatefulSet's pods are `<set>-<ordinal>` (pkg/controller/statefulset/stateful_set_utils.go, getPodName:
  `fmt.Sprintf("%s-%d", set.Name, ordinal)`).
- An Indexed Job's pods: `appendIndex := "-" + strconv.Itoa(index) + "-"`, `generateNamePrefix := jobName +
  appendIndex`, cut to `names.MaxGeneratedNameLength-len(appendIndex)` before the index when longer
  (pkg/controller/job/indexed_job_utils.go, podGenerateNameWithIndex); the index is an int32 (10 digits at
  most). A CronJob's Jobs are `fmt.Sprintf("%s-%d", cj.Name, getTimeHashInMinutes(scheduledTime))`, minutes
  since 1970 (pkg/controller/cronjob/utils.go): 8 digits for every time from 1989 to 2160.

A pattern is a tuple of alternatives; an alternative a tuple of runs `(characters, lo, hi)`: `lo` to `hi`
characters from one class (`hi` None: no upper bound). RE2 cannot intersect patterns, so `meet` does it on
runs: whether some name matches both.
"""

from enum import Enum
from itertools import product

Run = tuple[str, int, int | None]  # (characters, lo, hi)
Alternative = tuple[Run, ...]
Names = tuple[Alternative, ...]

RANDOM = "bcdfghjklmnpqrstvwxz2456789"   # utilrand.String's alphabet (GenerateName, pod suffixes)
HASH = "456789bcdf"                      # SafeEncodeString of decimal digits: a pod-template-hash
DIGITS = "0123456789"
MAX_GENERATED_BASE = 58                   # names.MaxGeneratedNameLength
_CLASS_TEXT = {DIGITS: "0-9"}
_META = frozenset("\\.+*?()|[]{}^$")


class PodNaming(Enum):
    """How a kind's pods are named: each kind's record (kinds.KINDS, plain_kinds.KINDS) says which, and
    monitoring.py has the pattern of each. A kind whose pods are named as another kind's (an Argo Rollout's
    as a Deployment's) takes that one; a new form is a new member here and its pattern there."""

    DEPLOYMENT = "<name>-<pod-template-hash>-<5 random>"
    STATEFULSET = "<name>-<ordinal>"
    CONTROLLER = "<name>-<5 random>"                  # a ReplicaSet's, a DaemonSet's
    JOB = "<name>-<5 random>, <name>-<index>-<5 random>"
    CRONJOB = "<name>-<8 digits of minutes>-…, its Jobs' pods"
    POD = "<name>"
    LEADER_WORKER_SET = "<name>-<group>, <name>-<group>-<worker>"
    KSERVE_PREDICTOR = "<name>[-<predictor name>]-predictor…, a Deployment's or a Knative revision's"
    LLM_INFERENCE_SERVICE = "<name>-kserve…, as a Deployment's or a LeaderWorkerSet's"
    WORKSPACE = "<name>-<ordinal>; before KAITO v0.8.0 also as a Deployment's"
    INFERENCESET = "<name>-<5 random>-<ordinal>"
    MULTIROLEINFERENCE = "<name>-<role>-<5 random>-<ordinal>"


def literal(text: str) -> Names:
    return (tuple((ch, 1, 1) for ch in text),)


def chars(cls: str, lo: int, hi: int | None) -> Names:
    return (((cls, lo, hi),),)


def concat(*parts: Names) -> Names:
    return _tidy(tuple(sum(alts, ()) for alts in product(*parts)))


def union(*parts: Names) -> Names:
    return _tidy(tuple(alt for part in parts for alt in part))


def ordinal() -> Names:
    """A decimal ordinal or index, unbounded (a StatefulSet's)."""
    return chars(DIGITS, 1, None)


def generated(base: Names) -> Names:
    """The names GenerateName makes from `base`: cut to 58 characters, then 5 random ones."""
    return concat(cut(base, MAX_GENERATED_BASE), chars(RANDOM, 5, 5))


def controller_pods(controller: Names) -> Names:
    """The pods of a ReplicaSet, DaemonSet or (non-indexed) Job named `controller`: `GenerateName:
    <controller>-`."""
    return generated(concat(controller, literal("-")))


def replicaset_of(deployment: Names) -> Names:
    """The ReplicaSets of a Deployment: `<deployment>-<pod-template-hash>`."""
    return concat(deployment, literal("-"), chars(HASH, 1, 10))


def indexed_job_pods(job: Names) -> Names:
    """The pods of an Indexed Job: `<job>-<index>-` + 5 random, the job's name cut first so that the
    index always stays (podGenerateNameWithIndex)."""
    return union(*(concat(cut(job, MAX_GENERATED_BASE - digits - 2), literal("-"), chars(DIGITS, digits, digits),
                          literal("-"), chars(RANDOM, 5, 5)) for digits in range(1, 11)))   # an int32 index


def cut(names: Names, limit: int) -> Names:
    """The first `limit` characters of each name."""
    out = []
    for alt in names:
        bounds = [hi for _, _, hi in alt if hi is not None]
        if len(bounds) == len(alt) and sum(bounds) <= limit:  # no name is longer
            out.append(alt)
            continue
        for counts in product(*(_counts(run, limit) for run in alt)):
            kept, length = [], 0
            for (cls, _, _), n in zip(alt, counts, strict=True):
                take = min(n, limit - length)
                if take > 0:
                    kept.append((cls, take, take))
                length += take
            out.append(tuple(kept))
    return _tidy(tuple(out))


def _counts(run: Run, limit: int) -> range:
    cls, lo, hi = run
    if hi is None:
        # Only reached when a name could be longer than `limit` before this run: every count from `limit`
        # on is cut to the same prefix.
        hi = max(lo, limit)
    return range(lo, hi + 1)


def _merged_runs(alt: Alternative) -> Alternative:
    out: list[Run] = []
    for cls, lo, hi in alt:
        if cls and out and out[-1][0] == cls and len(cls) > 1:
            _, plo, phi = out[-1]
            out[-1] = (cls, plo + lo, None if hi is None or phi is None else phi + hi)
        elif lo or hi:
            out.append((cls, lo, hi))
    return tuple(out)


def _tidy(names: Names) -> Names:
    """Runs of one class joined, duplicates dropped, alternatives that differ only in one run's count (1, 2,
    3 …) merged into one range; in a stable order."""
    alts = list(dict.fromkeys(_merged_runs(a) for a in names))
    while True:
        found = next(((i, j, m) for i in range(len(alts)) for j in range(i + 1, len(alts))
                      if (m := _merge(alts[i], alts[j])) is not None), None)
        if found is None:
            return tuple(alts)
        i, j, merged = found
        alts[i] = merged
        del alts[j]


def _merge(a: Alternative, b: Alternative) -> Alternative | None:
    if len(a) != len(b) or any(x[0] != y[0] for x, y in zip(a, b, strict=True)):
        return None
    differ = [k for k, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    if len(differ) != 1:
        return None
    k = differ[0]
    (cls, lo1, hi1), (_, lo2, hi2) = a[k], b[k]
    if len(cls) == 1:
        return None   # literal text stays literal ("ll", not "l{1,2}")
    # Adjacent or overlapping ranges only: {1,3} and {4} make {1,4}; {1} and {3} stay apart.
    if (hi1 is not None and hi1 + 1 < lo2) or (hi2 is not None and hi2 + 1 < lo1):
        return None
    hi = None if hi1 is None or hi2 is None else max(hi1, hi2)
    return a[:k] + ((cls, min(lo1, lo2), hi),) + a[k + 1:]


def meet(a: Names, b: Names) -> bool:
    """Whether some name matches both patterns."""
    return any(_meet(x, y) for x in a for y in b)


def _meet(a: Alternative, b: Alternative) -> bool:
    # States: (run of a, characters taken from it, run of b, characters taken from it); an unbounded run
    # counts up to its minimum only.
    start = (0, 0, 0, 0)
    seen = {start}
    todo = [start]
    while todo:
        i, x, j, y = todo.pop()
        if i == len(a) and j == len(b):
            return True
        moves = []
        if i < len(a) and x >= a[i][1]:
            moves.append((i + 1, 0, j, y))
        if j < len(b) and y >= b[j][1]:
            moves.append((i, x, j + 1, 0))
        if i < len(a) and j < len(b):
            (ca, loa, hia), (cb, lob, hib) = a[i], b[j]
            if (hia is None or x < hia) and (hib is None or y < hib) and not set(ca).isdisjoint(cb):
                moves.append((i, x + 1 if hia is not None else min(x + 1, loa),
                              j, y + 1 if hib is not None else min(y + 1, lob)))
        for m in moves:
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return False


def regex(names: Names) -> str:
    """An RE2 pattern (PromQL anchors `=~` at both ends) for the names: common leading and trailing runs
    written once, the alternatives between them in a group."""
    alts = list(names)
    if len(alts) == 1:
        return _runs(alts[0])
    head = 0
    while all(len(a) > head for a in alts) and len({a[head] for a in alts}) == 1:
        head += 1
    tail = 0
    while all(len(a) - head > tail for a in alts) and len({a[len(a) - 1 - tail] for a in alts}) == 1:
        tail += 1
    middles = [_runs(a[head:len(a) - tail]) for a in alts]
    inner = "|".join(m for m in middles if m)
    group = f"({inner})?" if "" in middles else f"({inner})"
    return _runs(alts[0][:head]) + group + _runs(alts[0][len(alts[0]) - tail:])


def _runs(alt: Alternative) -> str:
    out = []
    for cls, lo, hi in alt:
        if len(cls) == 1 and lo == hi:
            out.append(("\\" + cls if cls in _META else cls) * lo)
            continue
        atom = ("\\" + cls if cls in _META else cls) if len(cls) == 1 else "[" + _CLASS_TEXT.get(cls, cls) + "]"
        out.append(atom + _quantifier(lo, hi))
    return "".join(out)


def _quantifier(lo: int, hi: int | None) -> str:
    if hi is None:
        return "+" if lo == 1 else "*" if lo == 0 else f"{{{lo},}}"
    if lo == hi:
        return "" if lo == 1 else f"{{{lo}}}"
    return f"{{{lo},{hi}}}"
