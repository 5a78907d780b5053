"""``tfpolicy recommend``: right-sizing from measured GPU usage (docs/recommend.md).

Pure core: ``histogram`` and ``recommender`` (TensorFusion's percentile
recommender), ``series`` (Prometheus answers), ``mapping`` (pods to
workloads), ``core`` (usage to resources), ``pool`` (a pre-allocating server's
VRAM, and ``check``'s verdict on its setting), ``crosscheck`` (measured figures
against the model and the setting), ``policy`` (the policy text).
Edges: ``prometheus`` (HTTP) and ``snapshot`` (the offline metrics file).
"""
