"""Fail when a built docs page loads a script, stylesheet or font from another host.

Usage: python scripts/check_docs_offline.py docs/_build/html

The documentation must work without network: MathJax and every asset are served from the
built site. Links to other sites (``<a href>``) are fine; what the browser fetches by itself
(``<script src>``, ``<link href>`` for stylesheets, preloads and fonts, ``<img src>``,
``@import`` and ``url(...)`` in inline styles) must be local.
"""

from __future__ import annotations

import re
import sys
from html.parser import HTMLParser
from pathlib import Path

REMOTE = re.compile(r"^(https?:)?//", re.IGNORECASE)
FETCHED_LINKS = {"stylesheet", "preload", "modulepreload", "prefetch", "icon", "font"}


class _Assets(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.remote: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if tag in ("script", "img", "iframe") and REMOTE.match(values.get("src", "")):
            self.remote.append(f"<{tag} src={values['src']}>")
        if tag == "link":
            rel = set(values.get("rel", "").lower().split())
            if rel & FETCHED_LINKS and REMOTE.match(values.get("href", "")):
                self.remote.append(f"<link rel={values['rel']} href={values['href']}>")
        self._in_style = tag == "style"

    def handle_data(self, data: str) -> None:
        if self._in_style:
            for url in re.findall(r"url\(\s*['\"]?([^'\")]+)", data):
                if REMOTE.match(url):
                    self.remote.append(f"style url({url})")


def main(folder: str) -> int:
    """Check every page under ``folder``; return 1 if any loads a remote asset."""
    pages = sorted(Path(folder).rglob("*.html"))
    if not pages:
        print(f"check_docs_offline: no HTML pages under {folder}", file=sys.stderr)
        return 1
    bad = 0
    for page in pages:
        parser = _Assets()
        parser.feed(page.read_text(encoding="utf-8", errors="replace"))
        for item in parser.remote:
            print(f"{page}: loads {item} from another host", file=sys.stderr)
            bad += 1
    mathjax = Path(folder) / "_static" / "mathjax" / "tex-chtml.js"
    if not mathjax.exists():
        print(f"check_docs_offline: {mathjax} is missing: no formula would render", file=sys.stderr)
        bad += 1
    print(f"check_docs_offline: {len(pages)} pages, {bad} remote asset(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "docs/_build/html"))
