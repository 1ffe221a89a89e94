// Package mutation holds the mutation test of every reader: small real
// inputs (testdata/gen.sh: sample profiles in text, binary, extbinary and
// compressed extbinary, a .profraw, an indexed .profdata, a raw MemProf
// profile, a perf script LBR trace, an ELF with DWARF), all written by the
// LLVM 22 tools, are truncated, have bytes flipped and have length or count
// fields made oversized; each mutant goes through our tool and through the
// LLVM tool of the same job (llvm-profdata-22 merge, llvm-profgen-22,
// llvm-symbolizer-22), and the two outcomes (accept or reject; for profgen
// whether a profile is written; for symbolize which answers name a
// function or a line) are compared. A crash counts as a rejection: an LLVM
// tool that reads past its buffer crashes or fails depending on what lies
// there (the big set has 80 such mutants that ours rejects with a located
// error; they are not divergences).
//
// Every mutant on which they differ is listed, with the reason, in
// testdata/divergences/<reader>.tsv. A reason reads "Tag: why"; the tag
// names the decision (LLVMCrashes, LLVMTruncatesLineOffset,
// PendingHCompress, ...) and the subtest each listed mutant runs in. The
// test fails on a divergence that is not listed, on a listed one that no
// longer diverges (or diverges differently), on a row without a reason or
// naming no mutant, and on any panic, hang or crash of ours. Each reader
// also pins a few mutants by id, always run: those behind a fix (LLVM
// matched) or a decision. A mutant is named by its kind, its offset and its argument
// (trunc@0x40, flip@0x1a:5a, u64@0x18:max, uleb@0x31, num@0x2c:u64),
// and the fixtures are built so that their bytes do not depend on where
// they are built: a name means the same mutant on every machine.
//
//	go test ./internal/mutation                 the CI set (264 mutants, ~15 s of CPU)
//	go test ./internal/mutation -big            every structural mutant and more random ones
//	                                            (3,811 mutants, minutes)
//	go test ./internal/mutation -update         rewrite the tables: rows of
//	                                            mutants that no longer diverge are dropped,
//	                                            new ones are added with an empty reason,
//	                                            which the test refuses until one is written
//
// The test builds the three tools with `go build` once and runs them and
// the LLVM tools one mutant at a time (never two tools at once).
package mutation
