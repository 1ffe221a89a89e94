// Package memprofidx is MemProf's indexed form, the part of an indexed
// profile's MemProf section (V0–V4) that does not depend on the file around
// it: a memprof.Compact (or a Profile, interned by memprof.Intern) numbered
// by FrameId into dense frame and call-stack indexes (IndexCompact, Index) with LLVM's FrameId and CallStackId hashes
// (FrameID), the orders llvm-profdata's maps give the frame and call-stack
// tables (FrameTableOrder, StackTableOrder, DenseOrder), the V3/V4 radix
// tree of call stacks and its frame array (RadixFrameOrder, BuildRadix),
// MIBs serialized in a schema (MIBWriter, HotColdSchema) and the V4
// summary (Summary), and the section itself: laid out and written
// (NewSection, Section.Emit: section.go) and read back (ReadSection:
// section_read.go) in the terms of internal/instrprof/container (output,
// OnDisk hash tables). internal/instrprof places the section in the file;
// this package knows neither the file's header nor its function records,
// and imports no part of internal/instrprof but the container
// (internal/layering_test.go). Its errors keep the "instrprof:" prefix of
// the writer and reader they surface through.
package memprofidx
