"""Reference scheduler: replays a migration against a GPU inventory (docs/design.md,
"Simulating the cluster").

Knows nothing of YAML and imports nothing else from tfpolicy. Units are
integers: milli-TFLOPS, MiB, milli-percent, micro-USD per hour.

Public API:

* records (`model`): `Inventory.build(pools, gpus, nodes, default_pool, settings)`,
  `Pool`, `Node`, `GPU`, `PodRequest` (`.key`), enums `Isolation`, `Placement`,
  `IsolationPolicy`, `Phase`, `PodKind`;
* `SchedulerSettings`: the operator's configuration (isolation policy,
  progressive migration, score weights), Helm chart defaults;
* `Ledger(inventory, settings=None)`: `.reserve(pod, gpus) -> Allocation`,
  `.release(key)`, `.allocations()`, `.gpus[name]` (a `GpuState`), `.settings`
  (given, else the inventory's, else the defaults), `LedgerError`;
* `select_gpus(ledger, pod)`: upstream `SelectGPUs` (Alloc and defrag path);
* allocators (`Allocator` protocol, `.choose(pod) -> Choice | Unschedulable`):
  `FastAllocator(ledger)` and the brute-force `OracleAllocator(ledger)`;
  `schedule(allocator, pod) -> Allocation | Unschedulable` commits a choice;
* `Unschedulable` (`.message`, `.node_reasons`, `.gpu_reasons`), `Reason`,
  `diagnose(ledger, pod)`;
* reports: `usage(ledger) -> Usage`, `pool_usage(ledger)`, `oversubscribed_gpus(ledger)`;
* consolidation: `consolidate(allocator, budgets, daemons) -> Consolidation`,
  `lower_bound(ledger)`; `Ledger.cordon(node, on)`;
* rollouts: `Transition`, `Strategy`, `StrategyType`, `default_strategy(kind)`,
  `simulate_transition`, `simulate_step(allocator, transitions) -> StepResult`,
  `paused_target(strategy, replicas)` (where a canary `pause` holds the rollout),
  `place_pods(allocator, pods)`, `Failure`.
"""

from tfpolicy.scheduler.contract import Allocator, Choice, schedule
from tfpolicy.scheduler.diagnosis import Unschedulable, diagnose
from tfpolicy.scheduler.drain import Consolidation, consolidate, lower_bound
from tfpolicy.scheduler.fast import FastAllocator
from tfpolicy.scheduler.ledger import Allocation, GpuState, Ledger, LedgerError
from tfpolicy.scheduler.model import (
    GPU,
    Inventory,
    Isolation,
    IsolationPolicy,
    Node,
    Phase,
    Placement,
    PodKind,
    PodRequest,
    Pool,
    SchedulerSettings,
)
from tfpolicy.scheduler.oracle import OracleAllocator
from tfpolicy.scheduler.report import (
    GpuLimits,
    GpuUser,
    PoolUsage,
    Usage,
    UsageCount,
    oversubscribed_gpus,
    pool_usage,
    usage,
)
from tfpolicy.scheduler.rollout import (
    Failure,
    StepResult,
    Strategy,
    StrategyType,
    Transition,
    default_strategy,
    paused_target,
    place_pods,
    simulate_step,
    simulate_transition,
)
from tfpolicy.scheduler.rules import Reason
from tfpolicy.scheduler.select import select_gpus

__all__ = [
    "GPU",
    "Allocation",
    "Allocator",
    "Choice",
    "Consolidation",
    "Failure",
    "FastAllocator",
    "GpuLimits",
    "GpuState",
    "GpuUser",
    "Inventory",
    "Isolation",
    "IsolationPolicy",
    "Ledger",
    "LedgerError",
    "Node",
    "OracleAllocator",
    "Phase",
    "Placement",
    "PodKind",
    "PodRequest",
    "Pool",
    "PoolUsage",
    "Reason",
    "SchedulerSettings",
    "StepResult",
    "Strategy",
    "StrategyType",
    "Transition",
    "Unschedulable",
    "Usage",
    "UsageCount",
    "consolidate",
    "default_strategy",
    "diagnose",
    "lower_bound",
    "oversubscribed_gpus",
    "paused_target",
    "place_pods",
    "pool_usage",
    "schedule",
    "select_gpus",
    "simulate_step",
    "simulate_transition",
    "usage",
]
