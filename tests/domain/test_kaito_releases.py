"""KAITO's releases: parsed once, compared as numbers, printed as KAITO names them."""
from __future__ import annotations

import re

import pytest

from krm_fn.domain import kaito_releases as K
from krm_fn.domain.vllm_schema import DEFAULT_VLLM_VERSION


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


# --- the vLLM each release's image runs (kaito-project/kaito presets/workspace/dependencies/requirements.txt:4) ---

@pytest.mark.parametrize("release, vllm", [
    ("v0.3.0", "0.6.3"), ("v0.4.0", "0.6.3"), ("v0.4.4", "0.6.3"), ("v0.4.5", "0.8.2"), ("v0.4.6", "0.8.5"),
    ("v0.5.0", "0.9.0"), ("v0.6.2", "0.9.0"), ("v0.7.2", "0.10.1.1"), ("v0.8.1", "0.12.0"), ("v0.9.4", "0.14.1"),
    ("v0.10.0", "0.17.1"), ("0.11", "0.22.1"), ("v0.12.0", "0.25.1"), ("v0.12.3", "0.25.1"), ("v0.13.0", "0.25.1"),
])
def test_each_release_is_judged_by_the_vllm_its_image_pins(release: str, vllm: str) -> None:
    assert K.image_vllm(K.parse(release)).vllm == vllm


def test_every_row_names_its_upstream_line_and_says_why_where_the_release_pins_none() -> None:
    rows = K.IMAGE_VLLM
    assert [r.since for r in rows] == sorted(r.since for r in rows)
    assert rows[0].since == K.FIRST_KNOWN and rows[-1].since == K.LAST_KNOWN
    for row in rows:
        assert re.fullmatch(r"presets/workspace/dependencies/requirements\.txt:4 (at v0\.[0-9]+\.[0-9]+|on main at "
                            r"[0-9a-f]{7})", row.source), row
    # v0.3's image runs no vLLM, v0.13.0 is not tagged: the nearest known, with a note that says so
    assert [r.since.minor_release for r in rows if r.note] == ["v0.3", "v0.13"]
    assert K.image_vllm(K.parse("v0.3.1")).said.startswith("v0.3's image runs no vLLM")
    assert K.image_vllm(K.parse("v0.10.0")).said == "presets/workspace/dependencies/requirements.txt:4 at v0.10.0"
    # With no kaitoVersion the newest release's image decides: the default every other module names.
    assert K.image_vllm(K.DEFAULT).vllm == DEFAULT_VLLM_VERSION
