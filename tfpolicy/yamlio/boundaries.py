"""What lies between documents, checked as libyaml reads the whole stream.

The split (stream.py) cuts a stream into documents on its marker lines, and
each document is then checked alone (screen.py, load.py). Alone is not
always as the stream has it: a ``%YAML`` line with no ``---`` after it, a
directive with extra words or twice, a ``...`` with no document before it,
a document after ``...`` that does not open with ``---``, or a document
whose content is all indented (``\\t[``, which reads as nothing to a check
that looks for a key at a line's start) are refused by libyaml in the
stream but could pass one document at a time. So the split hands each such
document here, with the state the stream leaves the parser in before it,
and libyaml's parser reads it to its end; a refusal is a located error, as
any other. Ordinary documents (no directive, no ``...``, content at a line's
start) never come here.
"""

from __future__ import annotations

import yaml

from tfpolicy.errors import TfpolicyError

START = ""  # the stream's start: a document may open without "---"
AFTER_END = "---\n...\n"  # after "...": the next document must open with "---"
AFTER_CONTENT = "{}\n"  # after a document's content, ended by the "---" that opens this one


def check(text: str, context: str, *, file: str, line: int) -> None:
    """Refuse ``text`` (a document as split, at 0-based ``line``) where libyaml refuses it
    in a stream whose state before it is ``context``."""
    from tfpolicy.yamlio.jsondoc import join_surrogates
    from tfpolicy.yamlio.located import located_error

    stream = context + join_surrogates(text)
    try:
        for _ in yaml.parse(stream, Loader=yaml.CSafeLoader):
            pass
    except yaml.YAMLError as exc:
        raise located_error(exc, file, line - context.count("\n"), stream) from None
    except RecursionError:
        raise TfpolicyError("YAML nested too deeply", file=file, line=line + 1) from None
