"""What a controller's report means for the rung: shown, wait, stop, or none (object times
decide), with the lines that say why.

A controller's message and an object's name come from the cluster: each is shown as
:func:`tfpolicy.render.visible` shows a name (a control character, a line break, a
bidirectional override written as Python writes it in a string), so a message can neither
act on the terminal nor start a line of its own. The rule is repeated here because this
package stands below ``render`` (docs/layout.md); a test holds the two equal.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import Enum

from tfpolicy.records import Record

_UNSHOWN = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                      r"\ud800-\udfff\ufffe\uffff]")
_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
LONGEST = 400  # characters of a controller's message kept on the line
NO_DEPLOYER = ("no Argo CD Application, Flux Kustomization or HelmRelease in the snapshot "
               "deploys {path}; judged by object times")
NO_REMOTE = ("the repository has no remote, so no Argo CD or Flux object can be matched to it; "
             "judged by object times")


class State(Enum):
    SHOWN = "shown"  # the controller runs the rung's commit
    WAIT = "wait"  # not yet: the sync has not happened
    STOP = "stop"  # the sync failed, or what it deployed is degraded
    NONE = "none"  # no controller's word to go by: the snapshot's object times decide


class Judgement(Record):
    state: State
    reasons: tuple[str, ...]  # one line each; the first says the state
    controller: str = ""  # ``Argo CD Application argocd/inference``; "" with NONE
    revision: str = ""  # the commit the controller reports running, as it writes it
    rolling: bool = False  # SHOWN while the controller still rolls it out


class Rung(Record):
    """The rung's commit, and whether a revision holds it (``git merge-base
    --is-ancestor``: the commit is the revision or one of its ancestors)."""

    commit: str
    contains: Callable[[str], bool]

    @property
    def short(self) -> str:
        return self.commit[:12]


def shown(text: object) -> str:
    """``text`` on one line, its controls written out, cut at :data:`LONGEST`."""
    line = _UNSHOWN.sub(_escaped, str(text))
    return line if len(line) <= LONGEST else line[:LONGEST] + "…"


def _escaped(found: re.Match[str]) -> str:
    char = found.group()
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def stop(controller: str, why: str, *more: str) -> Judgement:
    return Judgement(State.STOP, (f"{controller}: {why}", *more), controller)


def wait(controller: str, why: str, revision: str = "") -> Judgement:
    return Judgement(State.WAIT, (f"{controller} {why}",), controller, revision)


def unreadable(controller: str, revision: str) -> Judgement:
    return Judgement(State.NONE, (f"{controller} reports revision {shown(revision)}, which "
                                  "names no commit; judged by object times",), controller)


def running(controller: str, revision: str, held: bool, rung: Rung, status: str = "",
            rolling: str = "") -> Judgement:
    """SHOWN when the commit ``revision`` names holds the rung's commit (``held``); else WAIT
    (a commit unknown to this clone is not held: a wait, never a guess). ``status``: the
    controller's own words on it; ``rolling``: why it is still rolling out, if it is."""
    at = shown(revision)
    if not held:
        return wait(controller, f"runs revision {at}{status}, which does not hold the rung's "
                                f"commit {rung.short} (as this clone knows the history): the "
                                "sync has not happened yet", revision)
    line = f"{controller} runs revision {at}{status}, which holds the rung's commit {rung.short}"
    if rolling:
        line += f"; {rolling}: the rollout is under way, the pods decide"
    return Judgement(State.SHOWN, (line,), controller, revision, bool(rolling))
