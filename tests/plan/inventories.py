"""Small inventories the plan tests write beside their manifests."""

from __future__ import annotations


def one_node(gpus: int) -> str:
    """One pool, one node of ``gpus`` A100 80 GB cards."""
    return f"""\
apiVersion: tfpolicy.dev/v1alpha1
kind: Inventory
metadata: {{name: one-node}}
spec:
  defaultPool: pool
  pools:
    - name: pool
      nodeGroups: [{{name: n, count: 1, gpusPerNode: {gpus}, model: A100_SXM_80G}}]
"""
