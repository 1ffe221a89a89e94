// Package instrprof reads and writes LLVM's indexed profile container
// (IndexedInstrProf, the ".profdata" file llvm-profdata writes) with a MemProf
// section in any of the on-disk versions V0–V4. The YAML MemProf text form
// of LLVM 20+ is memprof's (memprof.ReadYAML, memprof.WriteYAML); File.WriteYAML
// here prints an indexed file's MemProf data in it as llvm-profdata show does.
//
// It also reads raw instrumentation profiles (.profraw, raw versions 8–10:
// raw.go), merges their function records as llvm-profdata does
// (FuncProfile: funcrecord.go, with a same-layout fast path in rawfast.go)
// and writes them as the function table and summary of an indexed file
// (funcwrite.go), alone or beside MemProf data; docs/formats/instrprof.md
// has the layouts and what was verified.
//
// MemProf's indexed form (frame and call-stack ids, the dense index, the
// V3/V4 radix tree, MIBs in a schema) and its section, laid out and read
// back, are internal/instrprof/memprofidx; the container under both (the
// writer's output, the OnDisk hash tables) is internal/instrprof/container.
// This package writes the header, summary and function records around
// them and places the MemProf section in the file.
//
// Memprof-only files have an empty instrumentation function table, an
// all-zero profile summary, the MemProf section, an empty binary-id
// section and (index version 12+) an empty vtable-name section. The output
// is byte-identical to llvm-profdata of the selected LLVM release (16, 19 or
// 22) when the Profile's orders are those llvm-profdata would have used; see
// WriteOptions and memprof.Profile. Function records are written as
// llvm-profdata merge --num-threads=1 writes them for the same inputs in
// the same order.
//
// # File layout
//
//	off  size  field (all integers little-endian)
//	0    8     Magic 0x8169666f72706cff
//	8    8     Version: low 32 bits index version (9–13), high bits variant
//	           flags; MemProf = 1<<62
//	16   8     Unused (0)
//	24   8     HashType (0 = MD5)
//	32   8     HashOffset: bucket array of the function table
//	40   8     MemProfOffset                         (index version >= 8)
//	48   8     BinaryIdOffset                        (>= 9)
//	56   8     TemporalProfTracesOffset              (>= 10)
//	64   8     VTableNamesOffset                     (>= 12)
//	...        profile summary: u64 NumSummaryFields, u64 NumCutoffEntries,
//	           fields, then {Cutoff, MinCount, NumCounts} per cutoff
//	...        CS summary, same shape (only with the CS variant bit)
//	...        function table (OnDiskChainedHashTable, funcwrite.go)
//	...        MemProf section (MemProfOffset), see memprof_write.go
//	...        binary ids: u64 total size, then {u64 len, bytes, pad to 8}
//	...        vtable names: u64 length, bytes, pad to 8
//	...        temporal traces (TemporalProfTracesOffset; temporal only)
//
// Every OnDiskChainedHashTable is "payload, zero padding to 8, u64
// NumBuckets, u64 NumEntries, NumBuckets × u64 absolute bucket offset"; a
// bucket is u16 item count then its items. The table offsets stored in
// headers point at NumBuckets.
//
// # Security
//
// Read checks every count and offset against the bytes that remain before it
// allocates or indexes, and never panics on malformed input (FuzzRead). It
// does not verify that hash-table buckets hold the keys that hash to them.
package instrprof
