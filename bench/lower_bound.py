"""What the parts ``apply`` cannot do without cost, as fractions of the PyYAML floor.

``python bench/lower_bound.py [--n 10000]`` reads the corpus ``run.py`` made
and the output of its last ``apply`` (``bench/out/apply.out.yaml``), and
times, in this one process and in CPU seconds, median of ``--repeat``:

1. **floor**: PyYAML's libyaml loader and dumper over the whole stream, as in ``run.py``;
2. **read back, events only**: libyaml's parser producing the events of every document
   ``apply`` changed, once for its input and once for its output, and nothing else: no
   comparison with any data. This is the least the independent read back can cost while
   libyaml is its reader (DESIGN §4a), since every event has to be read;
3. **fast reading**: rapidyaml parsing every document into its tree, no Python objects.

A part's figure over the floor is a bound under ``apply``'s ratio that no work on
tfpolicy's own code can go below. It is a report, not a test: it always exits 0.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import yaml
from yaml._yaml import CParser

from tfpolicy import yamlio
from tfpolicy.yamlio.rapid import ryml

OUT = Path(__file__).resolve().parent / "out"


def documents(path: Path) -> list[str]:
    return [raw.text for raw in yamlio.iter_documents([path.read_text(encoding="utf-8")])]


def floor(stream: str) -> None:
    yaml.dump_all(yaml.load_all(stream, Loader=yaml.CSafeLoader), Dumper=yaml.CSafeDumper)


def events(texts: Sequence[str]) -> None:
    for text in texts:
        parser = CParser(text)
        get = parser.get_event
        while get() is not None:
            pass
        parser.dispose()


def fast(texts: Sequence[str]) -> None:
    for text in texts:
        ryml.parse_in_arena(text.encode("utf-8"))


def cpu(work: Callable[[], None], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    stream_path, output = OUT / f"corpus-n{args.n}.yaml", OUT / "apply.out.yaml"
    if not stream_path.exists() or not output.exists():
        print(f"run `python bench/run.py --n {args.n}` first", file=sys.stderr)
        return 0
    stream = stream_path.read_text(encoding="utf-8")
    before, after = documents(stream_path), documents(output)
    if len(before) != len(after):
        print(f"{output.name} is not the output of this corpus", file=sys.stderr)
        return 0
    changed = [t for pair in zip(before, after, strict=True) if pair[0] != pair[1] for t in pair]
    base = cpu(lambda: floor(stream), args.repeat)
    parts = (("read back, libyaml's events only", cpu(lambda: events(changed), args.repeat)),
             ("fast reading (rapidyaml trees)", cpu(lambda: fast(before), args.repeat)))
    print(f"{len(before)} documents, {len(changed) // 2} changed; CPU seconds, median of "
          f"{args.repeat}")
    print(f"{'floor (PyYAML C)':34} {base:8.2f}   1.00")
    for name, seconds in parts:
        print(f"{name:34} {seconds:8.2f}   {seconds / base:.2f}")
    total = sum(s for _, s in parts)
    print(f"{'together: the least apply can cost':34} {total:8.2f}   {total / base:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
