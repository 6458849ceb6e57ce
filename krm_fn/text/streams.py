"""What can go wrong with the streams as wholes: input that cannot be read, input with nothing in it,
output that cannot be written. The findings and the values their messages need (the words are the
catalogue's: krm_fn/findings/input.py, render.py); cli.py and pipeline.py, which do the reading and writing,
raise or report them (this module does no I/O).

None of these can be turned off (can_disable=False in the catalogue): each one means there is no output to trust.
"""

from typing import Any

from .results import Finding, Result, finding


class InputProblem(Exception):
    """An input that cannot be read as given (unreadable, not a regular file, too large): one finding, said
    where no object or file is named (its message says where)."""

    def __init__(self, found: Finding) -> None:
        super().__init__(found.message)
        self.result = _failure(found)


def _failure(found: Finding) -> Result:
    """`found` not placed on anything: the stderr line is its message alone (no `ResourceList:` subject)."""
    return found.result(scope="")


# --- reading: the ResourceList or the manifests ---------------------------------------------------------

def unreadable_input(reason: str, scope: str = "ResourceList", **where: Any) -> Result:
    """The reader's own words (reader.InputError) for input that is not UTF-8, YAML or a ResourceList."""
    return finding("SD001", reason=reason).result(scope=scope, **where)


def empty_piped_input(reason: str) -> Result:
    return finding("SD002", reason=reason).result()


def helm_template(reason: str, **where: Any) -> Result:
    return finding("SD502", reason=reason).result(scope="render", **where)


def empty_stdin() -> Result:
    return finding("SD503").result(scope="render")


def no_objects(sources: str) -> Result:
    return finding("SD504", sources=sources).result(scope="render")


def nothing_to_write(count: int) -> Result:
    return finding("SD505", count=count).result(scope="render")


def no_kustomize(folders: str, install: str) -> Result:
    """`render DIR` of kustomizations with no kustomize to build them: said once, then the files are read."""
    return finding("SD506", folders=folders, install=install).result(scope="render")


def kustomize_not_runnable(named: str, folders: str) -> Result:
    """`--kustomize PROGRAM` (or the environment) names a program that cannot be run: the build was required."""
    return finding("SD509", named=named, folders=folders).result(scope="render")


def build_failed(command: str, reason: str) -> Result:
    return _failure(finding("SD507", command=command, reason=reason))


def stdin_closed(what: str) -> InputProblem:
    return InputProblem(finding("SD510", what=what))


def stdin_unreadable(reason: str) -> InputProblem:
    return InputProblem(finding("SD511", reason=reason))


def too_large(source: str, limit: str) -> InputProblem:
    return InputProblem(finding("SD512", source=source, limit=limit))


def cannot_open(path: str, reason: str) -> InputProblem:
    return InputProblem(finding("SD513", path=path, reason=reason))


def not_regular(path: str, kind: str) -> InputProblem:
    return InputProblem(finding("SD514", path=path, kind=kind))


def folder_unreadable(folder: str, reason: str) -> InputProblem:
    return InputProblem(finding("SD515", folder=folder, reason=reason))


def broken_symlink(path: str, target: str) -> InputProblem:
    return InputProblem(finding("SD516", path=path, target=target))


def symlink_outside(path: str, target: str) -> InputProblem:
    return InputProblem(finding("SD517", path=path, target=target))


def config_file_invalid(path: str, reason: str) -> InputProblem:
    return InputProblem(finding("SD518", path=path, reason=reason))


def report_unwritable(path: str, reason: str) -> Result:
    """`render --output FILE` cannot be opened or written: the report goes to stderr, with this error."""
    return _failure(finding("SD519", path=path, reason=reason))


# --- writing and running ---------------------------------------------------------------------------------

def stdout_closed() -> Result:
    return _failure(finding("SD060"))


def pipe_closed(done: int, total: int) -> Result:
    return _failure(finding("SD061", done=done, total=total))


def cannot_write(reason: str, done: int | None = None, total: int | None = None) -> Result:
    """`done` of `total` bytes written, where the writer counts them (the real stdout's descriptor)."""
    if done is None:
        return _failure(finding("SD062.uncounted", reason=reason))
    return _failure(finding("SD062.counted", reason=reason, done=done, total=total))


def interrupted() -> Result:
    return _failure(finding("SD063"))


def too_deep() -> Result:
    return _failure(finding("SD064"))


def internal_error(exc: Exception) -> Result:
    return _failure(finding("SD065", exception=type(exc).__name__, reason=" ".join(str(exc).split())))
