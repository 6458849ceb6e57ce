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
    field of ObjectMeta but the identity's and the labels and annotations, which it reads itself."""
    assert text_items.TYPED_META == set(object_meta.OBJECT_META.fields) - {
        "name", "namespace", "generateName", "labels", "annotations"}


def test_null_and_unknown_pass_at_every_depth() -> None:
    meta = {"ownerReferences": [None, {"controller": None, "Controller": "x", "uid": None}],
            "managedFields": [{"fieldsV1": {"f:a": {}}, "time": None}], "finalizers": None, "labels": None}
    assert object_meta.wrong(meta) == []
