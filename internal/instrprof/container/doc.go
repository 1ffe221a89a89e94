// Package container is the IndexedInstrProf container, below the
// sections that fill it: the writer's two-pass output (Output: a sizing
// pass that records every offset the file refers to, then a writing pass
// that fills a buffer or streams, by position when given an EmptyFile),
// LLVM's OnDiskChainedHashTables written (Table, laid out by
// internal/ondiskhash) and read back (ReadTable, TableHeader).
//
// internal/instrprof writes the file's header, summary and function
// records with it; internal/instrprof/memprofidx writes and reads the
// MemProf section. It knows neither (internal/layering_test.go). Its
// errors keep the "instrprof:" prefix of the readers and writers they
// surface through.
package container
