"""What the profile rules (memprof_profile, sample_profile, instr_profile) share: the toolchain,
the LLVM release, the failure mode, and the `binary` attribute (a file, or an executable
target rebuilt in a training configuration by the attribute's transition)."""

load(":helpers.bzl", "parse_llvm_version")

TOOLCHAIN_TYPE = str(Label("//toolchain:toolchain_type"))

def pgo_tools(ctx):
    """Returns (PgoToolchainInfo, LLVM release): the rule's llvm_version, else the toolchain's.

    Args:
      ctx: the rule context (attributes llvm_version and, when it has one, failure_mode).
    Returns:
      (PgoToolchainInfo, int).
    """
    pgo = ctx.toolchains[TOOLCHAIN_TYPE].pgo
    version, err = parse_llvm_version(ctx.attr.llvm_version, str(ctx.label))
    if err:
        fail(err)
    mode = getattr(ctx.attr, "failure_mode", "any")
    if mode not in ["any", "all", "warn"]:
        fail("%s: failure_mode must be \"any\", \"all\" or \"warn\", got %r" % (ctx.label, mode))
    return pgo, version or pgo.llvm_version

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
