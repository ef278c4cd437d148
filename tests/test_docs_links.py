"""Every relative link of the README and of docs/ leads somewhere: to a file or folder of the
repository, and where it names a heading (`page.md#heading`, `#heading`), to a heading of
that page as GitHub spells its anchor. Links to other sites are not followed (offline)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)


def anchors(page: Path) -> set[str]:
    """GitHub's anchors for a page's headings: lower case, punctuation but `-` and `_`
    dropped, spaces as `-`; a repeated one gets `-1`, `-2`, ..."""
    found: set[str] = set()
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    for line in text.splitlines():
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        candidate, n = slug, 0
        while candidate in found:
            n += 1
            candidate = f"{slug}-{n}"
        found.add(candidate)
    return found


def links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)  # code spans are not links
    return [t for t in LINK.findall(text) if not re.match(r"[a-z][a-z0-9+.-]*:", t)]


def broken(page: Path) -> list[str]:
    bad = []
    for target in links(page):
        path_part, _, anchor = target.partition("#")
        dest = (page.parent / path_part).resolve() if path_part else page
        if not dest.exists():
            bad.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"{target}: no heading #{anchor} in {dest.name}")
    return bad


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    assert broken(page) == []


def test_the_check_finds_a_broken_file_and_a_broken_heading(tmp_path):
    (tmp_path / "other.md").write_text("# Other page\n\n## A `code` heading, (issue 28)\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](other.md) [ok](other.md#a-code-heading-issue-28) [ok](#here)\n"
        "[gone](missing.md) [gone](other.md#nowhere) [web](https://example.org/x)\n"
        "`[not a link](nothing.md)`\n\n## Here\n"
    )
    assert [b.split(":")[0] for b in broken(page)] == ["missing.md", "other.md#nowhere"]


def test_the_readme_is_short():
    """Issue 31: what it is, set-up, a screenshot, a tour, links; the rest is in docs/."""
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 300
