// Package perfscript reads the text traces that `perf script -F
// ip,brstack --show-mmap-events` prints (LBR samples, optionally with call
// stacks: "hybrid" samples) and aggregates them the way llvm-profgen does
// before it symbolizes anything: into range counters (fall-through address
// ranges between consecutive taken branches) and branch counters (source,
// target), written as llvm-profgen's "unsymbolized profile"
// (`llvm-profgen --skip-symbolization`).
//
// The reference is llvm-profgen's PerfReader.cpp and ProfiledBinary.cpp;
// the tests compare byte for byte, warnings included, with llvm-profgen 19
// and 22 on traces that lbr-trace records from real runs (the two releases
// print the same for everything this package does). The parser streams:
// memory is bounded by the aggregated counters (distinct fall-through
// pairs and branches), not by the length of the trace; LBR-only traces
// are parsed on every core (parallel.go), with the same result. A line
// is at most 16 MiB (perf script's longest, LBR samples, are a few KiB):
// a longer one is an error naming it, where llvm-profgen reads any line
// whole (a 256 MiB LBR line: 0.58 GB) and accepts it.
//
// Done: LBR-only scripts; hybrid scripts read context-insensitively
// (--ignore-stack-samples), or streamed sample by sample to
// Options.HybridSample for a virtual unwinder; MMAP and MMAP2 events with
// llvm-profgen's PIE/non-PIE base-address rules and errors; --pid;
// repeat-count lines; llvm-profgen's parsing warnings with their counts.
// ParseEvents aggregates samples decoded from perf.data (internal/perfdata,
// in perf script's order) exactly as the lines perf script prints of them.
// The virtual unwinder and the context-sensitive counters need the
// symbolizer's inline frames: they are internal/profgen's Unwinder, fed
// through HybridSample. The warnings llvm-profgen prints while loading the
// binary (Binary.LoadWarnings) and its error for a file that is not an
// object file. One check llvm-profgen does not make: an MMAP2 event that
// names a build id (perf record --buildid-mmap) other than the binary's
// (Options.BuildID) is warned about; the trace is still read as
// llvm-profgen reads it. Data-access traces (`perf report -D` dumps of
// load samples, llvm-profgen 22's --data-access-perftrace): ParseDataAccess
// counts the loads of vtables (_ZTV symbols) per canonical IP, mapping data
// addresses back through the dump's non-executable mmap events as
// llvm-profgen does. Not done: pseudo probes, COFF, kernel images.
//
// llvm-profgen behaviours the spec (sample-profiles-and-profgen.md §4.3)
// does not spell out, all reproduced here:
//
//   - Every call of parseSample counts as a sample in the denominator of
//     "of samples have leaf external frame in call stack": a hybrid sample
//     counts twice, once for the empty line perf prints before it.
//   - Samples whose stack leaf is in a prolog or epilog are dropped even
//     with --ignore-stack-samples: the stack is parsed first, then cleared.
//   - "No relevant mmap event is matched" is printed only once a sample
//     kept an LBR entry; a PIE trace without its mmap event has none (every
//     address is external), so it only ends in "No samples in perf script!".
//   - A line of decimal digits is a repeat count wherever a sample may
//     start, also a stack frame printed without its leading whitespace.
//   - An LBR entry's "0x" prefixes are dropped without being checked; a bad
//     entry ends the line with a warning but keeps the entries before it.
//   - A line containing PERF_RECORD_MMAP but neither "PERF_RECORD_MMAP2 "
//     nor "PERF_RECORD_MMAP " (llvm_unreachable in the source) is warned
//     about as an unparseable mmap event by both releases' builds.
//   - The range counter is the subset of warnInvalidRange's fall-through
//     pairs whose ends are instruction starts and that cross no call,
//     return or direct jump; indirect jumps do not break a range
//     (MCInstrDesc::isUnconditionalBranch excludes indirect branches).
package perfscript
