"""What a style sheet, or a CSS value in an SVG, may hold: an allowlist, read by `csstokens`.

A style sheet from `docs/` may load nothing from elsewhere. Only `url(...)`
can load anything once every other function is held to an allowlist
(`image-set()`, `src()`, `expression()` are not on it), and its URL must be a
relative path that stays inside the site, spelt with the characters a
published file name may hold. At-rules are an allowlist too (`@import` and
`@namespace` are not on it), and `behavior` and `-moz-binding`, which ran
script in old browsers, are refused by name.

In an SVG, CSS values (presentation attributes, the declarations of a `style`
attribute) may only point at the drawing itself: `url(#id)`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Iterator

from acp_docs.policy import csstokens
from acp_docs.policy.csstokens import Token
from acp_docs.policy.staticproblem import Problem
from acp_docs.sources.lines import LineIndex

RULE = "static/css"

AT_RULES = frozenset(
    {"charset", "media", "supports", "keyframes", "font-face", "layer", "container", "page"}
)
"""At-rules a style sheet may hold; `@charset` only as `"utf-8"`."""

VALUE_FUNCTIONS = frozenset(
    {
        *("rgb", "rgba", "hsl", "hsla", "hwb", "lab", "lch", "oklab", "oklch", "color"),
        *("color-mix", "calc", "min", "max", "clamp", "var"),
        *("matrix", "translate", "translatex", "translatey", "scale", "scalex", "scaley"),
        *("rotate", "skewx", "skewy"),
    }
)
"""Functions of CSS values in SVG: colours, arithmetic and 2D transforms (and `url(#id)`)."""

SHEET_FUNCTIONS = VALUE_FUNCTIONS | frozenset(
    {
        *("linear-gradient", "radial-gradient", "conic-gradient", "repeating-linear-gradient"),
        *("repeating-radial-gradient", "repeating-conic-gradient", "light-dark"),
        *("matrix3d", "translate3d", "translatez", "scale3d", "scalez", "rotate3d", "rotatex"),
        *("rotatey", "rotatez", "skew", "perspective", "cubic-bezier", "steps", "linear"),
        *("minmax", "repeat", "fit-content", "rect", "inset", "circle"),
        *("ellipse", "polygon", "attr", "counter", "counters", "env", "round", "mod", "rem"),
        *("abs", "sign", "blur", "brightness", "contrast", "drop-shadow", "grayscale"),
        *("hue-rotate", "invert", "opacity", "saturate", "sepia", "format", "local"),
        *("not", "is", "where", "has", "nth-child", "nth-last-child", "nth-of-type"),
        *("nth-last-of-type", "lang", "dir"),
    }
)
"""Functions a style sheet may call (`url()` aside): none of them loads anything."""

SCRIPT_PROPERTIES = frozenset({"behavior", "-moz-binding"})
"""Properties that attached script to elements in old browsers."""

_VENDOR = re.compile(r"^-(?:webkit|moz|ms|o)-")
_PATH = re.compile(r"[A-Za-z0-9._/-]*")
_QUERY = re.compile(r"(?:\?[A-Za-z0-9._=&-]*)?")
_FRAGMENT = re.compile(r"(?:#[A-Za-z0-9._-]+)?")
LOCAL_REFERENCE = re.compile(r"#[A-Za-z_][A-Za-z0-9._-]*")
"""A reference into the same document: `#id`."""

_SHOWN_MAX = 60
_PLAIN_VALUE = re.compile(r"[A-Za-z0-9#%., \t\n+-]*+")
"""A value without functions, strings, escapes or comments: nothing in it can load or run."""
_PLAIN_STYLE = re.compile(r"[A-Za-z0-9#%.,:; \t\n+-]*+")


def shown(text: str) -> str:
    """`text` for a message: escaped, and cut when long."""
    cut = text if len(text) <= _SHOWN_MAX else text[:_SHOWN_MAX] + "..."
    return cut.encode("unicode_escape").decode("ascii")


def sheet_url_problem(url: str, sheet: str) -> str | None:
    """Why `url` may not be loaded by the style sheet at `sheet` (a path in the site), or None."""
    if url == "" or LOCAL_REFERENCE.fullmatch(url):
        return None
    path = _PATH.match(url)
    assert path is not None
    query = _QUERY.match(url, path.end())
    assert query is not None
    fragment = _FRAGMENT.match(url, query.end())
    if fragment is None or fragment.end() != len(url):
        return (
            f"url({shown(url)}) is not a relative path: a style sheet loads files of the site"
            " only, named with letters, digits, '.', '_', '-' and '/' (no scheme, no '//',"
            " no escapes)"
        )
    if url.startswith("//"):
        return f"url({shown(url)}) loads from another host: keep the file under docs/"
    if url.startswith("/"):
        return f"url({shown(url)}) starts with '/': write it relative to the style sheet"
    target = posixpath.normpath(posixpath.join(posixpath.dirname(sheet), path.group(0)))
    if target == ".." or target.startswith("../"):
        return f"url({shown(url)}) leaves the site: point it at a file under docs/"
    return None


def _function_allowed(name: str, allowed: frozenset[str]) -> bool:
    lowered = name.lower()
    return lowered in allowed or _VENDOR.sub("", lowered) in allowed


def _significant(items: Iterable[Token]) -> Iterator[Token]:
    return (t for t in items if t.kind != "ws")


def sheet_problems(text: str, sheet: str) -> list[Problem]:
    """The problems of a style sheet's text (UTF-8, decoded) at `sheet`, a path in the site."""
    text = csstokens.preprocess(text)
    lines = LineIndex(text)
    items = list(_significant(csstokens.tokens(text)))
    found: list[Problem] = []

    def flag(token: Token, message: str) -> None:
        line, col = lines.at(token.start)
        found.append(Problem(line, col, message, RULE))

    for index, token in enumerate(items):
        following = items[index + 1] if index + 1 < len(items) else None
        if token.kind == "at":
            name = token.value.lower()
            if name not in AT_RULES:
                reason = (
                    "a style sheet named in extra_css is linked from every page: list the other"
                    " style sheet in extra_css instead"
                    if name == "import"
                    else f"allowed: @{', @'.join(sorted(AT_RULES))}"
                )
                flag(token, f"@{shown(token.value)} is not allowed in a style sheet: {reason}")
            elif name == "charset" and not (
                following is not None
                and following.kind == "string"
                and following.value.lower() == "utf-8"
            ):
                flag(token, '@charset may only say "utf-8": save the file as UTF-8')
        elif token.kind == "url":
            problem = sheet_url_problem(token.value, sheet)
            if problem:
                flag(token, problem)
        elif token.kind == "bad-url":
            flag(token, "a malformed url(...): a browser drops it; quote the URL or fix it")
        elif token.kind == "function" and token.value.lower() == "url":
            if following is None or following.kind != "string":
                flag(token, "url( must hold one quoted or unquoted relative path")
            else:
                problem = sheet_url_problem(following.value, sheet)
                if problem:
                    flag(token, problem)
        elif token.kind == "function" and not _function_allowed(token.value, SHEET_FUNCTIONS):
            flag(
                token,
                f"{shown(token.value)}() is not allowed in a style sheet: only functions that"
                " load nothing may be used (see docs/tooling/checks.md)",
            )
        elif (
            token.kind == "ident"
            and token.value.lower() in SCRIPT_PROPERTIES
            and following is not None
            and following.kind == "delim"
            and following.value == ":"
        ):
            flag(token, f"the property {shown(token.value)} attaches script: remove it")
    return found


def value_problem(value: str) -> str | None:
    """Why a CSS value in an SVG is refused (the first reason), or None.

    It may call colour, arithmetic and transform functions, and `url(#id)` only.
    """
    if _PLAIN_VALUE.fullmatch(value):
        return None
    text = csstokens.preprocess(value)
    return _value_tokens_problem(list(_significant(csstokens.tokens(text))), value)


def _value_tokens_problem(items: list[Token], value: str) -> str | None:
    for index, token in enumerate(items):
        if token.kind == "url":
            if not LOCAL_REFERENCE.fullmatch(token.value):
                return f"url({shown(token.value)}) is not a reference into the drawing (url(#id))"
        elif token.kind == "function" and token.value.lower() == "url":
            following = items[index + 1] if index + 1 < len(items) else None
            if following is None or following.kind != "string":
                return "url( must hold a reference into the drawing (url(#id))"
            if not LOCAL_REFERENCE.fullmatch(following.value):
                return (
                    f"url({shown(following.value)}) is not a reference into the drawing (url(#id))"
                )
        elif token.kind == "function" and not _function_allowed(token.value, VALUE_FUNCTIONS):
            return f"{shown(token.value)}() is not allowed in an SVG value"
        elif token.kind in ("at", "bad-url", "bad-string") or (
            token.kind == "delim" and token.value in "{};\\<>!"
        ):
            return f"{shown(value)} is not a plain CSS value"
    return None


def style_problem(style: str, properties: frozenset[str]) -> str | None:
    """Why an SVG `style` attribute is refused (the first reason), or None.

    Each declaration must set one of `properties` to a value `value_problem` accepts.
    """
    if _PLAIN_STYLE.fullmatch(style):
        return _plain_style_problem(style, properties)
    text = csstokens.preprocess(style)
    current: list[Token] = []
    end = Token("delim", ";", len(text), len(text))
    for token in [*csstokens.tokens(text), end]:
        if not (token.kind == "delim" and token.value == ";"):
            if token.kind != "ws":
                current.append(token)
            continue
        parts, current = current, []
        if not parts:
            continue
        if (
            len(parts) < 2
            or parts[0].kind != "ident"
            or parts[1] != Token("delim", ":", parts[1].start, parts[1].end)
        ):
            return f"{shown(style)} is not a list of declarations (property: value;)"
        name = parts[0].value.lower()
        if name not in properties:
            return f"the property {shown(parts[0].value)} is not allowed in an SVG style"
        raw = text[parts[1].end : parts[-1].end] if len(parts) > 2 else ""
        problem = _value_tokens_problem(parts[2:], raw.strip())
        if problem:
            return problem
    return None


def _plain_style_problem(style: str, properties: frozenset[str]) -> str | None:
    """`style_problem` of a style made of plain values only (see `_PLAIN_STYLE`)."""
    for declaration in style.split(";"):
        if not declaration.strip():
            continue
        name, colon, _ = declaration.partition(":")
        name = name.strip()
        if not colon or not re.fullmatch(r"-{0,2}[A-Za-z_][A-Za-z0-9_-]*", name):
            return f"{shown(style)} is not a list of declarations (property: value;)"
        if name.lower() not in properties:
            return f"the property {shown(name)} is not allowed in an SVG style"
    return None
