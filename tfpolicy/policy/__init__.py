"""Migration policies: their model, the JSON Schemas they are checked against, how they
select workloads, and the repository configuration that names them."""
