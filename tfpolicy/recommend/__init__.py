"""``tfpolicy recommend``: right-sizing from measured GPU usage (issue 13, DESIGN §3).

Pure core: ``histogram`` and ``recommender`` (TensorFusion's percentile
recommender), ``series`` (Prometheus answers), ``mapping`` (pods to
workloads), ``core`` (usage to resources), ``policy`` (the policy text).
Edges: ``prometheus`` (HTTP) and ``snapshot`` (the offline metrics file).
"""
