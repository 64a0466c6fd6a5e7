"""``ui.display.plain``: Markdown source that renders as exactly the user's text.

Rendered through a CommonMark renderer (markdown-it-py, with the GFM table and strikethrough
rules Streamlit also has): the only tags are paragraphs and line breaks, and the text equals the
input. Streamlit's own rewrites (``:name:`` shortcodes, ``->``/``--`` ligatures, ``:material/…:``
icons) are checked in the browser (tests/browser/test_literal_text.py).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from ui.display import WORD_JOINER, plain

HOSTILE = [
    "$$x^2$$", "inline $y$ and $$z$$ maths", ":red[alarm]", ":blue-background[bg] :small[s]", "**bold**",
    "__bold__ _it_ *it*", "<b>tag</b>", "<script>alert(1)</script>", "[link](http://x)",
    "![img](http://x/i.png)", "# heading", "### h3", "1. item", "2) item", "- dash", "+ plus",
    "* star", "> quote", "a &amp; b &lt; &#65;", "~~strike~~ ~sub~", "a | b", "| a | b |\n|---|---|",
    "`code` ``x``", "```\nfenced\n```", "x\\y \\* \\", "=1+2", "Setext\n===", "Setext\n---",
    "    indented code", "\tTabbed", "line1\nline2", "a\n\nb", "windows\r\nline", "-- a -> b <- c >= d",
    ":material/flag: :material_flag: :streamlit: :smile: :+1:", "ok: fine :) at 10:30", "{curly} (round)",
    "e-mail me@x.org, www.x.org", "https://x.org/a_b_c", "***", "_", "", "ordinary text, nothing odd.",
]


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.tags: set[str] = set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        if tag == "br":
            self.text.append("\n")

    def handle_data(self, data):
        self.text.append(data)


def rendered_text(markdown: str) -> tuple[str, set[str]]:
    """The visible text and the tags CommonMark (+ GFM tables, strikethrough) makes of ``markdown``."""
    html = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown)
    parser = _Text()
    parser.feed(html)
    parser.close()
    # markdown-it ends each block and <br /> with a newline of its own.
    text = "".join(parser.text).replace("\n\n", "\n").strip("\n")
    return text, parser.tags


@pytest.mark.parametrize("text", HOSTILE)
def test_escaped_markdown_renders_as_the_literal_text(text):
    text_out, tags = rendered_text(plain(text))
    assert tags <= {"p", "br"}
    expected = text.replace("\r\n", "\n").rstrip("\n")
    assert text_out.replace(WORD_JOINER, "") == expected


#: What GFM's autolink literals start from (Streamlit renders with remark-gfm): a bare web
#: address, ``www.`` or an e-mail address becomes a live link even when every character is escaped.
GFM_AUTOLINK = re.compile(r"(?i)https?://|www\.|[\w.+-]@")


@pytest.mark.parametrize("text", ["http://evil.example/", "see https://x.org/a_b?c=d.", "HTTP://X.ORG",
                                  "www.x.org", "me@x.org", "mailto:me@x.org", "[x](http://evil.example/)"])
def test_an_address_in_user_text_never_links_by_itself(text):
    text_out, tags = rendered_text(plain(text))
    assert tags <= {"p", "br"} and text_out.replace(WORD_JOINER, "") == text
    assert not GFM_AUTOLINK.search(text_out), text_out


def test_plain_leaves_ordinary_text_alone_except_punctuation():
    assert plain("The bakery on Elm Street is closed") == "The bakery on Elm Street is closed"
    assert plain("lead1") == "lead1"


def test_plain_accepts_non_strings():
    assert plain(42) == "42"
