"""Highlighting terms: topic words minus stopwords, stems, user phrases, caps on long texts."""

from __future__ import annotations

import itertools

from judgeapp.services.highlight import (
    Highlighter,
    break_long_lines,
    parse_user_terms,
    topic_terms,
)


def words(text, spans):
    return [text[a:b] for a, b in spans]


def test_topic_terms_skip_stopwords_boilerplate_and_numbers():
    terms = topic_terms(
        "what similarity laws must be obeyed",
        "Relevant documents discuss the 1950 heated aircraft models.",
    )
    assert terms == ["similarity", "laws", "obeyed", "heated", "aircraft", "models"]


def test_boilerplate_words_stay_where_the_topic_is_about_them():
    # a classic-collection query (its text is the title) about relevance and articles
    assert topic_terms("What is the relevance of articles to information needs?") == [
        "relevance",
        "articles",
        "information",
        "needs",
    ]
    # a TREC topic: the same words in its description and narrative are boilerplate
    assert topic_terms(
        "hubble telescope",
        "Identify documents giving information on the telescope.",
        "Relevant articles report its repairs; a question about the relevance of news items.",
    ) == ["hubble", "telescope", "giving", "repairs", "news"]
    # the title's words are highlighted everywhere, also where the narrative repeats them
    assert topic_terms("document retrieval", "Documents about retrieval.") == [
        "document",
        "retrieval",
    ]


def test_stems_match_inflections_and_case():
    text = "Heat flows. The HEATED model; modelling heats aircraft-flow flowing."
    topic, user, truncated = Highlighter.build(["heated", "models", "flow"]).spans(text)
    assert words(text, topic) == [
        "Heat",
        "flows",
        "HEATED",
        "model",
        "modelling",
        "heats",
        "flow",
        "flowing",
    ]
    assert user == [] and truncated is False


def test_user_phrases_match_across_whitespace():
    assert parse_user_terms(" boundary  layer, shock ;; Shock\n") == ["boundary layer", "shock"]
    text = "the boundary\nlayer and shock waves; a boundary condition"
    topic, user, _ = Highlighter.build([], parse_user_terms("boundary layer, shock")).spans(text)
    assert topic == []
    assert words(text, user) == ["boundary\nlayer", "shock"]


def test_caps_bound_the_work_on_huge_documents():
    text = "shock " * 100_000
    topic, _, truncated = Highlighter.build(["shock"]).spans(text, max_spans=50)
    assert len(topic) == 50 and truncated
    topic, _, truncated = Highlighter.build(["shock"]).spans(text, max_chars=60)
    assert len(topic) == 10 and truncated


def test_breaking_long_lines_keeps_every_offset():
    text = ("word " * 3000) + "\nshort line\n" + "x" * 9000 + " tail"
    broken = break_long_lines(text, max_line=100)
    assert len(broken) == len(text)
    assert all(b == a or (a, b) == (" ", "\n") for a, b in zip(text, broken, strict=True))
    lines = broken.split("\n")
    assert max(len(line) for line in lines[:-3]) <= 100
    assert "x" * 9000 in lines  # no space to break at: left whole
    assert break_long_lines("short\ntext", max_line=100) == "short\ntext"


def _one_pass(pattern, text: str, max_spans: int, max_chars: int):
    """The matches of `pattern` in the first `max_chars` characters, at most `max_spans` of
    them, and whether there were more (or more text): the caps' rule, in one plain pass."""
    matches = [m.span() for m in pattern.finditer(text[:max_chars])]
    return matches[:max_spans], len(matches) > max_spans or len(text) > max_chars


def test_a_scan_in_stretches_finds_what_one_pass_finds():
    """SpanScan, which the viewer runs a few thousand characters at a time, returns the same
    spans as one plain pass over the whole text, caps included, however the
    text is cut into stretches: matches that run over a stretch's end (a word's tail, a
    phrase over a line break) are whole, none is returned twice."""
    import random

    from judgeapp.services.highlight import SpanScan

    rng = random.Random(7)
    vocabulary = "flow flows boundary layer layers pressure the of and wing shock wave".split()
    separators = [" ", " ", "\n", "  ", "\n\n", ", ", "-"]
    highlighter = Highlighter.build(["flow", "pressure"], ["boundary layer", "shock wave"])
    patterns = [highlighter.pattern, highlighter.user_pattern]
    for _ in range(200):
        text = "".join(
            rng.choice(vocabulary) + rng.choice(separators) for _ in range(rng.randint(0, 4000))
        )
        max_spans = rng.choice([5, 200, 3000])
        max_chars = rng.choice([len(text) + 1, max(1, len(text) // 2)])
        topic, cut_topic = _one_pass(highlighter.pattern, text, max_spans, max_chars)
        user, cut_user = _one_pass(highlighter.user_pattern, text, max_spans, max_chars)
        truncated = cut_topic or cut_user
        assert highlighter.spans(text, max_spans=max_spans, max_chars=max_chars) == (
            topic,
            user,
            truncated,
        )  # the one pass over the whole text the viewer no longer makes
        scan = SpanScan(text, patterns, max_spans=max_spans, max_chars=max_chars)
        scan.OVERLAP = rng.choice([40, 4096])  # a stretch's end often inside a phrase
        found: list[list[tuple[int, int]]] = [[], []]
        while not scan.done:
            for k, spans in enumerate(scan.advance(scan.position + rng.randint(1, 2000))):
                found[k] += spans
        assert found == [topic, user]
        assert scan.truncated == truncated
        assert scan.counts == [len(topic), len(user)]


def _reflow_line_by_line(text: str) -> str:
    """The rule reflow follows, line by line: a break after a line of at least 0.6 of the
    typical width (the 90th percentile of line lengths, 40-120 characters) becomes a space
    when the next line is not blank."""
    lines = text.split("\n")
    if len(lines) < 3:
        return text
    lengths = sorted(len(line) for line in lines)
    width = lengths[int(0.9 * (len(lengths) - 1))]
    if not 40 <= width <= 120:
        return text
    out = []
    for line, following in itertools.pairwise(lines):
        out.append(line)
        out.append(" " if len(line) >= 0.6 * width and following.strip() != "" else "\n")
    out.append(lines[-1])
    return "".join(out)


def test_reflow_joins_hard_wrapped_lines_by_its_rule():
    import random

    from judgeapp.services.highlight import reflow

    rng = random.Random(11)
    pieces = [
        "flow",
        "boundary",
        "the",
        "a",
        "layer",
        "x" * 30,
        " ",
        " ",
        "\t",
        "\u00a0",
        "\r",
        "é",
    ]
    for _ in range(400):
        width = rng.choice([30, 60, 72, 100, 150])
        lines = []
        for _ in range(rng.randint(0, 60)):
            kind = rng.random()
            if kind < 0.15:
                lines.append(rng.choice(["", " ", "\u00a0\t", "\r"]))  # blank lines
            else:
                line = ""
                target = rng.randint(1, width) if kind < 0.4 else width - rng.randint(0, 8)
                while len(line) < target:
                    line += rng.choice(pieces) + " "
                lines.append(line[:target])
        text = "\n".join(lines)
        assert reflow(text) == _reflow_line_by_line(text)
        assert len(reflow(text)) == len(text)
    cranfield = "boundary layer flow over a flat plate at high mach number and low\n" * 20
    assert "\n" not in reflow(cranfield)[:-1]  # hard-wrapped lines joined


def test_the_typical_width_is_the_90th_percentile_of_the_line_lengths():
    import random

    from judgeapp.services.highlight import typical_width

    rng = random.Random(17)
    pieces = ["a", "flow ", "\r", "\t", "é", "\u00a0", "\U0001f600", "\u4e2d", "x" * 40, "\n"]
    for _ in range(500):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 120)))
        lengths = sorted(len(line) for line in text.split("\n"))
        assert typical_width(text) == lengths[int(0.9 * (len(lengths) - 1))], repr(text)
    assert typical_width("") == 0
    assert typical_width("\n\n") == 0
    assert typical_width("abc") == 3
    astral = "\U0001f600" * 50 + "\n"
    assert typical_width(astral * 2 + "b" * 10) == 50  # characters, not code units


def test_the_shown_text_in_pieces_is_the_whole_shown_text():
    """shown_pieces, which the viewer feeds to its editor a piece at a time, gives the same
    text as reflowing and breaking the whole at once, each piece ending at a line's end."""
    import random

    from judgeapp.services.highlight import reflow, shown_pieces

    rng = random.Random(13)
    words = ["flow", "boundary", "layer", "of", "the", "x" * 50, "pressure"]
    for _ in range(300):
        width = rng.choice([50, 72, 200])
        lines = []
        for _ in range(rng.randint(0, 200)):
            if rng.random() < 0.1:
                lines.append(rng.choice(["", "  "]))
                continue
            line = ""
            target = rng.choice([rng.randint(1, width), width, width - 3, 5000])
            while len(line) < target:
                line += rng.choice(words) + " "
            lines.append(line[:target])
        text = "\n".join(lines)
        size = rng.choice([1, 50, 700, 5000, 10**6])
        pieces = list(shown_pieces(text, size))
        assert "".join(pieces) == break_long_lines(reflow(text))
        assert all(p.endswith("\n") for p in pieces[:-1])
        assert all(len(p) >= size // 2 for p in pieces[:-1])
    # one paragraph of many hard-wrapped lines: joined, it is broken every few thousand
    # characters, and the pieces end at those breaks
    for seed in range(20):
        rng = random.Random(seed)
        lines = [
            " ".join(rng.choice(words[:5]) for _ in range(rng.randint(12, 16)))[:72]
            for _ in range(rng.randint(100, 3000))
        ]
        text = "\n".join(lines)
        size = rng.choice([300, 5000, 20_000])
        pieces = list(shown_pieces(text, size))
        assert "".join(pieces) == break_long_lines(reflow(text))
        assert len(pieces) > 1 or len(text) < size
