"""The link between an RFD and its requirements, proved both ways by the `rfds` check.

Every requirement cites a heading the RFD has (its anchor as the site makes
it), and each of its quotes is found in exactly one sentence of the RFD, so a
quote cannot bind what it does not name. Every normative sentence of the RFD,
wherever it stands, is quoted by some requirement, judged on the wire or
marked `untested` with its reason, and by one of the tier its keywords call
for: a MUST, SHALL or REQUIRED by a MANDATORY or CAPABILITY requirement, a
SHOULD or RECOMMENDED by an ADVISORY one, so that no rule is weakened by the
tier of the requirement that quotes it. A requirement judged on the wire has
the check its RFD's wire module registers under its id, and every registered
check has its requirement.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from acp_docs.core.findings import Finding
from acp_docs.markdown.blocks import Heading, headings
from acp_docs.markdown.rawhtml import Anchor
from acp_docs.requirements.model import FILE_NAME, VERDICT_TIERS, RequirementSet
from acp_docs.requirements.sentences import every_sentence, plain

CHECK = "rfds"
TIER_OF = {
    "MUST": VERDICT_TIERS,
    "SHALL": VERDICT_TIERS,
    "REQUIRED": VERDICT_TIERS,
    "SHOULD": ("ADVISORY",),
    "RECOMMENDED": ("ADVISORY",),
}
"""The tiers a requirement that quotes a sentence with each keyword may have."""


def heading_anchors(text: str, anchors: list[Anchor]) -> dict[str, Heading]:
    """Each anchor the site gives a heading of `text`, mapped to the heading in the source.

    The engine's headings are paired with the source's by their plain names, the
    k-th of a name with the k-th: a heading the source scan does not list (in an
    admonition, underlined) shifts nothing else.
    """
    by_name: dict[str, list[Heading]] = {}
    for head in headings(text):
        by_name.setdefault(plain(head.text), []).append(head)
    paired: dict[str, Heading] = {}
    for anchor in anchors:
        named = by_name.get(plain(anchor.name))
        if named:
            paired[anchor.id] = named.pop(0)
    return paired


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

    said = every_sentence(text)
    quoted: dict[int, list[tuple[str, str]]] = {}
    """Each quoted sentence: the (id, tier) of every requirement that quotes it."""
    for index, req in enumerate(reqs.requirements):
        where = f"/requirements/{index}"
        if req.cite not in anchors:
            at_file(
                f"{where}/cite",
                f"{req.id} cites #{req.cite}, which is not a heading of {shown}: cite the anchor"
                " the site gives a heading",
                "requirement-cite",
            )
        for number, quote in enumerate(req.binds):
            words = plain(quote)
            found = [i for i, s in enumerate(said) if words and words in s.text]
            if len(found) == 1:
                quoted.setdefault(found[0], []).append((req.id, req.tier))
                continue
            why = "is not a sentence of" if not found else f"is in {len(found)} sentences of"
            at_file(
                f"{where}/binds/{number}",
                f"{req.id}: {quote!r} {why} {shown}: quote enough of one sentence, in the RFD's"
                " words, to name it alone",
                "requirement-quote",
            )
    for index, sentence in enumerate(said):
        if sentence.normative and index not in quoted:
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
        for keyword in sorted(sentence.keywords) if index in quoted else ():
            binders = quoted[index]
            if not any(tier in TIER_OF[keyword] for _id, tier in binders):
                named = ", ".join(f"{rid} ({tier})" for rid, tier in binders)
                out.append(
                    Finding(
                        shown,
                        sentence.line,
                        1,
                        CHECK,
                        f'the {keyword} of "{_short(sentence.text)}" is quoted only by {named}:'
                        f" a {keyword} is {' or '.join(TIER_OF[keyword])}; give it a requirement"
                        " of that tier, or say it in other words",
                        f"{CHECK}/requirement-tier",
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
