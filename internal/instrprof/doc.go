// Package instrprof reads and writes LLVM's indexed profile container
// (IndexedInstrProf, the ".profdata" file llvm-profdata writes) with a MemProf
// section in any of the on-disk versions V0–V4, and the YAML MemProf text form
// of LLVM 20+.
//
// Only memprof-only files are written: an empty instrumentation function
// table, an all-zero profile summary, the MemProf section, an empty binary-id
// section and (index version 12+) an empty vtable-name section. The output
// is byte-identical to llvm-profdata of the selected LLVM release (16, 19 or
// 22) when the Profile's orders are those llvm-profdata would have used; see
// WriteOptions and memprof.Profile.
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
//	...        function table (OnDiskChainedHashTable; empty here)
//	...        MemProf section (MemProfOffset), see memprof_write.go
//	...        binary ids: u64 total size, then {u64 len, bytes, pad to 8}
//	...        vtable names: u64 length, bytes, pad to 8
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
