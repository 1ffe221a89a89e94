"""The `binary` attribute of the profile rules: a file, or an executable target rebuilt in a
training configuration by the attribute's transition."""

def profiled_binary(ctx):
    """Returns the profiled binary of ctx.attr.binary.

    Args:
      ctx: the rule context; ctx.attr.binary is set.
    Returns:
      (File, Target): the binary and, when it is an executable target, that target (else None).
    """
    target = ctx.attr.binary
    if type(target) == "list":  # Bazel 4.2.3: attributes with a transition are lists.
        target = target[0]
    exe = target[DefaultInfo].files_to_run.executable
    if exe:
        return exe, target
    files = target[DefaultInfo].files.to_list()
    if len(files) != 1:
        fail("%s: binary must be one file or an executable target, %s gives %d files" % (
            ctx.label,
            target.label,
            len(files),
        ))
    return files[0], None

def path_of(f):
    """Sort key: a File's path."""
    return f.path
