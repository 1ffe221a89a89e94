"""Sharded merges: many inputs → shards merged in their own actions → a final merge.

Remote execution runs the shards in parallel and the cache keeps every shard whose inputs did
not change; the plan (helpers.shard_plan) depends only on the number of inputs and the shard
size, and inputs are sorted by path, so a change of one input re-runs its shard and the merges
above it. The partial profiles are named in shard order (`<name>.shards/L<level>-<index>`,
zero-padded) because the merge tool reads its inputs in sorted path order.

With `partial_state` (MemProf with merged contexts), every partial profile has a state file
beside it (`<partial>.state`, merge --memprof-partial-state-output: the first block's
timestamps, CPU ids and counters of each allocation context), and the merges above it read
each partial with its state (--memprof-partial-input=PROFILE,STATE), which makes the result
byte-identical to one merge of every input (docs/bazel.md, "Sharded merges")."""

load(":helpers.bzl", "shard_plan", "zero_pad")

def merge_tree(
        ctx,
        tool,
        entries,
        output,
        shard_size,
        leaf_args,
        leaf_inputs,
        partial_args,
        final_args,
        mnemonic,
        what,
        first_leaf_outputs = [],
        first_leaf_args = [],
        partial_ext = "",
        partial_state = False):
    """Registers the merge actions of `entries` into `output`.

    Args:
      ctx: the rule context.
      tool: FilesToRunProvider of the merge tool.
      entries: list of (weight, File) sorted by path: weight "" or a decimal string (the
        --input-files list holds "path" or "weight,path").
      output: the final profile.
      shard_size: 0 = one action; else at most this many inputs per action.
      leaf_args: flags of the actions that read `entries` (level 0).
      leaf_inputs: extra inputs of those actions (e.g. the profiled binary).
      partial_args: output flags of every action but the final one (the partial format).
      final_args: output flags of the final action.
      mnemonic: the actions' mnemonic (the final and the shards alike).
      what: the profile, for progress messages.
      first_leaf_outputs: extra outputs of the first level-0 action (e.g. a build id file).
      first_leaf_args: flags writing them.
      partial_ext: file extension of the partial profiles.
      partial_state: give each partial a state file and read partials with it (MemProf
        contexts merged: exact sharding).
    Returns:
      The number of actions registered.
    """
    plan = shard_plan(len(entries), shard_size)
    items = [(w, f, None) for w, f in entries]
    actions = 0
    for level, groups in enumerate(plan):
        final = level == len(plan) - 1
        next_items = []
        for i, (start, end) in enumerate(groups):
            if final:
                out = output
            else:
                out = ctx.actions.declare_file("%s.shards/L%d-%s%s" % (ctx.label.name, level, zero_pad(i, 5), partial_ext))
            group = items[start:end]
            args = ctx.actions.args()
            args.add("-o", out)
            args.add_all(leaf_args if level == 0 else [])
            args.add_all(final_args if final else partial_args)
            outputs = [out]
            state = None
            if partial_state and not final:
                state = ctx.actions.declare_file(out.basename + ".state", sibling = out)
                args.add("--memprof-partial-state-output", state)
                outputs.append(state)
            if level == 0 and i == 0:
                args.add_all(first_leaf_args)
                outputs += first_leaf_outputs

            # Inputs go through a param file (--input-files, one [weight,]path a line):
            # thousands of inputs must not overflow the command line.
            lines = ctx.actions.args()
            lines.set_param_file_format("multiline")
            lines.use_param_file("--input-files=%s", use_always = True)
            for weight, f, st in group:
                if st:
                    # A partial with its state: on the command line (at most shard_size).
                    args.add_joined("--memprof-partial-input", [f, st], join_with = ",")
                else:
                    # add_all: a directory (tree artifact) expands to its files.
                    lines.add_all([f], format_each = (weight + ",%s") if weight else "%s")
            ctx.actions.run(
                executable = tool,
                arguments = [args, lines],
                inputs = depset([f for _, f, _ in group] + [st for _, _, st in group if st] +
                                (leaf_inputs if level == 0 else [])),
                outputs = outputs,
                mnemonic = mnemonic,
                progress_message = "%s %s%s" % (
                    "Merging" if len(plan) == 1 else ("Final merge of" if final else "Merging shard %d.%d of" % (level, i)),
                    what,
                    "" if final else " (%d inputs)" % (end - start),
                ),
                execution_requirements = {"supports-path-mapping": "1"},
            )
            next_items.append(("", out, state))
            actions += 1
        items = next_items
    return actions
