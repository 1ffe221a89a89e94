package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"regexp"
	"strings"
)

// A trace recorded with `perf record --buildid-mmap` prints the build id of
// each mapping where PERF_RECORD_MMAP2 otherwise prints the device and inode:
//
//	PERF_RECORD_MMAP2 1/1: [0x401000(0x1000) @ 0x1000 <4f2a...>]: r-xp /srv/app
//
// llvm-profgen ignores it (it matches mappings by file name only) and turns
// a trace of another build of the program into a wrong profile; profgen
// refuses it instead, naming both build ids.
var mmapBuildIDRe = regexp.MustCompile(`PERF_RECORD_MMAP2 (-?[0-9]+)/[0-9]+: \[0x[a-f0-9]+\(0x[a-f0-9]+\) @ (?:0x[a-f0-9]+|0) <([0-9a-fA-F]+)>\]: [-a-z]+ (.*)`)

// checkBuildID fails when the trace or --trace-build-id names a build id
// other than the binary's. Traces without build ids (perf record without
// --buildid-mmap, lbr-trace) pass unless --trace-build-id is given.
func checkBuildID(c *config, binID []byte) error {
	have := hex.EncodeToString(binID)
	if c.traceBuildID != "" {
		want := strings.ToLower(strings.TrimSpace(c.traceBuildID))
		if want != have {
			return fmt.Errorf("%s: the trace was recorded from the binary with build id %s (--trace-build-id), but --binary %s has build id %s: pass the binary that ran",
				c.perfscript, want, c.binary, orNone(have))
		}
	}
	f, err := os.Open(c.perfscript)
	if err != nil {
		return err
	}
	defer f.Close()
	base := path.Base(c.binary)
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 0, 64<<10), 16<<20)
	line := 0
	for s.Scan() {
		line++
		b := s.Bytes()
		if !bytes.Contains(b, []byte("PERF_RECORD_MMAP2 ")) || !bytes.Contains(b, []byte("<")) {
			continue
		}
		m := mmapBuildIDRe.FindSubmatch(b)
		if m == nil || path.Base(strings.TrimSpace(string(m[3]))) != base {
			continue
		}
		if c.pid != "" && string(m[1]) != c.pid {
			continue
		}
		if id := strings.ToLower(string(m[2])); id != have {
			return fmt.Errorf("%s: line %d: the trace maps %s with build id %s, but --binary %s has build id %s: pass the binary that ran",
				c.perfscript, line, string(m[3]), id, c.binary, orNone(have))
		}
	}
	// A read error is reported by the parser that reads the trace next.
	return nil
}

func orNone(id string) string {
	if id == "" {
		return "(none)"
	}
	return id
}
