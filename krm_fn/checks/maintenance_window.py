"""maintenance-window: an InferenceSet's auto-upgrade maintenance window has a schedule cron can read.

KAITO rule mirrored (`validateInferenceSetMaintenanceWindow`, api/v1beta1/inferenceset_validation.go, and
`validateMaintenanceWindow`, api/v1alpha1/inferenceset_validation.go; from `InferenceSet.validateCreate`
and `validateUpdate`, under `.ViaField("spec")`):

    if autoUpgrade == nil || autoUpgrade.MaintenanceWindow == nil { return nil }
    if window.Schedule == "" {
        errs = errs.Also(apis.ErrMissingField("autoUpgrade.maintenanceWindow.schedule")); return errs }
    if _, err := cron.ParseStandard(window.Schedule); err != nil {
        errs = errs.Also(apis.ErrInvalidValue(window.Schedule, "autoUpgrade.maintenanceWindow.schedule",
            fmt.Sprintf("invalid cron expression: %v", err))) }
    if window.Duration != nil && window.Duration.Duration <= 0 { ... "must be a positive duration" }

`cron.ParseStandard` is github.com/robfig/cron/v3 v3.0.1 (parser.go): five fields (minute, hour, day of
month, month, day of week), each a comma list of `*`, `?`, `N`, `N-M`, with `/step`; month and weekday
names (jan, sun; any case); or a descriptor (@yearly, @annually, @monthly, @weekly, @daily, @midnight,
@hourly, `@every <Go duration>`). Its errors are mirrored word for word (`expected exactly 5 fields, found 4:
[0 2 * *]`, `end of range (60) above maximum (59): 60`, `failed to parse int from x: strconv.Atoi: parsing
"x": invalid syntax`, …), as one line: `invalid value: <schedule>: invalid cron expression: <error>` (knative
puts the path between them and the detail on a line of its own).

The duration is a `metav1.Duration`: the API server reads its text with Go's time.ParseDuration (a text
that does not parse is the API server's error, not this check's), and a value of 0 or less is refused in
Go's own spelling of it (`time.Duration.String`): `invalid value: 0s: must be a positive duration`.

KAITO brought `autoUpgrade` and this rule in v0.11.0: an older `kaitoVersion` is not checked.

A schedule or duration with a Flux `${VAR}` in it is left alone (`checks/flux.py`).

Not mirrored, so never reported: a `TZ=`/`CRON_TZ=` prefix (its zone is looked up in the webhook's time
zone database; and without a blank after it KAITO's parser slices out of range).

PASS:  schedule: "0 2 * * 6", "*/15 1-5 * JAN-MAR mon,fri", "@weekly", "@every 168h"; no maintenanceWindow
FAIL:  schedule: "" (or none): missing field(s): spec.autoUpgrade.maintenanceWindow.schedule
FAIL:  schedule: "0 2 * *", "60 * * * *", "0 2 * * 7", "@fortnightly", "0 2 * * Sunday", "@every 1d"
FAIL:  duration: "0", "-1h" (with a schedule)
"""

from ..domain import kaito_releases
from ..domain import kinds
from ..domain.inference_config import atoi_error
from ..model.config import Settings
from ..model.index import Workload
from ..text.quoting import goquote
from ..text.results import Finding, finding
from .flux import substituted_later
from .gostrings import DurationError, go_duration_string, go_fields, go_lower, go_parse_duration

ID = "maintenance-window"
KINDS = ("InferenceSet",)
SINCE = kaito_releases.AUTO_UPGRADE  # no autoUpgrade before it: the API server drops the field
FIELD = "spec.autoUpgrade.maintenanceWindow.schedule"
DESCRIPTORS = ("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly")
MONTHS = {m: i + 1 for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
                                          "nov", "dec"))}
DAYS = {d: i for i, d in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
# (min, max, names) of the fields in parse order; the seconds field is not in a standard spec: "0".
Bounds = tuple[int, int, dict[str, int] | None]
SECONDS: Bounds = (0, 59, None)
MINUTES: Bounds = (0, 59, None)
HOURS: Bounds = (0, 23, None)
DOM: Bounds = (1, 31, None)
MONTH: Bounds = (1, 12, MONTHS)
DOW: Bounds = (0, 6, DAYS)


class CronError(Exception):
    pass


def findings(w: Workload, settings: Settings | None = None) -> list[Finding]:
    window = kinds.get(w.data, ("spec", "autoUpgrade", "maintenanceWindow"))
    if not isinstance(window, dict):
        return []
    schedule = window.get("schedule")
    if schedule is None or schedule == "":
        return [finding("SD142", FIELD)]
    if not isinstance(schedule, str):
        return []  # the CRD schema's error (a string)
    out = []
    # A Flux `${VAR}` is filled in after the function ran (checks/flux.py): the schedule is not known here.
    problem = None if substituted_later(schedule) else cron_error(schedule)
    if problem is not None:
        # KAITO prints both bare; a line break would split the result's one line.
        schedule = schedule if schedule.splitlines() == [schedule] else goquote(schedule)
        problem = problem if problem.splitlines() == [problem] else goquote(problem)
        out.append(finding("SD143", FIELD, schedule=schedule, error=problem))
    duration = window.get("duration")
    if isinstance(duration, str) and not substituted_later(duration):
        try:
            nanoseconds = go_parse_duration(duration)
        except DurationError:
            return out  # the API server's decoding error, before any webhook
        if nanoseconds <= 0:
            out.append(finding("SD144", "spec.autoUpgrade.maintenanceWindow.duration",
                               duration=go_duration_string(nanoseconds)))
    return out


def cron_error(spec: str) -> str | None:
    """robfig/cron v3.0.1's ParseStandard error for `spec`, or None when it parses (or is not mirrored)."""
    if spec.startswith(("TZ=", "CRON_TZ=")):
        return None  # not mirrored (see the module's docstring)
    if spec.startswith("@every "):
        try:
            go_parse_duration(spec[len("@every "):])
        except DurationError as exc:
            return f"failed to parse duration {spec}: {exc}"
        return None
    if spec.startswith("@"):
        return None if spec in DESCRIPTORS else f"unrecognized descriptor: {spec}"
    fields = go_fields(spec)
    if len(fields) != 5:
        return f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]"
    try:
        for field, bounds in zip(["0", *fields], (SECONDS, MINUTES, HOURS, DOM, MONTH, DOW), strict=True):
            for expr in (part for part in field.split(",") if part):  # strings.FieldsFunc on ','
                _range(expr, bounds)
    except CronError as exc:
        return str(exc)
    return None


def _range(expr: str, bounds: Bounds) -> None:
    low, high, names = bounds
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    single = len(low_and_high) == 1
    if low_and_high[0] in ("*", "?"):
        start, end = low, high
    else:
        start = _int_or_name(low_and_high[0], names)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _int_or_name(low_and_high[1], names)
        else:
            raise CronError(f"too many hyphens: {expr}")
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _int(range_and_step[1])
        if single:
            end = high
    else:
        raise CronError(f"too many slashes: {expr}")
    if start < low:
        raise CronError(f"beginning of range ({start}) below minimum ({low}): {expr}")
    if end > high:
        raise CronError(f"end of range ({end}) above maximum ({high}): {expr}")
    if start > end:
        raise CronError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise CronError(f"step of range should be a positive number: {expr}")


def _int_or_name(expr: str, names: dict[str, int] | None) -> int:
    if names is not None and go_lower(expr) in names:
        return names[go_lower(expr)]
    return _int(expr)


def _int(expr: str) -> int:
    refused = atoi_error(expr)
    if refused:
        raise CronError(f"failed to parse int from {expr}: {refused}")
    digits = expr.lstrip("+-").lstrip("0") or "0"  # int(expr) refuses 4 300 digits, leading zeros too
    num = -int(digits) if expr.startswith("-") else int(digits)
    if num < 0:
        raise CronError(f"negative number ({num}) not allowed: {expr}")
    return num
