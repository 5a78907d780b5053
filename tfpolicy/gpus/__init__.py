"""What a GPU is to tfpolicy: the resource names that ask for one (the one rule the rewrite
and the simulation share), the cards' capacities, and Kubernetes quantities."""
