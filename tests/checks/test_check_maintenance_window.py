"""maintenance-window (SD142, SD143, SD144): PASS and FAIL rows with robfig/cron v3.0.1's exact errors."""
from __future__ import annotations

import pytest

from checktables import iset, make_workload
from krm_fn.checks import maintenance_window

FIELD = "spec.autoUpgrade.maintenanceWindow.schedule"


def _window(schedule: str | None, api: str = "kaito.sh/v1beta1") -> str:
    line = f"\n      schedule: {schedule}" if schedule is not None else " {}"
    return iset(api=api).replace("spec:\n", f"spec:\n  autoUpgrade:\n    enabled: true\n    maintenanceWindow:{line}\n", 1)


@pytest.mark.parametrize("text", [
    iset(), iset().replace("spec:\n", "spec:\n  autoUpgrade: {enabled: true}\n", 1),
    _window('"0 2 * * 6"'), _window('"*/15 1-5 * JAN-MAR mon,fri"'), _window('"? * * * ?"'),
    _window('"0 2 1,,15 * *"'), _window('"5/10 * * * *"'), _window('"*-99 * * * *"'),  # Go ignores "-99" after "*"
    _window('"0 2 * * FR\u0130"'),  # Go's ToLower: "fri"
    _window('"\u00a00\u20032 * * 6 "'), _window("'@weekly'"), _window("'@annually'"),
    _window('"TZ=Mars/Olympus 0 2 * * 6"'),  # not mirrored: never reported
    _window("'@every 168h'"), _window("'@every -1s'"),  # cron.Every raises what is below a second to one
    _window("5"),  # no string: the CRD schema's error
    _window("[0 2 * * 6]"), _window("{a: b}"),
    _window("'@daily'"), _window("'@midnight'"), _window("'@hourly'"), _window("'@monthly'"), _window("'@yearly'"),
    _window("'@every 1h30m'"), _window("'@every 1.5h'"), _window("'@every 500ms'"),
    _window('"1-5/2 * * * *"'), _window('"0 2 * * MON-FRI"'), _window('"0 2 1 JAN,jul ?"'), _window('"0\t2\t*\t*\t6"'),
    _window('"0 0 1-31/7 1-12/3 sun-sat/2"'), _window('"+5 07 * * 0"'),  # strconv.Atoi takes a sign and zeros
])
def test_pass(text: str) -> None:
    assert maintenance_window.findings(make_workload(text)) == []


@pytest.mark.parametrize("schedule, error", [
    ('"0 2 * *"', "expected exactly 5 fields, found 4: [0 2 * *]"),
    ('"0 2 * * 6 2026"', "expected exactly 5 fields, found 6: [0 2 * * 6 2026]"),
    ('"   "', "expected exactly 5 fields, found 0: []"),
    ('"60 * * * *"', "end of range (60) above maximum (59): 60"),
    ('"0 2 0 * *"', "beginning of range (0) below minimum (1): 0"),
    ('"0 2 * * 7"', "end of range (7) above maximum (6): 7"),
    ('"0 5-2 * * *"', "beginning of range (5) beyond end of range (2): 5-2"),
    ('"*/0 * * * *"', "step of range should be a positive number: */0"),
    ('"1-2-3 * * * *"', "too many hyphens: 1-2-3"),
    ('"*/2/3 * * * *"', "too many slashes: */2/3"),
    ('"0 2 * * Sunday"', 'failed to parse int from Sunday: strconv.Atoi: parsing "Sunday": invalid syntax'),
    ('"-1 * * * *"', 'failed to parse int from : strconv.Atoi: parsing "": invalid syntax'),
    ('"*/-1 * * * *"', "negative number (-1) not allowed: -1"),
    ('"99999999999999999999 * * * *"', 'failed to parse int from 99999999999999999999: strconv.Atoi: parsing "99999999999999999999": value out of range'),
    ('"0 25 * * 9"', "end of range (25) above maximum (23): 25"),  # the first field that fails
    ("'@fortnightly'", "unrecognized descriptor: @fortnightly"),
    ("'@daily '", "unrecognized descriptor: @daily "),
    ("'@every 1d'", 'failed to parse duration @every 1d: time: unknown unit "d" in duration "1d"'),
    ("'@every 7'", 'failed to parse duration @every 7: time: missing unit in duration "7"'),
    ("'@every '", 'failed to parse duration @every : time: invalid duration ""'),
    ("'@every  1h'", 'failed to parse duration @every  1h: time: invalid duration " 1h"'),
    ("'@every 1h '", 'failed to parse duration @every 1h : time: unknown unit "h " in duration "1h "'),
    ("'@DAILY'", "unrecognized descriptor: @DAILY"),
    ("' @daily'", "expected exactly 5 fields, found 1: [@daily]"),
    ('"0 2 * JAN-FOO *"', 'failed to parse int from FOO: strconv.Atoi: parsing "FOO": invalid syntax'),
    ('"0 2 JAN * *"', 'failed to parse int from JAN: strconv.Atoi: parsing "JAN": invalid syntax'),  # no names there
    ('"0 2 * * 1_0"', 'failed to parse int from 1_0: strconv.Atoi: parsing "1_0": invalid syntax'),
    # the time package quotes with its own `quote`: UTF-8 bytes as \xNN (strconv.Quote would keep "é", "\t")
    ('"@every 1\u00e9"', 'failed to parse duration @every 1\u00e9: time: unknown unit "\\xc3\\xa9" in duration "1\\xc3\\xa9"'),
    ('"@every 2\tm"', 'failed to parse duration @every 2\tm: time: unknown unit "\\x09m" in duration "2\\x09m"'),
    ("'@every 1x\"\\'", 'failed to parse duration @every 1x"\\: time: unknown unit "x\\"\\\\" in duration "1x\\"\\\\"'),
])
def test_fail(schedule: str, error: str) -> None:
    text = _window(schedule)
    shown = make_workload(text).data["spec"]["autoUpgrade"]["maintenanceWindow"]["schedule"]
    assert [f[:3] for f in maintenance_window.findings(make_workload(text))] == [
        (f"invalid value: {shown}: invalid cron expression: {error}", FIELD, "SD143")]


@pytest.mark.parametrize("text", [_window('""'), _window(None), _window("null", api="kaito.sh/v1alpha1")])
def test_missing(text: str) -> None:
    assert [f[:3] for f in maintenance_window.findings(make_workload(text))] == [
        (f"missing field(s): {FIELD}", FIELD, "SD142")]


def test_a_line_break_is_quoted() -> None:
    text = _window('"0 2 * *\\n"')
    assert [f.message for f in maintenance_window.findings(make_workload(text))] == [
        'invalid value: "0 2 * *\\n": invalid cron expression: expected exactly 5 fields, found 4: [0 2 * *]']


def test_go_does_not_split_fields_on_information_separators() -> None:
    """U+001C is no white space to Go (it is to Python's str.split, and a line break to splitlines)."""
    text = _window('"0\\x1c2 * * * *"')
    assert [f.message for f in maintenance_window.findings(make_workload(text))] == [
        'invalid value: "0\\x1c2 * * * *": invalid cron expression: "failed to parse int from 0\\x1c2: '
        'strconv.Atoi: parsing \\"0\\\\x1c2\\": invalid syntax"']


def _duration(duration: str) -> str:
    return _window('"0 2 * * 6"').replace("      schedule:", f"      duration: {duration}\n      schedule:")


@pytest.mark.parametrize("duration", ["2h", '"1.5h"', '"1ns"', "'9223372036854775807ns'", "1h", "90m", "1h0m0s",
                                      "1us", '"1\u00b5s"', '"1\u03bcs"', "'+1m'",
                                      '"1d"', '""', "0", "null"])  # text Go cannot parse, or no text: not ours
def test_duration_pass(duration: str) -> None:
    assert maintenance_window.findings(make_workload(_duration(duration))) == []


@pytest.mark.parametrize("duration, shown", [
    ('"0"', "0s"), ('"-0"', "0s"), ('"0h0m"', "0s"), ('"0.1ns"', "0s"), ('"-1h"', "-1h0m0s"),
    ('"-1.5h"', "-1h30m0s"), ('"-90s"', "-1m30s"), ('"-1.5ms"', "-1.5ms"), ('"-2\u03bcs"', "-2\u00b5s"),
    ('"-9223372036854775808ns"', "-2562047h47m16.854775808s"),
])
def test_duration_fail(duration: str, shown: str) -> None:
    assert [f[:3] for f in maintenance_window.findings(make_workload(_duration(duration)))] == [
        (f"invalid value: {shown}: must be a positive duration", "spec.autoUpgrade.maintenanceWindow.duration", "SD144")]


def test_schedule_and_duration_both_reported() -> None:
    text = _duration('"0s"').replace('"0 2 * * 6"', '"0 2 * *"')
    assert [f.id for f in maintenance_window.findings(make_workload(text))] == ["SD143", "SD144"]


def test_a_flux_variable_is_filled_in_later() -> None:
    assert maintenance_window.findings(make_workload(_window('"${SCHEDULE}"'))) == []
    assert maintenance_window.findings(make_workload(_window('"0 ${HOUR} * * 6"'))) == []
    assert maintenance_window.findings(make_workload(_duration('"${WINDOW:=0s}"'))) == []
    # still refused whatever Flux fills in: an empty schedule
    assert [f.id for f in maintenance_window.findings(make_workload(_window('""')))] == ["SD142"]
