"""Where pods live in each kind of object, and how many of them there are.

- :mod:`.shapes`: the records a kind is described with, and the path syntax;
- :mod:`.kinds`: the registry of kinds, and where each keeps its pods' metadata and
  containers (each controller's propagation rule cited);
- :mod:`.views`: a pod whose parts live apart, read as a pod template and written back;
- :mod:`.registry`: the templates of an object, and ``replicas_of``.
"""

from tfpolicy.workloads.registry import (
    BUILTIN_KINDS,
    MAX_REPLICAS,
    NotCounted,
    Registry,
    ReplicasError,
    TemplateKind,
    View,
    parse_template_path,
    replicas_of,
)

__all__ = ["BUILTIN_KINDS", "MAX_REPLICAS", "NotCounted", "Registry", "ReplicasError",
           "TemplateKind", "View", "parse_template_path", "replicas_of"]
