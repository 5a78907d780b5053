"""Files at the edge: reading manifests and policies (sources), replacing files in place for
``fix`` (output), and installing the files a command writes (install)."""
