"""Whose pods carry ``pod-template-hash``: the label the webhook keys its enabled-replicas
counter on, whatever the owner kind (NexusGPU/tensor-fusion
internal/webhook/v1/pod_counter.go:24-44).

A Deployment's ReplicaSets stamp it on every pod they make, and so it is on
the pods of every kind that runs them as a Deployment:

- a Knative Service or Configuration: each revision runs as a Deployment
  (knative/serving pkg/reconciler/revision/resources/deploy.go, ``MakeDeployment``);
- a KServe InferenceService component: a Knative Service in the default
  Serverless mode, a Deployment in RawDeployment (Standard) mode (kserve/kserve
  pkg/controller/v1beta1/inferenceservice/reconcilers); its multi-node
  ``workerSpec`` is refused, so that case never gets here;
- an LLMInferenceService on one node (kserve/kserve pkg/controller/v1alpha2/llmisvc/
  workload_single_node.go, a Deployment per template; the multi-node one, a
  LeaderWorkerSet, is refused).

A template may also carry the label itself (a plain ReplicaSet's). An Argo
Rollout's pods carry ``rollouts-pod-template-hash`` instead, and StatefulSets,
Jobs and DaemonSets none: there the cap never bites.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

POD_TEMPLATE_HASH = "pod-template-hash"
DEPLOYMENT_MADE = frozenset({"Deployment", "Service", "Configuration", "InferenceService",
                             "LLMInferenceService"})


def carries_template_hash(kind: str, labels: Mapping[str, Any]) -> bool:
    """Whether the pods of a ``kind`` template with pod ``labels`` carry the label."""
    return kind in DEPLOYMENT_MADE or POD_TEMPLATE_HASH in labels
