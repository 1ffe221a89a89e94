// Package perfdata reads perf.data, the file `perf record` writes: the file
// header, the event attributes (sample_type, branch_sample_type,
// read_format, sample_id_all) and their ids, the build-id feature section,
// and the data section's records, streamed one at a time: SAMPLE (with its
// callchain, PERF_CONTEXT_* markers included, and its branch stack with
// hw_idx), MMAP, MMAP2 (inode or build-id form), COMM, FORK, EXIT, LOST,
// THROTTLE, UNTHROTTLE and FINISHED_ROUND; every other record is returned
// as its type and bytes, skipped by its header's size as perf skips it.
// Pipe mode (`perf record -o -`: the attributes arrive as
// PERF_RECORD_HEADER_ATTR records) and compressed records (`perf record
// -z`: PERF_RECORD_COMPRESSED, zstd) are read too.
//
// Reader.Next returns the records in file order, which is not time order:
// perf record writes each CPU's ring buffer in turn. Ordered returns them
// as perf script and perf report deliver them (sorted by time, round by
// round), which is the order llvm-profgen sees in perf script's text.
//
// The reference is Linux's tools/perf/Documentation/perf.data-file-format.txt
// and perf's util/header.c and util/session.c for what the documentation
// leaves out (the compressed stream that carries records across
// PERF_RECORD_COMPRESSED boundaries, the size of an attribute that an older
// perf wrote). The tests compare every sample's ip, pid, tid, time, period
// and callchain with `perf script` on files this machine's perf recorded.
//
// It is written by hand because no Go library reads perf.data: the Go
// profilers read pprof, and the perf readers that exist (perf itself,
// Google's quipper in C++, simpleperf) are not Go.
//
// Decoding follows the format-package convention (internal/decode): every
// error is a *decode.Error naming the file, the record and its byte offset
// (for a record inside a compressed one: the compressed record's offset and
// the offset within its decompressed data); no allocation is sized by a
// number the file states before the bytes behind it have arrived, and
// memory stays bounded by the largest record (64 KiB) and one
// decompressed chunk, whatever the file's size. Records are returned as
// slices of the read buffer (no second copy). The file is read, not
// mapped (internal/mapfile): on the VM the benches run on, the first
// touch of each mapped page-cache page costs about three times read()'s
// copy of it (this reader alone, the two passes profgen can make over a
// 906 MB perf.data: 1.51–1.79 s of CPU mapped, 0.54–0.69 s read, 7
// pairs), a cost per page that no size threshold avoids. Only
// little-endian files (x86-64, AArch64) are read; a byte-swapped magic is
// an error that says so.
package perfdata
