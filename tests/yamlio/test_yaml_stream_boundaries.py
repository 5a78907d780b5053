"""A stream libyaml refuses is refused as a whole, not only the documents the split finds
(tfpolicy/yamlio/boundaries.py).

The split cuts a stream on its marker lines and each document is checked
alone. What lies between documents (a ``%YAML`` line with no ``---`` after
it, extra words on a directive, a directive twice, a ``...`` with nothing
before it, a document after ``...`` that does not open with ``---``, a
document whose content is all indented) is checked by libyaml in the
stream's context. The ten streams of yaml/yaml-test-suite (MIT licence,
https://github.com/yaml/yaml-test-suite, ``data`` branch; the case id names
each) that came back byte for byte with exit 0 are below, beside ones that
look alike and are valid; a property test draws streams of such lines.
"""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hosts.hostlib import need
from tfpolicy.cli import main

TFPOLICY = str(Path(sys.executable).with_name("tfpolicy"))
REFUSED = {  # yaml-test-suite: case id -> in.yaml
    "9MMA": "%YAML 1.2\n",  # a directive by itself, no document
    "B63P": "%YAML 1.2\n...\n",  # a directive without a document
    "H7TQ": "%YAML 1.2 foo\n---\n",  # extra words on %YAML
    "HWV9": "...\n",  # a document-end marker alone
    "QT73": "# comment\n...\n",  # a comment and a document-end marker
    "MUS6-05": "%YAM 1.1\n---\n",  # an unknown directive
    "MUS6-06": "%YAMLL 1.1\n---\n",
    "SF5V": "%YAML 1.2\n%YAML 1.2\n---\n",  # a duplicate %YAML directive
    "6CA3": "\t[\n\t]\n",  # a tab-indented top-level flow collection
    "Q5MG": "\t{}\n",
    # and within a stream of manifests
    "bare-after-end": "a: 1\n...\nb: 2\n",
    "directive-at-end": "a: 1\n---\nb: 2\n%YAML 1.2\n",
    "tab-after-marker": "a: 1\n--- \n\t{}\n",
}
ACCEPTED = {
    "directive-then-document": "%YAML 1.2\n---\na: 1\n",
    "directive-comment-document": "%YAML 1.2\n# why\n---\na: 1\n",
    "end-then-directive": "a: 1\n...\n%YAML 1.1\n---\nb: 2\n",
    "ends-twice": "a: 1\n...\n...\n",
    "indented-document": "---\n  a: 1\n  b: 2\n",
    "end-then-comment": "a: 1\n...\n# done\n",
}


def _libyaml_refuses(text: str) -> bool:
    try:
        for _ in yaml.parse(text, Loader=yaml.CSafeLoader):
            pass
    except yaml.YAMLError:
        return True
    return False


def _run(argv: list[str], stdin: str) -> tuple[int, bytes, str]:
    out, err = io.BytesIO(), io.StringIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8", newline="")
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(err), \
            contextlib.ExitStack() as stack:
        stack.enter_context(_stdin(stdin))
        code = main(argv)
        stdout.flush()
    return code, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def _stdin(text: str):  # type: ignore[no-untyped-def]
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8")
    try:
        yield
    finally:
        sys.stdin = saved


@pytest.mark.parametrize("case", sorted(REFUSED))
@pytest.mark.parametrize("command", ["apply", "fix"])
def test_what_libyaml_refuses_in_the_stream_is_refused(case: str, command: str,
                                                       tmp_path: Path) -> None:
    text = REFUSED[case]
    assert _libyaml_refuses(text)
    path = tmp_path / "s.yaml"
    path.write_text(text)
    done = subprocess.run([TFPOLICY, command, "-p", "takeover", "s.yaml"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, (case, done.stderr)
    assert re.fullmatch(r"s\.yaml:\d+:\d+: error: invalid YAML: .+\n", done.stderr), done.stderr
    assert done.stdout == "" and path.read_text() == text


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_what_libyaml_reads_comes_back_byte_for_byte(case: str) -> None:
    text = ACCEPTED[case]
    assert not _libyaml_refuses(text)
    done = subprocess.run([TFPOLICY, "apply", "-p", "takeover", "-"], input=text,
                          capture_output=True, text=True, timeout=120, check=False)
    assert (done.returncode, done.stdout) == (0, text), done.stderr


LINES = st.sampled_from([
    "a: 1\n", "b: {c: 2}\n", "---\n", "--- \n", "...\n", "%YAML 1.1\n", "%YAML 1.2 x\n",
    "%TAG ! tag:x,2000:\n", "%FOO\n", "# c\n", "\n", "\t\n", "  a: 1\n", "\t{}\n", " [x]\n",
    "...x\n", "kind: K\n",
])


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(LINES, min_size=1, max_size=10))
def test_a_stream_libyaml_refuses_is_never_passed_on(lines: list[str]) -> None:
    text = "".join(lines)
    code, out, err = _run(["apply", "-p", "takeover", "-"], text)
    if _libyaml_refuses(text):
        assert code == 2 and out == b"", (text, code, err)
        assert re.fullmatch(r"<stdin>:\d+(:\d+)?: error: .+\n", err), err
    else:
        assert code in (0, 2) and (code == 2 or out == text.encode()), (text, err)


def test_binary_is_read_as_kubectl_reads_it(tmp_path: Path) -> None:
    """``!!binary`` is base64 that kubectl decodes to its text (go-yaml v2 ``decode.go``):
    read so; bytes that are not UTF-8 text (kubectl would replace them) are refused."""
    from tfpolicy.errors import TfpolicyError
    from tfpolicy.yamlio.load import parse_document

    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
            "data:\n  a: !!binary aGVsbG8=\n  b: !!binary |\n    aGVs\n    bG8=\n")
    path = tmp_path / "b.yaml"
    path.write_text(text)
    done = subprocess.run([need("kubectl"), "label", "--local", "-f", str(path), "x=y", "-o",
                           "jsonpath={.data}"], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert parse_document(text, file="b.yaml").data["data"] == {"a": "hello", "b": "hello"}
    assert '"a":"hello"' in done.stdout.replace(" ", "")
    with pytest.raises(TfpolicyError, match="not UTF-8 text"):
        parse_document(text.replace("aGVsbG8=", "//79"), file="b.yaml")
