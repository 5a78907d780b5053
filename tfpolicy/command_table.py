"""Every command's name, where it is defined, and what its help says: the one source.

``tfpolicy --help`` is written from this table without the command line library or
any command (``tfpolicy.cli``); the click group lists the commands from it without
importing them (``tfpolicy.commands.group``), and each command takes its help and its
examples from it (``tfpolicy.commands.options.command``). Plain strings only, so that
reading it costs a start nothing; outside ``commands/``, so that ``--help`` loads no
module of that package.
"""

from __future__ import annotations

# What the group itself says, and its own options, as ``tfpolicy --help`` lists them.
GROUP_HELP = "Migrate GPU workloads to TensorFusion GPU pooling, the GitOps way."
VERSION_HELP = "Show the version and the commit it was built from, and exit."
TRACEBACK_HELP = "Show the traceback of an internal error."
HELP_HELP = "Show this message and exit."  # click's own words for -h, --help

# Each command by its module (under ``tfpolicy.commands``) and function.
COMMANDS: dict[str, tuple[str, str]] = {
    "apply": ("apply", "apply"), "check": ("check", "check"), "fix": ("fix", "fix"),
    "validate": ("validate", "validate"), "krm": ("krm", "krm"),
    "kustomize": ("kustomize", "kustomize"), "argocd": ("argocd", "argocd"),
    "admission": ("admission", "admission"), "plan": ("plan", "plan"),
    "recommend": ("recommend", "recommend_cmd"), "verify": ("verify", "verify_command"),
    "gpus": ("gpus", "gpus"), "init": ("init", "init"),
    "promote": ("promote", "promote"),
}

# The commands listed by the order of the work (docs/commands.md): what starts a migration,
# what each rung runs, the loop between rungs, and the hosts' entry points last.
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Start", ("init", "gpus", "validate")),
    ("Each rung", ("plan", "fix", "check", "apply", "admission")),
    ("Between rungs", ("verify", "promote", "recommend")),
    ("Run by hosts (kpt, kustomize, Argo CD)", ("krm", "kustomize", "argocd")),
)

# Said in every engine command's help: nothing is read or rewritten that was not named.
_PATHS = ("PATHS are files and folders (walked for .yaml, .yml and .json); only what is "
          "named is read, so name `.` for this folder, and `-` for stdin (apply only). No "
          "PATHS is an error.")

# Each command's help, paragraphs apart by a blank line (click wraps each).
HELP: dict[str, str] = {
    "admission": "Simulate the TensorFusion webhook on every pod template; exit 1 if any pod "
                 "is rejected.",
    "apply": f"Rewrite manifests from files, folders or stdin (-) to stdout.\n\n{_PATHS}",
    "argocd": "Run as an ArgoCD config-management plugin (plugins/argocd/plugin.yaml).",
    "check": "Exit 1 when any file would change or any error is found (with --fail-on "
             "warning, any warning too: a GPU request not migrated among them).\n\n"
             "With --diff and a --format a program reads (json, sarif, junit), the findings "
             "alone are on stdout and the diff goes to stderr.\n\n"
             "Also warns about TensorFusion webhook traps (each finding says which) left by "
             f"``fix``.\n\n{_PATHS}",
    "fix": f"Rewrite manifest files in place; exit 1 when any file changed.\n\n{_PATHS}",
    "gpus": "List the GPU models an inventory may name (those whose names contain CONTAINS).",
    "init": "Write a starter .tfpolicy.yaml and .pre-commit-config.yaml into PATH.\n\n"
            "Reads PATH's manifests the way check does (with the takeover policy) and names "
            "the GPU workloads, namespaces and kinds it found in the config's comments. "
            "Existing files are left alone unless --force.",
    "krm": "KRM function: ResourceList on stdin, ResourceList with results on stdout.",
    "kustomize": "Run as a kustomize legacy exec plugin (kubectl kustomize "
                 "--enable-alpha-plugins).",
    "plan": "Plan the migration step by step and prove each step fits the inventory.\n\n"
            "Exit 1 when a step does not fit; with --fail-on warning, also when the plan warns "
            "(a GPU request not migrated, a step's warning).",
    "promote": "Verify the rung .tfpolicy.yaml names and, when ready and its gates hold, "
               "write the next one.\n\n"
               "Exit 0 advanced, 5 done (the last rung is ready), 75 wait, 1 stop (the "
               "rollback rung written, unless --no-rollback), 4 refused (nothing changed), 2 "
               "unusable input (also a Prometheus the gates cannot ask). See docs/promote.md "
               "and docs/gates.md.",
    "recommend": "Right-size GPU workloads from their measured usage (TensorFusion's "
                 "recommender).",
    "validate": "Validate policy files (default: the policies of .tfpolicy.yaml).",
    "verify": "Check that a plan step (the rung .tfpolicy.yaml names) took effect in the "
              "cluster, and that its gates (the application's own metrics) hold: ready, wait "
              "or stop.\n\nExit 0 ready, "
              "75 wait (verify again later), 1 stop (roll back with the policy the report "
              "names), 2 unusable input. See docs/verify.md and docs/gates.md.",
}

# The first paragraph of each help: the command's line in ``tfpolicy --help``.
SUMMARIES: dict[str, str] = {name: text.partition("\n\n")[0] for name, text in HELP.items()}

# The examples that end each command's help (a group's subcommands carry their own).
EXAMPLES: dict[str, tuple[str, ...]] = {
    "admission": ("tfpolicy admission manifests/",
                  "tfpolicy admission --values values.yaml -o - manifests/"),
    "apply": ("tfpolicy apply -p takeover-25 manifests/ > migrated.yaml",
              "helm template chart | tfpolicy apply -p takeover -"),
    "check": ("tfpolicy check manifests/",
              "tfpolicy check --format sarif manifests/ > tfpolicy.sarif"),
    "fix": ("tfpolicy fix manifests/", "tfpolicy fix -p takeover-1 manifests/"),
    "gpus": ("tfpolicy gpus                # every model, with TFLOPS, VRAM and cost",
             "tfpolicy gpus H100 --format json"),
    "init": ("tfpolicy init                # this folder",
             "tfpolicy init --force repo/  # start over"),
    "krm": ("kpt fn eval ./package --exec 'tfpolicy krm' -- policies=takeover-25",),
    "plan": ("tfpolicy plan -p takeover --inventory inventory.yaml manifests/",
             "tfpolicy plan -p rightsize.yaml --inventory inv.yaml --format html -o plan.html "
             "manifests/"),
    "promote": ("tfpolicy promote --inventory inv.yaml --cluster cluster.yaml --commit "
                "manifests/",
                "tfpolicy promote --inventory inv.yaml --live --context prod --patch "
                "rung.patch manifests/"),
    "recommend": ("tfpolicy recommend --prometheus http://prometheus:9090 manifests/ > "
                  "rightsize.yaml",
                  "tfpolicy recommend --metrics examples/metrics/example-fleet-2d.json "
                  "examples/manifests"),
    "validate": ("tfpolicy validate policies/llm-serving.yaml",
                 "tfpolicy validate --discover ."),
    "verify": ("tfpolicy verify --step 1 --inventory inventory.yaml --cluster cluster.yaml "
               "manifests/",
               "tfpolicy verify -p takeover --live --context prod manifests/"),
}


def epilog(name: str) -> str | None:
    """The examples of command ``name`` as click prints an epilog, unwrapped (``\\b``)."""
    if name not in EXAMPLES:
        return None
    return "\b\nExamples:\n" + "".join(f"  {line}\n" for line in EXAMPLES[name])
