"""``tfpolicy promote``'s core: where the repository stands on the ladder, and what to do.

Pure: the configuration's policy names, verify's reports and the snapshot
in; a :class:`Decision` (advance, done, wait, stop) and the texts of the
commit and the summary out. The command (``tfpolicy.commands.promote``)
reads, runs verify and the plan, edits ``.tfpolicy.yaml``, runs ``fix`` and
git (:mod:`tfpolicy.promote.git`). See docs/promote.md.
"""

from __future__ import annotations

from tfpolicy.promote.rungs import LADDER, ROLLBACK, TARGET, Position, RefusedError, position
from tfpolicy.promote.soak import parse_duration, parse_time, unsoaked
from tfpolicy.promote.verdict import Decision, Evidence, Outcome, promotion_verdict

__all__ = [
           "LADDER",
           "ROLLBACK",
           "TARGET",
           "Decision",
           "Evidence",
           "Outcome",
           "Position",
           "RefusedError",
           "parse_duration",
           "parse_time",
           "position",
           "promotion_verdict",
           "unsoaked",
]
