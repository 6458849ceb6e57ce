"""ObjectMeta's Go types (krm_fn/domain/object_meta.py) against kubectl 1.32's verdicts (tests/object_meta_cases.py)."""
import pytest

from krm_fn.domain import object_meta
from krm_fn.text import items as text_items
from krm_fn.text import reader
from object_meta_cases import CASES, CM, TIMES


def _meta(body: str) -> dict:
    text = CM + "".join(f"  {line}\n" for line in body.split("\n"))
    (item,) = reader.read_stream([("m.yaml", text.encode())]).items
    return item.data()["metadata"]


@pytest.mark.parametrize("body, want", CASES.values(), ids=CASES.keys())
def test_the_fields_kubectl_refuses(body: str, want: str | None) -> None:
    assert [w.path for w in object_meta.wrong(_meta(body))] == ([want] if want else [])


@pytest.mark.parametrize("text, ok", TIMES.items(), ids=TIMES.keys())
def test_times_as_go_parses_rfc3339(text: str, ok: bool) -> None:
    assert (object_meta.rfc3339(text) is None) == ok, object_meta.rfc3339(text)


# kubectl 1.32's words for some (`unable to decode "F": …`).
GO_WORDS = {
    "x": 'parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"',
    "2024-01-01": 'parsing time "2024-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"',
    "2024-02-30T00:00:00Z": 'parsing time "2024-02-30T00:00:00Z": day out of range',
    "2024-01-01t00:00:00Z": 'parsing time "2024-01-01t00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse '
                            '"t00:00:00Z" as "T"',
    "2024-01-01T00:00:00+25:00": 'parsing time "2024-01-01T00:00:00+25:00": time zone offset hour out of range',
    "2024-01-01T00:00:00.Z": 'parsing time "2024-01-01T00:00:00.Z" as "2006-01-02T15:04:05Z07:00": cannot parse '
                             '".Z" as "Z07:00"',
    "2024-1-01T00:00:00Z": 'parsing time "2024-1-01T00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse '
                           '"1-01T00:00:00Z" as "01"',
    "2024-13-01T00:00:00Z": 'parsing time "2024-13-01T00:00:00Z": month out of range',
}


@pytest.mark.parametrize("text, said", GO_WORDS.items(), ids=GO_WORDS.keys())
def test_times_said_in_go_words(text: str, said: str) -> None:
    assert object_meta.rfc3339(text) == said


def test_the_reader_flags_every_typed_key() -> None:
    """The reader's walk flags an item whose metadata has a key SD067 checks (text/items.TYPED_META): every
    field of ObjectMeta but the identity's and the labels and annotations, which it reads itself; a scalar one
    (text/items._SCALAR_FIELDS, of the same type as here) only when its value is not surely right."""
    fields = object_meta.OBJECT_META.fields
    assert text_items.TYPED_META == set(fields) - {"name", "namespace", "generateName", "labels", "annotations"}
    assert text_items._SCALAR_FIELDS == {k: v for k, v in fields.items() if k in text_items.TYPED_META
                                         and v in (object_meta.STRING, object_meta.INTEGER, object_meta.TIME)}


SURE = {"uid: x", "resourceVersion: '5'", "selfLink: /a", "uid: 2024-01-01", "generation: 5", "generation: -5",
        "deletionGracePeriodSeconds: 30", "creationTimestamp: null", "creationTimestamp:", "generation: ~",
        "creationTimestamp: '2024-02-28T23:59:59Z'", "creationTimestamp: 2024-01-01T00:00:00.5+05:30",
        "deletionTimestamp: \"1999-12-28T00:00:00-08:00\"", "ownerReferences: null", "labels: {a: b}", "annotations:", "name: x"}
UNSURE = {"uid: 5", "generation: '5'", "generation: 2.0", "generation: 1234567890123456789", "generation: 0x10",
          "creationTimestamp: 5", "creationTimestamp: '2024-02-29T00:00:00Z'", "creationTimestamp: 2024-01-01",
          "creationTimestamp: '2024-01-01T5:04:05Z'", "finalizers: []", "labels: []", "deletionTimestamp: 1999-12-31T00:00:00Z",
          "managedFields: [{}]", "name: 5", "namespace: {a: b}", "generateName: [x]", "annotations: x"}


@pytest.mark.parametrize("line", sorted(SURE | UNSURE))
def test_the_reader_flags_what_may_be_wrong(line: str) -> None:
    """Only an item whose metadata may be wrong is composed for SD067: the walk's flag, and a node's."""
    text = CM.replace("  name: a\n", "") + ("" if line.startswith("name:") else "  name: a\n") + f"  {line}\n"
    (walked,) = reader.read_stream([("m.yaml", text.encode())]).items
    composed = text_items.make_item(0, walked.node, text)
    assert walked.typed_meta == composed.typed_meta == (line in UNSURE)


def test_null_and_unknown_pass_at_every_depth() -> None:
    meta = {"ownerReferences": [None, {"controller": None, "Controller": "x", "uid": None}],
            "managedFields": [{"fieldsV1": {"f:a": {}}, "time": None}], "finalizers": None, "labels": None}
    assert object_meta.wrong(meta) == []
