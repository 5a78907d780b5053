"""What a run of the engine over files uses (``Run``), and which policies govern each
file ``fix`` and ``check`` read.

With ``-p`` one policy set governs every file. Without it each file takes the
nearest ``.tfpolicy.yaml`` above it, up to its repository root, as ruff and
editorconfig do: pre-commit runs at the repository root, and a monorepo keeps
one config per app folder (where ArgoCD discovery wants it). A file no config
governs is skipped, and ``--explain`` says so.
"""

from __future__ import annotations

from pathlib import Path

from tfpolicy.errors import TfpolicyError
from tfpolicy.files.operator import loaded_policies
from tfpolicy.files.project import lookup
from tfpolicy.policy.project_config import Given, ProjectConfig, resolve_config
from tfpolicy.records import Record, field, replace
from tfpolicy.rewrite.engine import PolicySet
from tfpolicy.rewrite.pipeline import Options


class Scope(Record):
    """The policies and options one file is rewritten with."""

    policies: PolicySet
    options: Options


class Unscoped(Record):
    """Why no config governs a file."""

    reason: str


class Scopes(Record):
    """Each folder's nearest config, each config's policies: looked up once per run."""

    given: Given  # the flags: they win over each file's config
    explain: bool
    _folders: dict[Path, ProjectConfig | Unscoped] = field(default_factory=dict)
    _loaded: dict[Path, Scope] = field(default_factory=dict)

    def of(self, path: str) -> Scope | Unscoped:
        config = self.config_of(path)
        if isinstance(config, Unscoped):
            return config
        return self.scope(config)

    def config_of(self, path: str) -> ProjectConfig | Unscoped:
        """The config that governs ``path``: the nearest above it."""
        folder = Path(path).absolute().parent
        if folder not in self._folders:
            found = lookup(folder)
            self._folders[folder] = found.config or Unscoped(found.explain())
        return self._folders[folder]

    def ordered(self, scopes: dict[Path, Scope]) -> Scopes:
        """These scopes, each config's (by its path) replaced by the one given: its
        policies with a canary rung's order over all it governs (``files.canary_order``)."""
        return replace(self, _folders=dict(self._folders), _loaded={**self._loaded, **scopes})

    def scope(self, config: ProjectConfig) -> Scope:
        if config.path not in self._loaded:
            decided = resolve_config(config, self.given)
            self._loaded[config.path] = Scope(loaded_policies(decided),
                                              Options(decided.namespace, self.explain))
        return self._loaded[config.path]


class Run(Record):
    """The policies of the working directory (``-p``, else its config) and, without
    ``-p``, each file's own nearest config (``scopes``) for ``fix`` and ``check``."""

    loaded: PolicySet | None
    options: Options
    fmt: str
    scopes: Scopes | None = None
    skip_unconfigured: bool = False  # hooks: a run no config governs checks nothing, exit 0
    hook: bool = False  # a changed config or policy file brings in the manifests it governs
    jobs: int = 0  # worker processes (``rewrite.parallel``); 0: one per usable CPU
    quiet: bool = False  # no progress on stderr, even for a person watching

    @property
    def policies(self) -> PolicySet:
        if self.loaded is None:
            raise TfpolicyError("no policy given: use -p POLICY or a .tfpolicy.yaml")
        return self.loaded

    def scope(self, path: str) -> Scope | Unscoped:
        """What governs one file: ``-p`` for every file, else the file's nearest config."""
        if self.scopes is None:
            return Scope(self.policies, self.options)
        return self.scopes.of(path)


class Flags(Record):
    """How a run goes, besides what it rewrites with (``Run``'s fields of the same name)."""

    jobs: int = 1
    hook: bool = False
    skip_unconfigured: bool = False
    quiet: bool = False


ONE_PROCESS = Flags()  # what a command without these options runs with


def configured_run(config: ProjectConfig | None, given: Given, explain: bool,
                   flags: Flags = ONE_PROCESS) -> Run:
    """The run over files that ``given`` (the flags) and ``config`` (the working
    directory's) decide: ``-p``'s policies for every file, else each file's own config."""
    decided = resolve_config(config, given)
    options = Options(decided.namespace, explain)
    fmt = decided.format or "text"
    if given.policies:
        return Run(loaded_policies(decided), options, fmt, hook=flags.hook, jobs=flags.jobs,
                   quiet=flags.quiet)
    loaded = loaded_policies(decided) if config else None
    scopes = Scopes(Given(namespace=given.namespace, operator=given.operator), explain)
    return Run(loaded, options, fmt, scopes, flags.hook or flags.skip_unconfigured, flags.hook,
               flags.jobs, flags.quiet)


def chart_template(path: str) -> str:
    """Why ``path`` is a Helm chart template (empty: it is not).

    A ``templates/`` folder under a ``Chart.yaml`` holds unrendered ``{{ }}``;
    detected here rather than by the hook's ``exclude:`` regex, which a user's
    own ``exclude:`` replaces.
    """
    parts = Path(path).absolute().parts
    for index in range(len(parts) - 2, 0, -1):
        if parts[index] == "templates" and Path(*parts[:index], "Chart.yaml").is_file():
            return f"a Helm chart template (chart {Path(*parts[:index], 'Chart.yaml')})"
    return ""
