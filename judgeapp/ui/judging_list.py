"""The judging view's list of the open topic's pooled documents: which rows it shows, as
the filter box (unjudged, skipped, flagged, judged, a grade) and the search box narrow it.

The search box asks the topic's full-text index (`PoolIndex`, built in a worker with the
topic's texts) in a worker at each key; the list follows when it answers, an answer to an
older text being dropped; until the index is built, docnos alone are searched. Which rows
are hidden is kept here, so that a pool of thousands of rows asks the view only about the
rows that change."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt

from judgeapp.services.queue import JudgingQueue
from judgeapp.services.search import PoolIndex
from judgeapp.services.workbench import Workbench
from judgeapp.ui.item_style import paint_items_in_cpp
from judgeapp.ui.judging_view import JudgingView
from judgeapp.ui.ops import Ops


class DocumentList:
    def __init__(
        self,
        view: JudgingView,
        ops: Ops,
        *,
        queue: Callable[[], JudgingQueue | None],
        current: Callable[[], int | None],
        index: Callable[[], PoolIndex | None],
        workbench: Callable[[], Workbench | None],
        show: Callable[[int | None], None],
        flags: dict[int, bool],
    ) -> None:
        """`queue()`, `current()`, `index()`, `workbench()`: the open topic's queue, the
        document shown, the topic's full-text index and the project; `show(doc)` shows a
        document; `flags`: the flags waiting for their document's grade (shown flagged)."""
        self.view = view
        # its cells painted by Fusion itself, with no call into Python per cell (the window's
        # style draws nothing of them): the rows of a judgment repaint at every grade key
        paint_items_in_cpp(view.list)
        self.ops = ops
        self.queue = queue
        self.current = current
        self.index = index
        self.workbench = workbench
        self.show = show
        self.flags = flags
        self.hidden: set[int] = set()  # the rows hidden by the filter or search
        # the document being read when another window judged it: its row stays listed
        # whatever the filter says until the reader moves on
        self.kept: int | None = None
        self.matches: set[int] | None = None  # the search box's matches (None: no search)
        self.searching = False  # the index has yet to answer the last key
        self.go_to_match = False  # Enter came before the search's result

    def forget_search(self) -> None:
        """Another topic: no search is running or waited for."""
        self.matches = None
        self.searching = False
        self.go_to_match = False

    # -- the list filter ------------------------------------------------------------------------
    def filtered(self) -> bool:
        return self.view.filter.currentData() != "all" or bool(self.view.search.text().strip())

    def passes(self, doc: int, kind: str) -> bool:
        queue = self.queue()
        assert queue is not None
        item = queue.item(doc)
        if kind == "unjudged":
            return item.grade is None
        if kind == "skipped":
            return doc in queue.skipped and item.grade is None
        if kind == "flagged":
            return item.flagged or bool(self.flags.get(doc))
        if kind == "judged":
            return item.grade is not None
        if kind.startswith("grade:"):
            return item.grade == int(kind.split(":", 1)[1])
        return True

    def set_items(self, items, blind: bool) -> None:
        """The list's rows (a model reset shows every row again)."""
        self.view.list_model.set_items(items, blind=blind)
        self.hidden = set()

    def row_hidden(self, row: int) -> bool:
        return row in self.hidden

    def apply(self, doc: int | None = None) -> None:
        """Hide the rows the search and the filter leave out (all of them, or `doc`'s)."""
        queue = self.queue()
        if queue is None:
            return
        kind = self.view.filter.currentData() or "all"
        matches = self.matches if self.view.search.text().strip() else None
        if doc is None and kind == "all" and matches is None:
            hide: set[int] = set()  # everything shown: no row to test
        else:
            rows = range(len(queue.items)) if doc is None else [queue.row_of(doc)]
            hide = set()
            kept = self.kept
            for row in rows:
                if row is None:
                    continue
                d = queue.items[row].doc_id
                if d == kept:
                    continue
                if not ((matches is None or d in matches) and self.passes(d, kind)):
                    hide.add(row)
            if doc is not None:
                row = queue.row_of(doc)
                hide = (self.hidden - {row}) | hide
        for row in self.hidden - hide:
            self.view.list.setRowHidden(row, False)
        for row in hide - self.hidden:
            self.view.list.setRowHidden(row, True)
        self.hidden = hide

    def on_filter_changed(self, _index: int) -> None:
        self.apply()
        queue = self.queue()
        if queue is None:
            return
        shown = [i.doc_id for r, i in enumerate(queue.items) if not self.row_hidden(r)]
        label = self.view.filter.currentText()
        if not shown:
            self.view.show_notice(f"The list shows nothing: no document is {label.lower()}.")
        else:
            self.view.clear_notice()
            if self.current() not in shown:
                self.show(shown[0])
        self.view.focus_document()

    def on_filter_step_triggered(self, step: int) -> None:
        combo = self.view.filter
        combo.setCurrentIndex((combo.currentIndex() + step) % combo.count())

    # -- moving among the rows shown --------------------------------------------------------------
    def next_to_judge(self, current: int | None) -> tuple[int | None, str | None]:
        """The next document to judge. While a search or a filter narrows the list, it is
        one of the rows shown: the judging order's proposal when the list shows it, else
        the next unjudged row shown after `current` (wrapping round); only when none is
        left does the judging go back to the whole pool's order, and the view says so.
        Otherwise the order's proposal (`JudgingQueue.next_unjudged`). With it, what to
        say when it is shown (None: nothing)."""
        queue = self.queue()
        assert queue is not None
        proposal = queue.next_unjudged(current)
        if not self.hidden or proposal is None:
            return proposal, None
        row = queue.row_of(proposal)
        if row is not None and not self.row_hidden(row):
            return proposal, None
        shown = queue.unjudged_after(current, lambda r: not self.row_hidden(r))
        if shown is not None:
            return shown, None
        what = "search" if self.view.search.text().strip() else "filter"
        notice = (
            f"Every document the {what} shows is judged: back to the judging order of the "
            "whole pool."
        )
        return proposal, notice

    def step(self, step: int) -> None:
        """The next (previous) document among the rows the list shows."""
        queue, current = self.queue(), self.current()
        if queue is None or not queue.items:
            return
        n = len(queue.items)
        if current is None:
            row = -1 if step > 0 else n
        else:
            found = queue.row_of(current)
            row = -1 if found is None else found
        row += step
        while 0 <= row < n and self.row_hidden(row):
            row += step
        if 0 <= row < n:
            self.show(queue.items[row].doc_id)
        else:
            self.view.show_notice(
                "No document "
                + ("after" if step > 0 else "before")
                + " this one in the list"
                + (" as filtered." if self.filtered() else ".")
            )

    # -- the search box -------------------------------------------------------------------------
    def on_search_triggered(self) -> None:
        self.view.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.view.search.selectAll()

    def on_search_text_changed(self, text: str) -> None:
        """Each key asks the topic's index in a worker; the list follows when it answers
        (an answer to an older text is dropped). Until the index is built, docnos alone."""
        queue, index = self.queue(), self.index()
        if queue is None or not text.strip():
            self.ops.invalidate("pool search")
            self.searching = False
            self.matches = None
            self.apply()
            self.view.viewer.set_search_terms([])
            if self.go_to_match:
                self.go_to_match = False
                self._go_to_first_match()
            return
        if index is None:
            needle = text.strip().lower()
            self._on_matches({i.doc_id for i in queue.items if needle in i.docno.lower()})
            return
        self.searching = True
        self.ops.read(lambda: index.matches(text), self._on_matches, key="pool search")

    def _on_matches(self, matches: set[int]) -> None:
        self.searching = False
        self.matches = matches
        self.apply()
        if self.go_to_match:
            self.go_to_match = False
            self._go_to_first_match()

    def on_search_return_pressed(self) -> None:
        """The first unjudged document among the matches (the first match when all are
        judged), with the words searched for marked in it; the search is logged."""
        queue, wb = self.queue(), self.workbench()
        if queue is None or wb is None:
            return
        text = self.view.search.text()
        if text.strip() and self.searching:
            # the answer to the last key is on its way: go once it is here
            self.go_to_match = True
        else:
            self._go_to_first_match()
        if text.strip() and wb.judging is not None and not wb.read_only:
            search, qid = wb.search(), queue.qid
            n = len(self.matches or ())
            self.ops.write(lambda: search.log_pool_search(qid, text, n), what="the search log")

    def _go_to_first_match(self) -> None:
        queue = self.queue()
        if queue is None:
            return
        text = self.view.search.text()
        found = self.matches if self.matches is not None else set()
        matches = [
            i.doc_id
            for r, i in enumerate(queue.items)
            if i.doc_id in found and not self.row_hidden(r)
        ]
        if matches:
            unjudged = [d for d in matches if queue.item(d).grade is None]
            self.view.viewer.set_search_terms(text.split())
            self.show(unjudged[0] if unjudged else matches[0])
            if not unjudged:
                self.view.show_notice(
                    f"Every document matching {text.strip()!r} is judged: showing the first."
                )
        else:
            self.view.show_notice(f"No pooled document matches {text.strip()!r}.")
        self.view.focus_document()
