"""How a pre-commit hook's command line is read (docs/hosts.md, "pre-commit").

pre-commit puts the file names after the hook's ``args:``, and a file named
``-pfoo.yaml`` would be read as an option. The hook entries end with ``--``,
so every name after it is a path; options a user gives in ``args:`` are
taken only when they end with their own ``--`` (``args: [-p, takeover-50,
--]``). A file pre-commit passes is never named ``--`` itself: the hooks
take only ``.yaml``, ``.yml`` and ``.json`` files. Which files a hook then
works on is ``tfpolicy.files.governed``'s.
"""

from __future__ import annotations

HOOK = "--hook"
END = "--"


def hook_argv(args: list[str]) -> list[str]:
    """A hook's command line as a command parses it: ``--hook -- [OPTIONS --] FILES``
    becomes ``--hook [OPTIONS] -- FILES``. Anything else is left as it is."""
    if END not in args or HOOK not in args[:args.index(END)]:
        return args
    head, rest = args[:args.index(END)], args[args.index(END) + 1:]
    if END in rest:
        options, files = rest[:rest.index(END)], rest[rest.index(END) + 1:]
        return [*head, *options, END, *files]
    return [*head, END, *rest]
