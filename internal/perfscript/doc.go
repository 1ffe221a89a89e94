// Package perfscript reads the text traces that `perf script -F
// ip,brstack --show-mmap-events` prints (LBR samples, optionally with call
// stacks: "hybrid" samples) and aggregates them the way llvm-profgen does
// before it symbolizes anything: into range counters (fall-through address
// ranges between consecutive taken branches) and branch counters (source,
// target), written as llvm-profgen's "unsymbolized profile"
// (`llvm-profgen --skip-symbolization`).
//
// The reference is llvm-profgen's PerfReader.cpp and ProfiledBinary.cpp as
// released in LLVM 19 and 22 (they agree on everything this package does);
// the tests compare byte for byte with both. The parser streams: memory is
// bounded by the aggregated counters (distinct ranges and branches), not
// by the length of the trace.
//
// What is done: LBR-only scripts, hybrid scripts read as context-insensitive
// (--ignore-stack-samples), MMAP and MMAP2 events with llvm-profgen's
// PIE/non-PIE base-address rules, --pid filtering, repeat-count lines, and
// llvm-profgen's warnings with their counts. Not done yet: the virtual
// unwinder that turns hybrid samples into context-sensitive counters (it
// needs the symbolizer's inline frames), pseudo-probe binaries.
package perfscript
