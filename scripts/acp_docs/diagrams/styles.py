"""Mermaid's SVG made publishable under `style-src 'self'`: every style moved into a style sheet.

Mermaid puts a `<style>` element in each drawing and `style="..."` attributes
on its shapes; a Content-Security-Policy without `'unsafe-inline'` refuses
both. `extract` takes the drawing apart: the `<style>` text becomes rules of
the site's diagram style sheet (Mermaid already scopes them under the
drawing's id), and each style attribute becomes a rule for a class given to
its element, marked `!important` as an inline style outranks every rule. What
is left is plain SVG: ids prefixed with the drawing's id (two drawings on one
page keep theirs apart), attributes only Mermaid's own script reads
(`data-*`, `name`) dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from xml.etree import ElementTree

from acp_docs.policy import svg as svgpolicy

SVG = svgpolicy.SVG_NS
_NS = f"{{{SVG}}}"
_REFERENCE = re.compile(r"url\(#([^)\s]+)\)")
_IDREFS = ("aria-labelledby", "aria-describedby")
_DROPPED = re.compile(r"data-[A-Za-z0-9_.-]*|name")


class Refused(ValueError):
    """The drawing is not SVG this module can take apart."""


@dataclass(frozen=True)
class Extracted:
    """A drawing without styles, and the rules that style it."""

    svg: str
    css: str


def _declarations(style: str) -> list[tuple[str, str]]:
    """`name: value` pairs of a style attribute; `;` inside quotes or brackets does not split."""
    out: list[tuple[str, str]] = []
    depth, quote, start = 0, "", 0
    parts: list[str] = []
    for index, char in enumerate(style):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif char == ";" and depth == 0:
            parts.append(style[start:index])
            start = index + 1
    parts.append(style[start:])
    for part in parts:
        name, colon, value = part.partition(":")
        if colon and name.strip() and value.strip():
            out.append((name.strip().lower(), value.strip().removesuffix("!important").strip()))
    return out


def extract(svg: str, diagram_id: str) -> Extracted:
    """`svg` (Mermaid's drawing as XML, root id `diagram_id`) without styles, and its rules."""
    if "<!DOCTYPE" in svg.upper() or "<!ENTITY" in svg.upper() or "<?" in svg:
        raise Refused("the drawing has a document type or processing instruction")
    try:
        root = ElementTree.fromstring(svg)
    except ElementTree.ParseError as exc:
        raise Refused(f"the drawing is not well-formed XML: {exc}") from None
    if root.tag != f"{_NS}svg" or root.get("id") != diagram_id:
        raise Refused("the drawing is not one SVG with its id")
    prefix = f"{diagram_id}-"
    renamed: dict[str, str] = {}
    for element in root.iter():
        own = element.get("id")
        if own is not None and element is not root and diagram_id not in own:
            renamed[own] = prefix + own
            element.set("id", prefix + own)
    rules: list[str] = []
    classes: dict[str, str] = {}
    parents = {child: parent for parent in root.iter() for child in parent}
    for element in list(root.iter()):
        if element.tag == f"{_NS}style":
            rules.append(element.text or "")
            parents[element].remove(element)
            continue
        for name in list(element.attrib):
            if _DROPPED.fullmatch(name):
                del element.attrib[name]
        for name, value in element.attrib.items():
            element.set(name, _REFERENCE.sub(lambda m: f"url(#{renamed.get(m[1], m[1])})", value))
            if name in _IDREFS:
                element.set(name, " ".join(renamed.get(v, v) for v in value.split()))
            elif name.endswith("href") and value.startswith("#"):
                element.set(name, "#" + renamed.get(value[1:], value[1:]))
        style = element.attrib.pop("style", None)
        if not style:
            continue
        declarations = "".join(f"{n}:{v} !important;" for n, v in _declarations(style))
        if element is root:
            # Drawn no narrower than it fits, up to a phone's width: narrower screens scroll.
            widest = dict(_declarations(style)).get("max-width")
            if widest:
                declarations += f"min-width:min({widest},36rem) !important;"
            rules.append(f"#{diagram_id}{{{declarations}}}")
            continue
        name = classes.setdefault(declarations, f"acp-s{len(classes)}")
        element.set("class", f"{element.get('class', '')} {name}".strip())
    for declarations, name in classes.items():
        rules.append(f"#{diagram_id} .{name}{{{declarations}}}")
    ElementTree.register_namespace("", SVG)
    text = ElementTree.tostring(root, encoding="unicode", short_empty_elements=True)
    return Extracted(text, "\n".join(rule.strip() for rule in rules if rule.strip()) + "\n")
