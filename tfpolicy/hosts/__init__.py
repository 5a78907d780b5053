"""Helpers of the host adapters (KRM function, kustomize plugin, ArgoCD CMP) over the engine."""
