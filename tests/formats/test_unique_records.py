"""The duplicate check of the record readers when it keeps only hashes of the ids (and
reads the file again for the first line of an id met twice) against the check that keeps
every id: the same records pass, then the same error."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgeapp.formats import FormatError, checks, iter_documents
from judgeapp.records import Document


def _run(records: list[Document], again: bool) -> tuple[list[int], str | None]:
    stream = checks.unique_records(
        "f", iter(records), "docno", "empty", again=(lambda: iter(records)) if again else None
    )
    passed: list[int] = []
    try:
        passed.extend(r.line for r in stream)
    except FormatError as exc:
        return passed, str(exc)
    return passed, None


ids = st.lists(st.sampled_from(["a", "b", "c", "d"] + [f"x{i}" for i in range(40)]), max_size=60)


@settings(max_examples=200, deadline=None)
@given(ids, st.sampled_from([1, 2, 7, 512]), st.booleans())
def test_hashes_and_ids_find_the_same_duplicate(docnos, batch, colliding):
    records = [Document(d, line=3 * k + 1) for k, d in enumerate(docnos)]
    with pytest.MonkeyPatch.context() as m:
        m.setattr(checks, "HASH_BATCH", batch)
        if colliding:  # every id the same hash: only reading again tells them apart
            m.setattr(checks, "hash", lambda _: 7, raising=False)
        assert _run(records, again=True) == _run(records, again=False)


def test_a_docno_far_apart_is_found_with_both_lines(tmp_path: Path) -> None:
    n = 3 * checks.HASH_BATCH
    path = tmp_path / "docs.tsv"
    lines = [f"D{k}\ttext {k}" for k in range(n)] + ["D5\tagain"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    seen = []
    with pytest.raises(FormatError) as caught:
        seen.extend(d.docno for d in iter_documents(path, "tsv"))
    assert str(caught.value) == f"{path}:{n + 1}: duplicate docno D5 at lines 6 and {n + 1}"
    assert len(seen) == n  # every document before the duplicate came first
