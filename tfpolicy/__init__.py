"""tfpolicy: move GPU workloads from device-plugin resources to TensorFusion GPU pooling."""

__version__ = "0.1.0"
