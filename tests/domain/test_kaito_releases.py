"""KAITO's releases: parsed once, compared as numbers, printed as KAITO names them."""
from __future__ import annotations

import pytest

from krm_fn.domain import kaito_releases as K


@pytest.mark.parametrize("text, release", [
    ("v0.12.0", (0, 12, 0)), ("0.12", (0, 12, 0)), ("v0.12.1-rc.1", (0, 12, 1)), ("v1.0.3+build", (1, 0, 3)),
])
def test_a_release_is_parsed_from_the_spellings_people_write(text: str, release: tuple[int, int, int]) -> None:
    assert K.parse(text) == release


@pytest.mark.parametrize("text", ["", "v0", "latest", "v0.x.1", "0.١٢", "v0.12.0.1", "1" * 10 + ".0"])
def test_anything_else_is_no_release(text: str) -> None:
    with pytest.raises(ValueError):
        K.parse(text)


def test_releases_compare_as_numbers_and_print_as_kaito_tags_them() -> None:
    assert K.parse("v0.9.0") < K.parse("v0.10.0") < K.parse("v0.10.1")
    assert str(K.parse("0.12")) == "v0.12.0" and K.parse("0.12").minor_release == "v0.12"


def test_the_known_range_is_by_minor_release() -> None:
    assert K.known(K.parse("v0.3.9")) and K.known(K.parse("v0.13.4"))
    assert not K.known(K.parse("v0.2.0")) and not K.known(K.parse("v0.14.0"))
    assert K.FIRST_KNOWN <= K.MODELLED_FROM <= K.DEFAULT <= K.LAST_KNOWN
