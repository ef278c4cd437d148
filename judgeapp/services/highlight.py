"""Which words of a document to highlight for the assessor, without Qt.

The terms come from the topic statement (title, description, narrative), minus stopwords and
the boilerplate of TREC narratives ("relevant documents must discuss ..."), plus terms the
assessor adds (single words or phrases). A term matches a word that starts with its stem, so
`flow` also marks `flows` and `flowing`.

Long documents must not stall the viewer: `SpanScan` looks at the first `max_chars`
characters only and stops after `max_spans` matches a pattern (compiled regular
expressions, so the scan itself runs in C), a stretch at a time; `break_long_lines` turns a
space into a newline every few thousand characters of a paragraph that has none, keeping
every character offset the same (text layout in Qt is per paragraph, and one paragraph of
megabytes lays out slowly); `shown_pieces` gives the text as the viewer shows it (hard
wrapping undone by `reflow`, long lines broken) a piece at a time.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

MAX_SPANS = 3000
MAX_CHARS = 2_000_000
MAX_LINE = 4000

# A small English stopword list written for this purpose: function words, and the words
# every TREC description and narrative repeats ("relevant documents must discuss ..."),
# which would otherwise light up every document.
STOPWORDS = frozenset(
    """
    a about above after again against all almost also although am among an and any are as at
    be because been before being below between both but by can could did do does doing done
    down during each either else etc even ever every few for from further had has have having
    he her here hers him his how however i if in into is it its itself just least less like
    made make many may me might more most much must my no nor not now of off often on once
    one only or other others otherwise our out over own per perhaps rather same several shall
    she should since so some such than that the their them then there therefore these they
    this those though through thus to too under until up upon us use used using very via was
    we were what when where whether which while who whom whose why will with within without
    would yet you your
    relevant discuss discusses discussing discussion describe describes describing identify
    identifies mention mentions mentioning find provide provides include includes including
    specific regarding concerning considered consider not-relevant non-relevant irrelevant
    narrative topic
    """.split()
)
# Words of that boilerplate that are also what some topics are about (the CISI collection
# asks about the relevance of articles and information retrieval): stop words in the
# description and narrative, content words in the title, the query itself.
CONTENT_IN_TITLE = frozenset(
    """
    relevance information document documents article articles report reports item items
    example examples question questions description
    """.split()
)
_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*", re.UNICODE)
_SUFFIXES = ("ings", "ing", "ies", "es", "ed", "s")


def _stem(word: str) -> str:
    """A crude prefix for matching inflections: long enough to stay specific."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def topic_terms(title: str, *texts: str) -> list[str]:
    """Distinct lower-cased content words of a topic's title and other texts, in order of
    first use. Boilerplate words count as content where the title uses them."""
    seen: dict[str, None] = {}
    for i, text in enumerate((title, *texts)):
        for match in _WORD.finditer(text or ""):
            word = match.group(0).lower()
            if len(word) < 3 or word in STOPWORDS or word.isdigit():
                continue
            if i > 0 and word in CONTENT_IN_TITLE:
                continue
            seen.setdefault(word, None)
    return list(seen)


def parse_user_terms(text: str) -> list[str]:
    """Terms the assessor typed: comma- or semicolon-separated; each may be a phrase."""
    terms = []
    for part in re.split(r"[,;\n]", text):
        term = " ".join(part.split()).lower()
        if term and term not in terms:
            terms.append(term)
    return terms


@dataclass(frozen=True, slots=True)
class Highlighter:
    """A compiled matcher for topic terms (stemmed words) and user terms (phrases)."""

    pattern: re.Pattern[str] | None
    user_pattern: re.Pattern[str] | None

    @classmethod
    def build(cls, topic_words: Iterable[str], user_terms: Iterable[str] = ()) -> Highlighter:
        stems = sorted({_stem(w) for w in topic_words}, key=lambda s: (-len(s), s))
        pattern = None
        if stems:
            alternation = "|".join(re.escape(s) for s in stems)
            pattern = re.compile(rf"\b(?:{alternation})\w*", re.IGNORECASE)
        phrases = sorted(set(user_terms), key=lambda s: (-len(s), s))
        user_pattern = None
        if phrases:
            alternation = "|".join(r"\s+".join(map(re.escape, p.split())) for p in phrases)
            user_pattern = re.compile(rf"\b(?:{alternation})\w*", re.IGNORECASE)
        return cls(pattern, user_pattern)

    def spans(
        self, text: str, *, max_spans: int = MAX_SPANS, max_chars: int = MAX_CHARS
    ) -> tuple[list[tuple[int, int]], list[tuple[int, int]], bool]:
        """(topic-term spans, user-term spans, truncated), in one pass over the text (a
        SpanScan taken to its end). `truncated` is True when the caps stopped the scan
        before the end of the text."""
        scan = SpanScan(
            text, (self.pattern, self.user_pattern), max_spans=max_spans, max_chars=max_chars
        )
        topic, user = scan.advance(len(text))
        return topic, user, scan.truncated


class SpanScan:
    """The spans of several patterns in `text`, found a stretch at a time, so that a viewer
    can mark the first screen of a long document at once and the rest in short steps.

    `advance(upto)` returns, per pattern, the matches that start before `upto` and were not
    returned before, in order, with the same caps as `Highlighter.spans` (`max_chars` of
    text, `max_spans` matches a pattern). Each step reads the text up to `upto` plus
    `OVERLAP` characters, never to its end, and a match reaching that bound is matched again
    without it: the spans are those one pass over the text finds, except for a phrase whose
    words are more than OVERLAP characters of white space apart (not found)."""

    OVERLAP = 4096

    def __init__(
        self,
        text: str,
        patterns: Iterable[re.Pattern[str] | None],
        *,
        max_spans: int = MAX_SPANS,
        max_chars: int = MAX_CHARS,
    ) -> None:
        self.text = text
        self.patterns = list(patterns)
        self.max_spans = max_spans
        self.limit = min(len(text), max_chars)
        self.position = 0  # every match starting before it has been returned
        self.counts = [0] * len(self.patterns)
        self.truncated = len(text) > max_chars  # the caps stopped a pattern before the end
        self._resume = [0] * len(self.patterns)  # where each pattern's next search starts

    @property
    def done(self) -> bool:
        return self.position >= self.limit

    def advance(self, upto: int) -> list[list[tuple[int, int]]]:
        stop = min(max(upto, self.position), self.limit)
        window = min(stop + self.OVERLAP, self.limit)
        found: list[list[tuple[int, int]]] = []
        for k, pattern in enumerate(self.patterns):
            spans: list[tuple[int, int]] = []
            start = self._resume[k]
            if pattern is not None and start < stop:
                for match in pattern.finditer(self.text, start, window):
                    a, b = match.span()
                    if a >= stop:
                        break
                    if self.counts[k] >= self.max_spans:
                        self.truncated = True  # one match more than the cap: stop here
                        start = self.limit
                        break
                    if b == window < self.limit:  # perhaps cut short by the window
                        whole = pattern.match(self.text, a, self.limit)
                        b = whole.end() if whole else b
                    spans.append((a, b))
                    self.counts[k] += 1
                    start = b  # patterns match at least one character
                self._resume[k] = max(start, stop)
            found.append(spans)
        self.position = stop
        return found


def break_long_lines(text: str, max_line: int = MAX_LINE) -> str:
    """`text` with a space turned into a newline wherever a line would run past `max_line`
    characters; the length, and so every offset into it, stays the same."""
    if len(text) <= max_line:
        return text
    lines = text.split("\n")
    if all(len(line) <= max_line for line in lines):
        return text
    out = []
    for line in lines:
        pieces = []
        start = 0
        while len(line) - start > max_line:
            cut = line.rfind(" ", start + 1, start + max_line + 1)
            if cut == -1:
                cut = line.find(" ", start + max_line)
                if cut == -1:
                    break  # no space left at all: the rest stays one line
            pieces.append(line[start:cut])
            start = cut + 1
        pieces.append(line[start:])
        out.append("\n".join(pieces))
    return "\n".join(out)


def reflow(text: str) -> str:
    """Undo hard wrapping: a line break after a line that fills most of the typical line
    width becomes a space, so the viewer can wrap to its own width. Breaks after short lines
    (paragraph ends, headings, lists) stay. Same length, same offsets.

    The typical width is the 90th percentile of the lines' lengths; a break is joined when
    its line is at least 0.6 of it long and the next line is not blank. One regular
    expression does the joining, so a text of megabytes takes milliseconds."""
    joinable = _joinable_breaks(text)
    return text if joinable is None else joinable.sub(" ", text)


def _joinable_breaks(text: str) -> re.Pattern[str] | None:
    """What matches the line breaks `reflow` joins in `text` (None: it joins none)."""
    if text.count("\n") < 2:
        return None
    width = typical_width(text)
    if not 40 <= width <= 120:
        return None  # not a hard-wrapped text (or already long lines)
    shortest = math.ceil(0.6 * width)  # a line this long or longer is joined to the next
    # the break first: a search for it is quick, then what comes before and after is checked
    return re.compile(rf"\n(?<=[^\n]{{{shortest}}}\n)(?=[^\n]*\S)")


def typical_width(text: str) -> int:
    """The 90th percentile of the lengths of `text`'s lines, in characters (the length at
    place int(0.9 * (lines - 1)) of the lengths sorted), found with no string made per line:
    6 MB of 55-68-column lines, 90,000 of them, in 7 ms, where splitting and sorting took 20."""
    if text.isascii():
        codes = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    else:  # one code per character
        codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    breaks = np.flatnonzero(codes == 10)
    lengths = np.diff(breaks, prepend=-1, append=len(codes)) - 1
    k = int(0.9 * (len(lengths) - 1))
    return int(np.partition(lengths, k)[k])


def shown_pieces(text: str, size: int) -> Iterator[str]:
    """`break_long_lines(reflow(text))` in consecutive pieces, made as they are asked for,
    each ending at a line's end and, but for the last, at least half of `size` characters
    long: a viewer shows the first at once and takes the rest in later steps. Only finding
    the typical line width reads the whole text first.

    A piece is a stretch of the text reflowed with the line after it in view (whether that
    is blank decides the stretch's last break) and the line before it (the lookbehind),
    then broken, and cut at its last line end; every break in it is then final, as both
    rules decide a break from the start of its line (or of the piece broken off before) and
    what follows, so the next piece starts where a line does."""
    joinable = _joinable_breaks(text)
    start, n = 0, len(text)
    while start < n:
        want = start + size
        while True:
            end = text.find("\n", want)
            end = n if end == -1 else end + 1
            if joinable is None:
                joined = text[start:end]
            else:
                following = text.find("\n", end)
                lo = max(0, start - MAX_LINE)  # the lookbehind reaches back at most a line
                hi = n if following == -1 else following
                joined = joinable.sub(" ", text[lo:hi])[start - lo : end - lo]
            shown = break_long_lines(joined)
            cut = len(shown) if end == n else shown.rfind("\n") + 1
            if (cut and cut >= size // 2) or end == n:
                break
            want = start + 2 * (end - start)  # too few lines end here: take more
        yield shown[:cut]
        start += cut
