package perfscript

// MMapEventOf parses line as llvm-profgen's extractMMapEventForBinary
// does: it reports the event when line is a PERF_RECORD_MMAP or
// PERF_RECORD_MMAP2 event (anywhere in the line, after perf's sample
// fields if any) whose file name is the binary's.
func (b *Binary) MMapEventOf(line []byte) (MMapEvent, bool) {
	if !isMMapEvent(line) {
		return MMapEvent{}, false
	}
	e, ok := parseMMap(line)
	if !ok || fileName(e.Path) != b.Name {
		return MMapEvent{}, false
	}
	return e, true
}
