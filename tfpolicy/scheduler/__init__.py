"""Reference scheduler: replays a migration against a GPU inventory (DESIGN §4).

Knows nothing of YAML and imports nothing else from tfpolicy. Units are
integers: milli-TFLOPS, MiB, milli-percent, micro-USD per hour.

Public API:

* records (`model`): `Inventory.build(pools, gpus, nodes, default_pool)`, `Pool`,
  `Node`, `GPU`, `PodRequest` (`.key`), enums `Isolation`, `Placement`,
  `IsolationPolicy`, `Phase`, `PodKind`;
* `Ledger(inventory)`: `.reserve(pod, gpus) -> Allocation`, `.release(key)`,
  `.allocations()`, `.gpus[name]` (a `GpuState`), `LedgerError`;
* allocators (`Allocator` protocol, `.choose(pod) -> Choice | Unschedulable`):
  `FastAllocator(ledger)` and the brute-force `OracleAllocator(ledger)`;
  `schedule(allocator, pod) -> Allocation | Unschedulable` commits a choice;
* `Unschedulable` (`.message`, `.node_reasons`, `.gpu_reasons`), `Reason`,
  `diagnose(ledger, pod)`;
* reports: `usage(ledger) -> Usage`, `pool_usage(ledger)`, `oversubscribed_gpus(ledger)`;
* rollouts: `Transition`, `Strategy`, `StrategyType`, `default_strategy(kind)`,
  `simulate_transition`, `simulate_step(allocator, transitions) -> StepResult`,
  `place_pods(allocator, pods)`, `Failure`.
"""

from tfpolicy.scheduler.contract import Allocator, Choice, schedule
from tfpolicy.scheduler.diagnosis import Unschedulable, diagnose
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
    place_pods,
    simulate_step,
    simulate_transition,
)
from tfpolicy.scheduler.rules import Reason

__all__ = [
    "GPU",
    "Allocation",
    "Allocator",
    "Choice",
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
    "StepResult",
    "Strategy",
    "StrategyType",
    "Transition",
    "Unschedulable",
    "Usage",
    "UsageCount",
    "default_strategy",
    "diagnose",
    "oversubscribed_gpus",
    "place_pods",
    "pool_usage",
    "schedule",
    "simulate_step",
    "simulate_transition",
    "usage",
]
