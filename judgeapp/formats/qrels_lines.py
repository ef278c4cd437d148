"""The line-precise reader of TREC qrels (``qid iter docno grade``; the rules are in
:mod:`judgeapp.formats.qrels`): every line checked where it stands, each problem raised as a
FormatError naming file, line and problem. The bulk reader hands it what it does not take
as it is."""

from __future__ import annotations

import numpy as np

from judgeapp.formats.columns import (
    check_duplicate_pairs,
    column_count_error,
    has_comment,
    has_odd_space,
    is_comment,
    split_fields,
    split_uniform,
    to_ints,
)
from judgeapp.formats.errors import FormatError
from judgeapp.formats.textio import MAX_COLUMN_LINE, Chunk, open_chunks
from judgeapp.records import QrelsFile

QRELS_COLUMNS = "4 columns (qid iter docno grade)"


class _QrelsBuilder:
    def __init__(self, path: str) -> None:
        self.path = path
        self.qids: list[str] = []
        self.docnos: list[str] = []
        self.grades: list[np.ndarray] = []
        self.lines: list[np.ndarray] = []

    def add_chunk(self, chunk: Chunk) -> None:
        text, first, n_lines = chunk.text, chunk.first_line, chunk.n_lines
        split = split_uniform(chunk)
        if split is not None and split[1] == 5 and not has_comment(text):
            toks = split[0]
            values = to_ints(self.path, toks[3::5], text, lambda i: first + i, "grade")
            self.qids += toks[0::5]
            self.docnos += toks[2::5]
            self.grades.append(values)
            self.lines.append(np.arange(first, first + n_lines, dtype=np.int64))
            return
        qids: list[str] = []
        docnos: list[str] = []
        grades: list[str] = []
        lines: list[int] = []
        line_no = first
        odd = has_odd_space(text)
        for line in text.split("\n")[:-1]:
            fields = split_fields(line, odd)
            if fields and not is_comment(fields):
                if len(fields) != 4:
                    raise column_count_error(self.path, line_no, QRELS_COLUMNS, len(fields))
                qids.append(fields[0])
                docnos.append(fields[2])
                grades.append(fields[3])
                lines.append(line_no)
            line_no += 1
        self.grades.append(to_ints(self.path, grades, text, lines.__getitem__, "grade"))
        line_array = np.array(lines, dtype=np.int64)
        check_duplicate_pairs(self.path, qids, docnos, line_array)
        self.qids += qids
        self.docnos += docnos
        self.lines.append(line_array)

    def build(self) -> QrelsFile:
        if not self.qids:
            raise FormatError(self.path, None, "no qrels lines found (empty file or only comments)")
        qrels = QrelsFile(
            path=self.path,
            qids=self.qids,
            docnos=self.docnos,
            grades=np.concatenate(self.grades),
            lines=np.concatenate(self.lines),
        )
        check_duplicates(qrels)
        return qrels


def check_duplicates(qrels: QrelsFile) -> None:
    """The same (qid, docno) twice is an error naming both lines."""
    check_duplicate_pairs(qrels.path, qrels.qids, qrels.docnos, qrels.lines)


def read_trec_qrels_lines(path: str) -> QrelsFile:
    """The line-precise reader of TREC qrels: every line checked where it stands."""
    builder = _QrelsBuilder(path)
    with open_chunks(path, max_line=MAX_COLUMN_LINE) as chunks:
        for chunk in chunks:
            builder.add_chunk(chunk)
    return builder.build()
