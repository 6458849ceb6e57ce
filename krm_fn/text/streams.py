"""What can go wrong with the streams as wholes: input that cannot be read, input with nothing in it,
output that cannot be written. The messages and their ids; cli.py and pipeline.py, which do the reading
and writing, raise or report them (this module does no I/O).

None of these can be turned off (can_disable=False in the catalogue): each one means there is no output to trust.
"""

from typing import Any

from .results import Result, Severity



class InputProblem(Exception):
    """An input that cannot be read as given (unreadable, not a regular file, too large): one result."""

    def __init__(self, result: Result) -> None:
        super().__init__(result.message)
        self.result = result


def _failure(message: str, id: str, **where: Any) -> Result:
    return Result(Severity.ERROR, message, id=id, scope="", **where)


# --- reading: the ResourceList or the manifests ---------------------------------------------------------

def unreadable_input(message: str, scope: str = "ResourceList", **where: Any) -> Result:
    """The reader's own words (reader.InputError) for input that is not UTF-8, YAML or a ResourceList."""
    return Result(Severity.ERROR, message, id="SD001", scope=scope, **where)


def empty_piped_input(message: str) -> Result:
    return Result(Severity.ERROR, f"{message} (when a command piped into kaito-specdec failed, its own error above says why)", id="SD002")


def helm_template(message: str, **where: Any) -> Result:
    return Result(Severity.ERROR, f"{message}; this looks like a Helm template: render the chart with `helm template` and pipe that in", id="SD502", scope="render", **where)


def empty_stdin() -> Result:
    return Result(Severity.ERROR, "stdin is empty: no manifests to render (when a command piped into kaito-specdec failed, its own error above says why)", id="SD503", scope="render")


def no_objects(where: str) -> Result:
    return Result(Severity.ERROR, f"no Kubernetes objects in the input ({where}); expected manifests", id="SD504", scope="render")


def nothing_to_write(count: int) -> Result:
    return Result(Severity.ERROR, f"nothing to write: none of the {count} objects in the input is a manifest for a cluster (kustomize or kpt configuration, local-config objects, derived ConfigMaps no workload uses); an empty stream would make Argo CD prune everything", id="SD505", scope="render")


def stdin_closed(what: str) -> InputProblem:
    return InputProblem(_failure(f"stdin is closed; expected {what} on stdin", id="SD510"))


def stdin_unreadable(why: str) -> InputProblem:
    return InputProblem(_failure(f"stdin: cannot read: {why}", id="SD511"))


def too_large(name: str, limit: str) -> InputProblem:
    return InputProblem(_failure(f"{name}: the input is larger than the limit of {limit}; raise it with KAITO_SPECDEC_MAX_INPUT (e.g. 1Gi) or `render --max-input` if that much is expected", id="SD512"))


def cannot_open(path: str, why: str) -> InputProblem:
    return InputProblem(_failure(f"{path}: {why}", id="SD513"))


def not_regular(path: str, kind: str) -> InputProblem:
    return InputProblem(_failure(f"{path}: {kind}, not a regular file; render reads regular files and folders only (use - for stdin)", id="SD514"))


def folder_unreadable(folder: str, why: str) -> InputProblem:
    return InputProblem(_failure(f"{folder}: cannot read the folder: {why}; its manifests would be missing", id="SD515"))


def broken_symlink(path: str, target: str) -> InputProblem:
    return InputProblem(_failure(f"{path}: a broken symlink (to {target}); remove it or restore its target", id="SD516"))


def symlink_outside(path: str, target: str) -> InputProblem:
    return InputProblem(_failure(f"{path}: a symlink to {target}, outside the folders given; not followed (name that file or its folder on the command line to render it)", id="SD517"))


def config_file_invalid(path: str, why: str) -> InputProblem:
    return InputProblem(_failure(f"{path}: not a valid functionConfig: {why}", id="SD518"))


# --- writing and running ---------------------------------------------------------------------------------

def stdout_closed() -> Result:
    return _failure("stdout is closed: nowhere to write the output", id="SD060")


def pipe_closed(done: int, total: int) -> Result:
    return _failure(f"stdout: the reader closed the pipe after {done} of {total} bytes; the output is incomplete", id="SD061")


def cannot_write(why: str, done: int | None = None, total: int | None = None) -> Result:
    after = f" after {done} of {total} bytes" if done is not None else ""
    return _failure(f"stdout: cannot write the output ({why}){after}; the output is incomplete", id="SD062")


def interrupted() -> Result:
    return _failure("interrupted; any output is incomplete", id="SD063")


def too_deep() -> Result:
    return _failure("ResourceList: the input nests too deeply to process (hundreds of levels); no Kubernetes object does", id="SD064")


def internal_error(exc: Exception) -> Result:
    return _failure(f"kaito-specdec internal error: {type(exc).__name__}: {' '.join(str(exc).split())}", id="SD065")
