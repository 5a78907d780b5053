"""Frameworks that reserve a GPU memory pool up front (docs/recommend.md, "The trap of step 1").

The VRAM such a process shows in use is the pool it took, not what its model
needs. ``table`` lists the frameworks and the setting each reads (with its
default, cited from the framework's own source or docs), ``detect`` finds them
in a container's image, command, args and env, ``models`` holds common models'
sizes and ``names`` sizes the others from their names and flags, ``sizing``
turns a container into its needs per GPU, ``fit`` judges a setting under a limit
(the one verdict ``check`` and ``recommend`` both give), ``traps`` hooks it into
``check`` and ``plan``. Pure: data in, data out.
"""
