// Package memprofidx is MemProf's indexed form, the part of an indexed
// profile's MemProf section (V0–V4) that does not depend on the file around
// it: a memprof.Profile interned into dense frame and call-stack indexes
// (Index, IndexCompact) with LLVM's FrameId and CallStackId hashes
// (FrameID), the orders llvm-profdata's maps give the frame and call-stack
// tables (FrameTableOrder, StackTableOrder, DenseOrder), the V3/V4 radix
// tree of call stacks and its frame array (RadixFrameOrder, BuildRadix),
// MIBs serialized in a schema (MIBWriter, HotColdSchema) and the V4
// summary (Summary).
//
// internal/instrprof lays these out in the indexed file (memprof_write.go)
// and reads them back (memprof_read.go); this package knows neither the
// file's container (header, profile summary, OnDisk hash tables, output)
// nor its function records, and imports no part of internal/instrprof
// (internal/layering_test.go). Its errors keep the "instrprof:" prefix of
// the writer they surface through.
package memprofidx
