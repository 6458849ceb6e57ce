"""Bytes in and bytes out, by the KRM function protocol: nothing here knows KAITO.

`yamlio` is libyaml in and out (compose, construct, dump); `go_scalars` what kubectl reads of a scalar
(go-yaml's rules), `refusals` what the function refuses and why, `tree` a node tree and where it is in the
text. `reader` walks libyaml's events once and turns the input into items that keep their positions, each
with its `identity`; `textedit` applies JSON Patch as small text edits and checks itself
by re-parsing; `writer` splices those edits into the input, so every byte the function did not change is
the user's. `results` is the one Result type and its renderings, `krm` the protocol's names, `edits` the
value the writer applies.
"""
