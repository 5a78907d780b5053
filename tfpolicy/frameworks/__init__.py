"""Frameworks that reserve a GPU memory pool up front (issue 32, the guide's step 1 trap).

The VRAM such a process shows in use is the pool it took, not what its model
needs. ``table`` lists the frameworks and the setting each reads (with its
default, cited from the framework's own source or docs), ``detect`` finds them
in a container's image, command, args and env, ``models`` holds common models'
sizes, ``sizing`` turns a model into a VRAM need and the setting that fits a
limit, ``traps`` warns in ``check`` and ``plan`` when a limit starves the pool.
Pure: data in, data out.
"""
