// Command merge converts and merges profiles the way `llvm-profdata merge`
// does, writing the format a chosen clang release reads.
//
//	merge -o OUT --profiled-binary BIN [--llvm-version 16|19|22] RAW...
//	merge show --memory [--profiled-binary BIN] FILE
//
// Raw MemProf profiles (.memprofraw) from the compiler-rt heap profiler are
// symbolized against the profiled binary and written as an indexed
// .profdata for `clang -fmemory-profile-use=`. Indexed and YAML MemProf
// profiles are accepted as inputs too. The output is byte-identical to what
// that release's llvm-profdata writes for the same inputs (given in sorted
// order, with one writer thread), and never depends on input order or -j.
package main

import (
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/rules-pgo/rules_pgo/internal/atomicfile"
	"github.com/rules-pgo/rules_pgo/internal/cli"
	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/instrprof"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/profmerge"
)

const tool = "merge"

func main() { cli.Main(tool, run) }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "show":
			return runShow(args[1:], stdout, stderr)
		case "merge": // `llvm-profdata merge ...` spelling
			args = args[1:]
		}
	}
	return runMerge(args, stdout, stderr)
}

const mergeSummary = `Converts raw MemProf heap profiles (and merges indexed or YAML MemProf
profiles) into the indexed .profdata that clang's -fmemory-profile-use reads.

Inputs are detected by their magic bytes; directories are searched
recursively. Inputs are always processed in sorted path order, so the output
bytes do not depend on the order they are given in or on -j.

Examples:
  merge -o app.profdata --profiled-binary app prof/*.memprofraw
  merge --llvm-version 16 -o app.profdata --profiled-binary app app.memprofraw.123
  merge --llvm-version 19 --memprof-version 3 -o out.profdata --profiled-binary app RAW...
  merge show --memory --profiled-binary app app.memprofraw.123`

var mergeFooter = llvmrelease.VersionsHelp() + `

Failure modes for bad inputs (each bad input is always named on stderr):
  any   fail if any input is bad (default, as llvm-profdata)
  all   fail only if every input is bad; merge the good ones
  warn  never fail because of a bad input (fails only if nothing is left)

Exit status: 0 success, 1 failure, 2 usage error.`

func runMerge(args []string, stdout, stderr io.Writer) error {
	var (
		output, binary, inputFiles, failure = "", "", "", "any"
		release, mpVersion, jobs            = strconv.Itoa(llvmrelease.Default), "", "0"
		weighted, debugDirs                 []string
		buildIDOut                          string
		fullSchema, help, fatalWarnings     bool
		sampleFmt                           string
	)
	fs := cli.NewFlagSet(tool, "merge [options] <filename...>")
	fs.Summary, fs.Footer = mergeSummary, mergeFooter
	fs.StringValue(&output, "<file>", "Output file (written atomically)", "--output", "-o")
	fs.StringValue(&binary, "<file>", "Path to the profiled binary (needed for raw MemProf inputs)", "--profiled-binary")
	fs.StringValue(&release, "<N>", "LLVM release whose clang reads the output: "+llvmrelease.SupportedText()+" (default "+strconv.Itoa(llvmrelease.Default)+"; see below)", "--llvm-version")
	fs.StringValue(&mpVersion, "<N>", "MemProf version to write (default: what the release writes)", "--memprof-version")
	fs.BoolFlag(&fullSchema, true, "Write every MemInfoBlock field (MemProf V2+)", "--memprof-full-schema")
	fs.StringValue(&inputFiles, "<file>", "File listing inputs, one [weight,]path per line; '#' comments", "--input-files", "-f")
	fs.ListValue(&weighted, "<W,file>", "Input with a weight (weights do not apply to MemProf data)", "--weighted-input", "-w")
	fs.StringValue(&failure, "<any|all|warn>", "What bad inputs do (default any)", "--failure-mode")
	fs.StringValue(&jobs, "<N>", "Parallel jobs (default: all cores); never changes the output", "--num-threads", "-j")
	fs.ListValue(&debugDirs, "<dir>", "Directory to search for separate debug files", "--debug-file-directory")
	fs.BoolFlag(&fatalWarnings, true, "Treat warnings as errors", "--fatal-warnings")
	fs.StringValue(&buildIDOut, "<file>", "Also write the profiled binary's GNU build id (hex) to this file", "--build-id-output")
	fs.Add(&cli.Option{Names: []string{"--binary", "--extbinary", "--text", "--sample", "--instr"}, Kind: cli.Flag,
		Help: "Sample-profile output formats and input kinds (sample profiles are not supported yet)",
		Set: func(name, _ string) error {
			if name != "--instr" {
				sampleFmt = name
			}
			return nil
		}})
	fs.BoolFlag(&help, true, "Show this help", "--help", "-h")
	pos, err := fs.Parse(args)
	if err != nil {
		return err
	}
	if help {
		fs.PrintHelp(stdout)
		return nil
	}
	if sampleFmt != "" {
		return cli.Usagef("%s: sample profiles are not supported yet", sampleFmt)
	}
	if output == "" {
		return cli.Usagef("no output file: give -o FILE")
	}
	rel, err := strconv.Atoi(release)
	if err != nil {
		return cli.Usagef("--llvm-version=%s: want 16, 19 or 22", release)
	}
	wo, err := instrprof.Defaults(rel)
	if err != nil {
		return cli.Usagef("--llvm-version=%s: want 16, 19 or 22", release)
	}
	if mpVersion != "" {
		v, err := strconv.Atoi(mpVersion)
		if err != nil {
			return cli.Usagef("--memprof-version=%s: want a number", mpVersion)
		}
		wo.MemProfVersion = v
	}
	wo.FullSchema = fullSchema
	if err := wo.Validate(); err != nil {
		return cli.Usagef("%v", err)
	}
	fm, err := profmerge.ParseFailureMode(failure)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	j, err := strconv.Atoi(jobs)
	if err != nil || j < 0 {
		return cli.Usagef("--num-threads=%s: want a number >= 0", jobs)
	}
	var inputs []profmerge.Input
	for _, p := range pos {
		inputs = append(inputs, profmerge.Input{Path: p, Weight: 1})
	}
	for _, w := range weighted {
		in, err := profmerge.ParseWeighted(w)
		if err != nil {
			return cli.Usagef("%v", err)
		}
		inputs = append(inputs, in)
	}
	if inputFiles != "" {
		list, err := profmerge.ReadInputFiles(inputFiles)
		if err != nil {
			return err
		}
		inputs = append(inputs, list...)
	}
	if len(inputs) == 0 {
		return cli.Usagef("no input files")
	}
	if buildIDOut != "" && binary == "" {
		return cli.Usagef("--build-id-output needs --profiled-binary")
	}
	rep := cli.NewReporter(tool, stderr)
	rep.FatalWarnings = fatalWarnings
	err = profmerge.Run(profmerge.Options{
		Inputs:               inputs,
		Output:               output,
		ProfiledBinary:       binary,
		DebugFileDirectories: debugDirs,
		Write:                wo,
		Jobs:                 j,
		Failure:              fm,
		Warnf:                rep.Warnf,
		Progress:             rep.Progress,
	})
	rep.DoneProgress()
	if err != nil {
		return err
	}
	if err := rep.Err(); err != nil {
		os.Remove(output)
		return err
	}
	if buildIDOut != "" {
		if err := writeBuildID(buildIDOut, binary); err != nil {
			os.Remove(output)
			return err
		}
	}
	return nil
}

// writeBuildID writes the GNU build id of binary, in hex and newline
// terminated, to name (atomically). The merge has already checked that the
// raw profiles carry this id.
func writeBuildID(name, binary string) error {
	bin, err := elfsym.Open(binary, &elfsym.Options{DWARFOnly: true})
	if err != nil {
		return fmt.Errorf("profiled binary: %w", err)
	}
	id := bin.BuildID()
	bin.Close()
	if len(id) == 0 {
		return fmt.Errorf("%s: no GNU build id (link with -Wl,--build-id)", binary)
	}
	return atomicfile.WriteFile(name, []byte(hex.EncodeToString(id)+"\n"), 0o644)
}

func runShow(args []string, stdout, _ io.Writer) error {
	var (
		binary, output, release string = "", "", strconv.Itoa(llvmrelease.Default)
		memory, help            bool
	)
	fs := cli.NewFlagSet(tool, "merge show --memory [options] <file>")
	fs.Summary = `Prints the MemProf records of a profile as text:
  a raw profile (with --profiled-binary): like llvm-profdata show --memory
  an indexed profile: the YAML MemProf form LLVM 20+ reads and writes`
	fs.BoolFlag(&memory, true, "Show MemProf data (the only kind supported yet)", "--memory")
	fs.StringValue(&binary, "<file>", "Profiled binary (for raw profiles)", "--profiled-binary")
	fs.StringValue(&output, "<file>", "Output file (default stdout)", "--output", "-o")
	fs.StringValue(&release, "<N>", "LLVM release whose conversion to emulate for raw input (default "+strconv.Itoa(llvmrelease.Default)+")", "--llvm-version")
	fs.BoolFlag(&help, true, "Show this help", "--help", "-h")
	pos, err := fs.Parse(args)
	if err != nil {
		return err
	}
	if help {
		fs.PrintHelp(stdout)
		return nil
	}
	if len(pos) != 1 {
		return cli.Usagef("show takes exactly one input file")
	}
	rel, err := strconv.Atoi(release)
	if err != nil {
		return cli.Usagef("--llvm-version=%s: want 16, 19 or 22", release)
	}
	w := stdout
	if output != "" && output != "-" {
		f, err := os.Create(output)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	if err := profmerge.Show(w, pos[0], binary, rel); err != nil {
		return err
	}
	return nil
}
