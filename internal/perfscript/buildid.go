package perfscript

import (
	"encoding/hex"
	"errors"
	"regexp"
)

// mmapBuildIDRe finds the build id perf prints in an MMAP2 event recorded
// with --buildid-mmap (perf_event__fprintf_mmap2 with
// PERF_RECORD_MISC_MMAP_BUILD_ID): "[0xADDR(0xLEN) @ 0xPGOFF <BUILDID>]:"
// in place of the device and inode numbers.
var mmapBuildIDRe = regexp.MustCompile(`@ (?:0x[0-9a-f]+|0) <([0-9a-fA-F]+)>\]: `)

// MMapBuildID returns the build id an MMAP2 event line names, in lowercase
// hex, or "" when it names none.
func MMapBuildID(line []byte) string {
	m := mmapBuildIDRe.FindSubmatch(line)
	if m == nil {
		return ""
	}
	b, err := hex.DecodeString(string(m[1]))
	if err != nil {
		return ""
	}
	return hex.EncodeToString(b)
}

// ErrBuildIDMismatch is the error of a trace whose mmap event of the
// binary names another build id (perf record --buildid-mmap).
var ErrBuildIDMismatch = errors.New("build id mismatch")

// checkBuildID fails when the current line, an mmap event of the binary (by
// file name) for the process being read, names a build id that is not the
// binary's. llvm-profgen matches binaries by file name only and reads such
// a trace against the wrong code without a word; a profile of other code
// is worse than none, so this is an error naming both ids.
func (p *reader) checkBuildID(e MMapEvent) error {
	if p.opts.BuildID == nil || (p.opts.HasPID && e.PID != p.opts.PID) {
		return nil
	}
	id := MMapBuildID(p.s.line)
	if id == "" || id == hex.EncodeToString(p.opts.BuildID) {
		return nil
	}
	return p.errorf(ErrBuildIDMismatch, "the trace maps %s (pid %d) with build id %s, but %s has build id %s: pass the binary that was profiled",
		e.Path, e.PID, id, p.bin.Name, hex.EncodeToString(p.opts.BuildID))
}
