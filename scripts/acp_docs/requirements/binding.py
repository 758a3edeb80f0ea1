"""The link between an RFD and its requirements, proved both ways by the `rfds` check.

Every requirement cites a heading the RFD has (its anchor as the site makes
it) and quotes sentences the RFD holds; every normative sentence of the RFD's
rules sections (`rules_sections`, subsections included) is quoted by some
requirement, judged on the wire or marked `untested` with its reason. A
requirement judged on the wire has the check its RFD's wire module registers
under its id, and every registered check has its requirement.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from acp_docs.core.findings import Finding
from acp_docs.markdown.blocks import Heading, headings
from acp_docs.markdown.rawhtml import Anchor
from acp_docs.requirements.model import FILE_NAME, RequirementSet
from acp_docs.requirements.sentences import Sentence, plain, sentences

CHECK = "rfds"


def heading_anchors(text: str, anchors: list[Anchor]) -> dict[str, Heading]:
    """Each anchor the site gives a heading of `text`, mapped to the heading in the source.

    The engine's headings are paired with the source's in order when both list
    the same number; otherwise by their plain names.
    """
    heads = headings(text)
    if len(heads) == len(anchors):
        return {a.id: h for a, h in zip(anchors, heads, strict=True)}
    by_name = {plain(h.text): h for h in heads}
    return {a.id: by_name[plain(a.name)] for a in anchors if plain(a.name) in by_name}


def lint(
    text: str,
    shown: str,
    reqs: RequirementSet,
    anchors: Mapping[str, Heading],
    checks: Iterable[str],
) -> list[Finding]:
    """Every broken link between the RFD `text` (at `shown`) and its requirements.

    `anchors` maps the RFD's anchors to its headings (`heading_anchors`);
    `checks` are the ids the RFD's wire module has a check for.
    """
    out: list[Finding] = []

    def at_file(pointer: str, message: str, rule: str) -> None:
        out.append(Finding(reqs.shown, reqs.line_of(pointer), 1, CHECK, message, f"{CHECK}/{rule}"))

    def missing(anchor: str) -> str:
        return (
            f"#{anchor}, which is not a heading of {shown}: cite the anchor the site gives a"
            " heading"
        )

    rules: list[Sentence] = []
    for index, anchor in enumerate(reqs.rules_sections):
        if anchor not in anchors:
            at_file(
                f"/rules_sections/{index}", f"rules section {missing(anchor)}", "requirement-cite"
            )
            continue
        for sentence in sentences(text, anchors[anchor]):
            if sentence not in rules:
                rules.append(sentence)
    quotes: list[str] = []
    for index, req in enumerate(reqs.requirements):
        where = f"/requirements/{index}"
        cited: list[Sentence] = []
        if req.cite not in anchors:
            at_file(f"{where}/cite", f"{req.id} cites {missing(req.cite)}", "requirement-cite")
        else:
            cited = sentences(text, anchors[req.cite])
        for number, quote in enumerate(req.binds):
            said = plain(quote)
            quotes.append(said)
            if not any(said in s.text for s in [*cited, *rules]):
                at_file(
                    f"{where}/binds/{number}",
                    f"{req.id}: {quote!r} is not a sentence of #{req.cite} nor of a rules section"
                    f" of {shown}: quote the RFD's words",
                    "requirement-quote",
                )
    for sentence in rules:
        if sentence.normative and not any(q in sentence.text for q in quotes):
            out.append(
                Finding(
                    shown,
                    sentence.line,
                    1,
                    CHECK,
                    f'a rule with no requirement: "{_short(sentence.text)}"; quote it in a'
                    f" requirement of {reqs.shown} (judged on the wire, or `untested` with the"
                    " reason)",
                    f"{CHECK}/unbound-rule",
                )
            )
    registered = set(checks)
    for index, req in enumerate(reqs.requirements):
        if req.judged is not None and req.id not in registered:
            at_file(
                f"/requirements/{index}/judged",
                f"{req.id} is judged on the wire, but the RFD's wire module has no check of that"
                " id: add one, or mark the requirement `untested` with the reason",
                "requirement-check",
            )
    for name in sorted(registered - {r.id for r in reqs.requirements if r.judged is not None}):
        at_file(
            "",
            f"the wire check {name!r} has no requirement judged on the wire in {FILE_NAME}",
            "requirement-check",
        )
    return out


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
