"""The simple commands of a `sh -c` script, with the position of every word, so a script can be edited
in place (an insertion at one offset) and never re-joined: the user's quoting and spacing stay byte for byte.

`shlex` cannot say where a word starts and ends, so the scan is done here; `shlex` then gives each word's
value (quotes removed). The scan knows POSIX sh quoting ('…', "…", backslash, line continuation),
`$(…)`, `${…}` and backquotes inside words, comments, control operators and redirections. What it cannot
follow safely (a here-document, an unterminated quote or substitution) raises `Unreadable` with the reason,
and the caller leaves the script alone.
"""

from typing import NamedTuple
import re
import shlex


class Unreadable(ValueError):
    """The script has a shape the scan cannot follow safely; the message says which."""


class Word(NamedTuple):
    text: str     # as written, quotes included
    start: int
    end: int

    @property
    def value(self) -> str:
        """The word as the shell passes it on (quotes removed); the written text when the word holds an
        expansion `shlex` does not understand (its value is not known before run time anyway)."""
        if _QUOTING.isdisjoint(self.text):
            return self.text   # nothing to unquote (most words): no need for shlex
        try:
            # a line continuation inside a word joins its halves (shlex would keep the line break)
            parts = shlex.split(self.text.replace("\\\n", ""))
        except ValueError:
            return self.text
        return parts[0] if len(parts) == 1 else self.text


class Command(NamedTuple):
    """A simple command: its words (redirections and their targets left out) and where it ends."""
    words: tuple[Word, ...]


# Longest first: the scan takes the longest operator that matches.
_OPERATORS = ("&>>", "<<<", "<<-", "&&", "||", ";;", ";&", "|&", "&>", ">>", ">&", ">|", "<<", "<&", "<>",
              "(", ")", ";", "&", "|", "<", ">", "\n")
_OPERATOR = re.compile("|".join(re.escape(o) for o in _OPERATORS))   # alternation in order: longest first
_SEPARATORS = {"&&", "||", ";;", ";&", "|&", ";", "&", "|", "(", ")", "\n"}
_HEREDOC = {"<<", "<<-"}
_WORD_END = frozenset(" \t\r\n;&|<>()")   # a CR ends a word too: a CRLF script's lines stay whole
_OPERATOR_START = frozenset("&|;<>()\n")
_QUOTING = frozenset("'\"\\")
_PLAIN = re.compile(r"[^ \t\r\n;&|<>()'\"`$\\]+")   # a run of characters that need no thought
_IO_NUMBER = re.compile(r"[0-9]+")


def _skip_quoted(s: str, i: int) -> int:
    """From an opening quote or substitution at `i`, the index just past its end."""
    c = s[i]
    if c == "'":
        end = s.find("'", i + 1)
        if end < 0:
            raise Unreadable("an unterminated single quote")
        return end + 1
    if c not in '"`':
        raise AssertionError(c)
    i += 1
    while i < len(s):
        if s[i] == "\\":
            i += 2
        elif s[i] == c:
            return i + 1
        elif c == '"' and s[i] in "$`":   # a double-quoted string's substitutions may hold quotes
            i = _skip_dollar(s, i) if s[i] == "$" else _skip_quoted(s, i)
        else:
            i += 1
    raise Unreadable("an unterminated double quote" if c == '"' else "an unterminated backquote")


def _skip_dollar(s: str, i: int) -> int:
    """From a `$` at `i`: past `$(…)`, `$((…))` or `${…}` (nesting and quotes inside followed), else past `$`."""
    if i + 1 >= len(s) or s[i + 1] not in "({":
        return i + 1
    opener = s[i + 1]
    close = ")" if opener == "(" else "}"
    depth, i = 1, i + 2
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c in "'\"`":
            i = _skip_quoted(s, i)
            continue
        if c == "$":
            i = _skip_dollar(s, i)
            continue
        if c == opener:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise Unreadable("an unterminated $( or ${ substitution")


def tokens(script: str) -> list[tuple[str, int, int]]:
    """(kind, start, end) for every word ("word"), IO number ("io") and operator ("op") of `script`."""
    try:
        return _tokens(script)
    except RecursionError:
        raise Unreadable("substitutions nested too deeply") from None


def _tokens(script: str) -> list[tuple[str, int, int]]:
    out: list[tuple[str, int, int]] = []
    i, n = 0, len(script)
    while i < n:
        c = script[i]
        if c in " \t\r":
            i += 1
            continue
        if script.startswith("\\\n", i):   # a line continuation between words
            i += 2
            continue
        if c == "#":                        # a comment runs to the end of the line
            end = script.find("\n", i)
            i = n if end < 0 else end
            continue
        match = _OPERATOR.match(script, i) if c in _OPERATOR_START else None
        if match is not None:
            op = match.group()
            if op in _HEREDOC:
                raise Unreadable("a here-document")
            if op in ("<", ">") and script.startswith("(", i + 1):
                raise Unreadable("a process substitution")   # bash's <(…) is a word, not a redirection
            out.append(("op", i, i + len(op)))
            i += len(op)
            continue
        start = i
        while i < n and script[i] not in _WORD_END:
            plain = _PLAIN.match(script, i)
            if plain:
                i = plain.end()
                continue
            c = script[i]
            if c == "\\":
                i += 2
            elif c in "'\"`":
                i = _skip_quoted(script, i)
            elif c == "$":
                i = _skip_dollar(script, i)
            else:
                i += 1
        i = min(i, n)
        kind = "io" if i < n and script[i] in "<>" and _IO_NUMBER.fullmatch(script[start:i]) else "word"
        out.append((kind, start, i))
    return out


def commands(script: str) -> list[Command]:
    """The simple commands of `script`, in order; a redirection's operator and target are not words."""
    found: list[Command] = []
    words: list[Word] = []
    redirect_target = False
    for kind, start, end in tokens(script):
        text = script[start:end]
        if kind == "op":
            if text in _SEPARATORS:
                if words:
                    found.append(Command(tuple(words)))
                words, redirect_target = [], False
            else:
                redirect_target = True
            continue
        if kind == "io":
            continue
        if redirect_target:
            redirect_target = False
            continue
        words.append(Word(text, start, end))
    if words:
        found.append(Command(tuple(words)))
    return found
