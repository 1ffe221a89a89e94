#!/usr/bin/env python3
"""Assertions of rules_pgo's e2e scripts over `bazel aquery --output=jsonproto` output and
`--execution_log_json_file` logs (Bazel 4.2.3 formats). Exits 1 with a message on failure.

  check_actions.py [--flag=F] [--mnemonic=M] COMMAND ...  F: the profile flag (default
      -fmemory-profile-use=), M: the profile action (default PgoMemProfIndex)

  check_actions.py profile-path AQUERY.json             print the M action's profile output path
  check_actions.py compiles AQUERY.json PROFILE LABEL…  every CppCompile of each LABEL has
                                                        -fmemory-profile-use=PROFILE
  check_actions.py middleman AQUERY.json PROFILE        a toolchain middleman carries PROFILE
  check_actions.py no-flag AQUERY.json                  no action mentions the profile flag
  check_actions.py objects AQUERY.json                  print the .o outputs of the CppCompile
                                                        actions with the flag
  check_actions.py execlog-inputs LOG PROFILE N         ≥ N executed compiles with the flag,
                                                        each with PROFILE among its inputs
  check_actions.py execlog-hits LOG MNEMONIC…           every spawn of these mnemonics was a
                                                        remote cache hit (and there is one)
  check_actions.py execlog-count LOG MNEMONIC N         exactly N spawns of MNEMONIC ran
  check_actions.py execlog-no-perf LOG MNEMONIC N       exactly N spawns of MNEMONIC ran, each
                                                        reading a .data trace (--perfdata) with
                                                        no perf: no PATH in its environment, no
                                                        perf among its arguments or inputs
"""
import json
import sys

FLAG = "-fmemory-profile-use="
MNEMONIC = "PgoMemProfIndex"
PROFILE_EXTS = (".profdata", ".afdo")


def die(msg):
    print("check_actions: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


class AQuery:
    def __init__(self, path):
        with open(path) as f:
            text = f.read()
        d = json.loads(text) if text.strip() else {}
        self.actions = d.get("actions", [])
        frags = {p["id"]: p for p in d.get("pathFragments", [])}
        self.paths = {}
        for a in d.get("artifacts", []):
            if "execPath" in a:
                self.paths[a["id"]] = a["execPath"]
                continue
            parts, fid = [], a.get("pathFragmentId")
            while fid:
                parts.append(frags[fid]["label"])
                fid = frags[fid].get("parentId")
            self.paths[a["id"]] = "/".join(reversed(parts))
        self.depsets = {s["id"]: s for s in d.get("depSetOfFiles", [])}
        self.targets = {t["id"]: t["label"] for t in d.get("targets", [])}

    def inputs(self, action):
        out, todo, seen = [], list(action.get("inputDepSetIds", [])), set()
        while todo:
            i = todo.pop()
            if i in seen:
                continue
            seen.add(i)
            s = self.depsets[i]
            out += [self.paths[a] for a in s.get("directArtifactIds", [])]
            todo += s.get("transitiveDepSetIds", [])
        return out

    def outputs(self, action):
        return [self.paths[a] for a in action.get("outputIds", [])]


def profile_path(aq):
    outs = [o for a in aq.actions if a["mnemonic"] == MNEMONIC for o in aq.outputs(a)
            if o.endswith(PROFILE_EXTS) and ".shards/" not in o and ".traces/" not in o]
    if len(set(outs)) != 1:
        die("expected one %s profile output, got %r" % (MNEMONIC, outs))
    return outs[0]


def cmd_objects(aq):
    for a in aq.actions:
        if a["mnemonic"] == "CppCompile" and any(x.startswith(FLAG) for x in a.get("arguments", [])):
            for o in aq.outputs(a):
                if o.endswith(".o"):
                    print(o)


def cmd_compiles(aq, profile, labels):
    for label in labels:
        acts = [a for a in aq.actions if a["mnemonic"] == "CppCompile" and aq.targets[a["targetId"]] == label]
        if not acts:
            die("no CppCompile action of %s" % label)
        for a in acts:
            flags = [x for x in a.get("arguments", []) if x.startswith(FLAG)]
            if flags != [FLAG + profile]:
                die("CppCompile of %s (%s) has %r, want [%r]" % (label, aq.outputs(a)[0], flags, FLAG + profile))
        print("ok: %d CppCompile actions of %s carry %s%s" % (len(acts), label, FLAG, profile))


def cmd_middleman(aq, profile):
    for a in aq.actions:
        if a["mnemonic"] == "Middleman" and profile in aq.inputs(a):
            print("ok: toolchain middleman %s has input %s" % (aq.outputs(a)[0], profile))
            return
    die("no Middleman action has %s among its inputs" % profile)


def cmd_no_flag(aq):
    for a in aq.actions:
        for x in a.get("arguments", []):
            if FLAG.rstrip("=") in x or "memprof_profile" in x or "sample_profile" in x:
                die("action %s of %s has %r" % (a["mnemonic"], aq.targets[a["targetId"]], x))
    print("ok: %d actions, none with a profile flag" % len(aq.actions))


def spawns(path):
    with open(path) as f:
        text = f.read()
    dec, i, out = json.JSONDecoder(), 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        obj, i = dec.raw_decode(text, i)
        out.append(obj)


def cmd_execlog_inputs(path, profile, want):
    n = 0
    for s in spawns(path):
        args = s.get("commandArgs", [])
        if not any(x.startswith(FLAG) for x in args):
            continue
        if FLAG + profile not in args:
            die("spawn %r uses another profile" % s.get("progressMessage"))
        inputs = [i["path"] for i in s.get("inputs", [])]
        if profile not in inputs:
            die("spawn %r has %s%s but not the file among its %d inputs" % (s.get("progressMessage"), FLAG, profile, len(inputs)))
        n += 1
    if n < want:
        die("%d executed compiles with the profile flag, want at least %d" % (n, want))
    print("ok: %d executed compile spawns had %s as an input and in their flags" % (n, profile))


def cmd_execlog_hits(path, mnemonics):
    found = 0
    for s in spawns(path):
        if s.get("mnemonic") not in mnemonics:
            continue
        found += 1
        if not s.get("remoteCacheHit"):
            die("%s spawn %r was not a remote cache hit (runner %r)" % (s.get("mnemonic"), s.get("progressMessage"), s.get("runner")))
    if not found:
        die("no spawn with mnemonic in %r in %s" % (mnemonics, path))
    print("ok: all %d spawns of %s were remote cache hits" % (found, ", ".join(mnemonics)))


def cmd_execlog_count(path, mnemonic, want):
    n = sum(1 for s in spawns(path) if s.get("mnemonic") == mnemonic)
    if n != want:
        die("%d %s spawns ran, want %d" % (n, mnemonic, want))
    print("ok: %d %s spawns ran" % (n, mnemonic))


def cmd_execlog_no_perf(path, mnemonic, want):
    n = 0
    for s in spawns(path):
        if s.get("mnemonic") != mnemonic:
            continue
        n += 1
        what = "%s spawn %r" % (mnemonic, s.get("progressMessage"))
        args = s.get("commandArgs", [])
        i = args.index("--perfdata") + 1 if "--perfdata" in args else len(args)
        if i >= len(args) or not args[i].endswith(".data"):
            die("%s does not read a .data file with --perfdata: %r" % (what, args))
        if any(a.startswith("--perfdata-via") or a.rsplit("/", 1)[-1] == "perf" for a in args):
            die("%s runs perf: %r" % (what, args))
        env = {e.get("name"): e.get("value") for e in s.get("environmentVariables", [])}
        if "PATH" in env:
            die("%s has PATH=%s in its environment (a perf could be found there)" % (what, env["PATH"]))
        inputs = [i["path"] for i in s.get("inputs", [])]
        if any(i.rsplit("/", 1)[-1] == "perf" for i in inputs):
            die("%s has a perf among its inputs: %r" % (what, inputs))
        print("ok: %s: argv[0] %s, environment %r, %d inputs: no perf to run" % (
            what, args[0], sorted(env), len(inputs)))
    if n != want:
        die("%d %s spawns ran, want %d" % (n, mnemonic, want))


def main(argv):
    global FLAG, MNEMONIC
    rest = [argv[0]]
    for a in argv[1:]:
        if a.startswith("--flag="):
            FLAG = a[len("--flag="):]
        elif a.startswith("--mnemonic="):
            MNEMONIC = a[len("--mnemonic="):]
        else:
            rest.append(a)
    argv = rest
    if len(argv) < 3:
        die(__doc__)
    cmd, f = argv[1], argv[2]
    if cmd == "profile-path":
        print(profile_path(AQuery(f)))
    elif cmd == "compiles":
        cmd_compiles(AQuery(f), argv[3], argv[4:])
    elif cmd == "middleman":
        cmd_middleman(AQuery(f), argv[3])
    elif cmd == "no-flag":
        cmd_no_flag(AQuery(f))
    elif cmd == "execlog-inputs":
        cmd_execlog_inputs(f, argv[3], int(argv[4]))
    elif cmd == "objects":
        cmd_objects(AQuery(f))
    elif cmd == "execlog-count":
        cmd_execlog_count(f, argv[3], int(argv[4]))
    elif cmd == "execlog-no-perf":
        cmd_execlog_no_perf(f, argv[3], int(argv[4]))
    elif cmd == "execlog-hits":
        cmd_execlog_hits(f, argv[3:])
    else:
        die("unknown command " + cmd)


if __name__ == "__main__":
    main(sys.argv)
