"""One finding per cause: members no schema names, folded into the problem they belong to.

A misspelt member (`sesionId`) makes two reports of one mistake: the
required `sessionId` is missing, and `sesionId` is a member no schema names.
A member no schema names in an object that already fails (the object at the
problem's pointer, or for a member's wrong value the object holding it) is
named in that problem instead. The others stay reports of their own.
"""

from __future__ import annotations

from dataclasses import dataclass

from acp_docs.validation.explain import Problem


@dataclass(frozen=True)
class Cause:
    """One report: where (a pointer), what, and whether it is a member no schema names."""

    pointer: str
    message: str
    unknown: bool = False


def causes(problems: tuple[Problem, ...], unknown: tuple[Problem, ...]) -> list[Cause]:
    """The problems, each naming the unknown members of its object, then the other unknowns."""
    owner: dict[str, str] = {}
    for problem in problems:
        owner.setdefault(problem.pointer, problem.pointer)
        owner.setdefault(problem.pointer.rsplit("/", 1)[0], problem.pointer)
    beside: dict[str, list[tuple[str, str]]] = {}
    alone: list[Cause] = []
    for member in unknown:
        parent, name = member.pointer.rsplit("/", 1) if "/" in member.pointer else ("", "")
        if parent in owner and name:
            beside.setdefault(owner[parent], []).append((name, member.message.partition("; ")[2]))
        else:
            alone.append(Cause(member.pointer, str(member), True))
    out = []
    for problem in problems:
        said = str(problem)
        extra = beside.pop(problem.pointer, [])
        if extra:
            said += f"; the object has {', '.join(repr(n) for n, _h in extra)}, which no schema"
            said += " names here" + "".join(f"; {hint}" for _n, hint in extra if hint)
        out.append(Cause(problem.pointer, said))
    return out + alone
