"""Label, annotation and resource names the webhook reads and writes (NexusGPU/tensor-fusion
pkg/constants/constants.go).

Every key uses the default domain ``tensor-fusion.ai`` (constants.go:28-50); the
operator's custom-domain environment variables are out of scope offline.
"""

from __future__ import annotations

DOMAIN = "tensor-fusion.ai"
SCHEDULER_NAME = "tensor-fusion-scheduler"
SYSTEM_NAME = "tensor-fusion"


def key(name: str) -> str:
    """The fully qualified ``tensor-fusion.ai/<name>`` key."""
    return f"{DOMAIN}/{name}"


# Pod labels (constants.go:71 and on).
ENABLED = key("enabled")
COMPONENT = key("component")
GPUPOOL = key("gpupool")
WORKLOAD = key("workload")

# Pod annotations read by the webhook (internal/webhook/v1/tf_parser.go:40-225).
TFLOPS_REQUEST = key("tflops-request")
TFLOPS_LIMIT = key("tflops-limit")
VRAM_REQUEST = key("vram-request")
VRAM_LIMIT = key("vram-limit")
PERCENT_REQUEST = key("compute-percent-request")
PERCENT_LIMIT = key("compute-percent-limit")
GPU_COUNT = key("gpu-count")
GPU_INDICES = key("gpu-indices")
VENDOR = key("vendor")
GPU_MODEL = key("gpu-model")
QOS = key("qos")
IS_LOCAL_GPU = key("is-local-gpu")
SIDECAR_WORKER = key("sidecar-worker")
ISOLATION = key("isolation")
PARTITION_ID = key("partition-id")
WORKLOAD_PROFILE = key("workload-profile")
INJECT_CONTAINER = key("inject-container")
ENABLED_REPLICAS = key("enabled-replicas")
DEDICATED_GPU = key("dedicated-gpu")
WORKER_POD_TEMPLATE = key("worker-pod-template")
GANG_ENABLED = key("gang-enabled")
GANG_MIN_MEMBERS = key("gang-min-members")
GANG_TIMEOUT = key("gang-timeout")

# Pod annotations written by the webhook (internal/utils/compose.go:170).
CONTAINER_GPU_COUNT = key("container-gpu-count")
EMBEDDED_WORKER = key("embedded-worker")
SELECTED_WORKLOAD = key("selected-workload")
PENDING_OWNED_WORKLOAD = key("pending-owned-workload")
INDEX = key("index")
GANG_DESIRED = key("gang-desired-members")
GANG_REQUIRED = key("gang-required-members")
GANG_GROUP_KEY = key("gang-group-key")

# Node taint tolerated by local-GPU pods (internal/webhook/v1/pod_webhook.go:393, patchTFClient).
USED_BY = key("used-by")

TRUE = "true"
FALSE = "false"

ISOLATION_MODES = ("shared", "soft", "hard", "partitioned")
QOS_LEVELS = ("low", "medium", "high", "critical")
# Vendors without a user-space soft limiter, compared trimmed and
# case-insensitively (`pkg/constants/vendors.go:72-115`).
NO_SOFT_LIMITER = frozenset({"amd", "hygon", "metax"})

# Keys that the site docs still show but the code no longer reads
# (the stale annotation page of NexusGPU/tensor-fusion-site, workload-annotation.md, against
# pkg/constants/constants.go): old key -> what to use now.
OBSOLETE = {
    key("auto-resources"): key("autoscale"),
    key("auto-scale-target-resource"): key("autoscale-target"),
    key("auto-replicas"): "nothing (removed in PR #470)",
    key("compute-isolation"): ISOLATION,
    key("standalone-worker-mode"): f"{IS_LOCAL_GPU} / {SIDECAR_WORKER}",
    WORKLOAD: f"nothing (the webhook writes the {WORKLOAD} label itself)",
}

# Owner kinds that are no controller: a bare pod, or one owned by nothing.
NO_CONTROLLER = frozenset({"", "Pod"})
