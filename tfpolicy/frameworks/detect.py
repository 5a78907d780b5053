"""A container's pre-allocating framework and its setting, from image, command, args, env.

Policy rows are tried before the built-in ones; within a table the first row
whose image or command glob matches wins. The fraction is read from the flag
(``--flag X``, ``--flag=X``, Triton's ``name:X`` template parameter) or the
env var; when neither is set, the framework's default, and ``where`` still names
the setting (``--gpu-memory-utilization not set: the default 0.92``): it is the line
the user changes. Values that are not a number in (0, 1] are reported as unreadable,
never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from fractions import Fraction
from typing import Any

from tfpolicy.frameworks.framework_table import BUILTIN, Framework
from tfpolicy.records import Record

_FRACTION = re.compile(r"(0?\.[0-9]{1,6}|0|1|1\.0{1,6})")
_TEMPLATE = re.compile(r"kv_cache_free_gpu_mem(?:ory)?_fraction[:=]([0-9.]+)")


class Found(Record):
    """A framework found in one container, and what it will take."""

    framework: Framework
    container: str
    index: int
    fraction: Fraction | None  # None: derived by the framework at start, or unreadable
    where: str  # "--gpu-memory-utilization 0.90", "--gpu-memory-utilization not set: ..."
    preallocates: bool  # False when its env turns the pool off
    args: tuple[str, ...]  # command and args, for the model and its lengths
    env: Mapping[str, str]
    setting: str = ""  # the flag or env it was read from, else the framework's own

    def set_to(self, value: float) -> str:
        """How the user writes ``value`` into the setting this container uses."""
        name = self.setting or self.framework.setting
        if name == "kv_cache_free_gpu_mem_fraction":
            return f"{name}:{value:.2f}"
        return f"{name} {value:.2f}" if name.startswith("-") else f"{name}={value:.2f}"


def detect(container: Mapping[str, Any], index: int,
           extra: Sequence[Framework] = ()) -> Found | None:
    """The first framework of ``extra`` then the built-in table that ``container`` runs."""
    image = _image(container.get("image"))
    args = _tokens(container.get("command")) + _tokens(container.get("args"))
    env = _env(container.get("env"))
    for framework in (*extra, *BUILTIN):
        if _runs(framework, image, args, env):
            return _found(framework, container, index, args, env)
    return None


def _runs(framework: Framework, image: str, args: tuple[str, ...],
          env: Mapping[str, str]) -> bool:
    if image and any(fnmatchcase(image, glob) for glob in framework.images):
        return True
    if any(fnmatchcase(arg, glob) for arg in args for glob in framework.commands):
        return True
    return bool(framework.env) and framework.env in env and not framework.flag


def _found(framework: Framework, container: Mapping[str, Any], index: int,
           args: tuple[str, ...], env: Mapping[str, str]) -> Found:
    name = str(container.get("name", ""))
    off = [f"{k}={v}" for k, v in framework.disabled_by if env.get(k, "").lower() == v]
    if off:
        return Found(framework, name, index, None, off[0], False, args, env, off[0].split("=")[0])
    raw, where = _setting(framework, args, env)
    if raw is None:
        return Found(framework, name, index, framework.default, _unset(framework), True, args,
                     env, framework.setting)
    value = _fraction(raw)
    return Found(framework, name, index, value,
                 f"{where} {raw}" if value is not None else f"{where} {raw!r} (unreadable)",
                 True, args, env, where)


def _unset(framework: Framework) -> str:
    """What an absent setting means, naming the setting."""
    setting = framework.setting or "its setting"
    if framework.default is None:
        return f"{setting} not set: derived at start"
    if not (framework.flag or framework.env):  # no share to set: only the pool's switch
        share = "all" if framework.default == 1 else _shown(framework.default)
        return f"{setting} not set: it takes {share} of the memory"
    return f"{setting} not set: the default {_shown(framework.default)}"


def _setting(framework: Framework, args: tuple[str, ...],
             env: Mapping[str, str]) -> tuple[str | None, str]:
    if framework.flag:
        value = flag_value(args, framework.flag)
        if value is not None:
            return value, framework.flag
        if framework.share == "free":
            for arg in args:
                template = _TEMPLATE.search(arg)
                if template:
                    return template.group(1), "kv_cache_free_gpu_mem_fraction"
    if framework.env and framework.env in env:
        return env[framework.env], framework.env
    return None, ""


def flag_value(args: Sequence[str], flag: str, *aliases: str) -> str | None:
    """The value of ``--flag X`` or ``--flag=X`` (the last one wins, as argparse does)."""
    found = None
    names = (flag, *aliases)
    for i, arg in enumerate(args):
        if arg in names and i + 1 < len(args):
            found = args[i + 1]
        elif "=" in arg and arg.split("=", 1)[0] in names:
            found = arg.split("=", 1)[1]
    return found


def _fraction(raw: str) -> Fraction | None:
    if not _FRACTION.fullmatch(raw.strip()):
        return None
    value = Fraction(raw.strip())
    return value if 0 < value <= 1 else None


def _shown(value: Fraction | None) -> str:
    return "?" if value is None else f"{float(value):g}"


def _image(value: Any) -> str:
    """The image reference without a registry host (``docker.io/vllm/x`` → ``vllm/x``)."""
    if not isinstance(value, str):
        return ""
    first, _, rest = value.partition("/")
    if rest and ("." in first or ":" in first or first == "localhost"):
        return rest.lower()
    return value.lower()


def _tokens(value: Any) -> tuple[str, ...]:
    """Command or args as tokens; a shell line (``sh -c "vllm serve …"``) is split on blanks."""
    if not isinstance(value, list):
        return ()
    return tuple(part for item in value if isinstance(item, str | int | float)
                 for part in str(item).split())


def _env(value: Any) -> dict[str, str]:
    if not isinstance(value, list):
        return {}
    return {str(e["name"]): str(e["value"]) for e in value
            if isinstance(e, Mapping) and "name" in e and isinstance(e.get("value"), str)}
