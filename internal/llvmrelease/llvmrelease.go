// Package llvmrelease is the one table of facts about the LLVM releases
// rules_pgo writes profiles for: which releases are supported, which one is
// the default of every entry point, what each release's llvm-profdata writes
// by default and what its readers (clang and llvm-profdata) accept.
//
// The Go packages read this table; the Bazel rules read
// rules/llvm_releases.bzl, generated from it by `go generate
// ./internal/llvmrelease` (gen/main.go). A test in gen fails while the
// checked-in file differs from what the generator writes.
//
// Release (release.go) is a release number; what a release does
// differently is one of its methods, named after the LLVM fact
// (r.MemProfFrameID17Bytes(), r.HasVTableTypeProfiles(),
// r.MemProfRawVersions()), so no other package compares a release with a
// number (internal/release_test.go enforces it). The zero Release means
// Default (Release.OrDefault).
//
// Adding a release means adding a row here, regenerating, checking each
// fact of release.go against it, and teaching the format packages its new
// behaviour through new facts.
package llvmrelease

//go:generate go run ./gen -o ../../rules/llvm_releases.bzl

import (
	"fmt"
	"strings"
)

// Default is the release written for when none is given, by every entry
// point: merge --llvm-version, merge show --llvm-version,
// memprof.ConvertOptions{} and the Bazel toolchains
// (rules_pgo_register_toolchains, the pgo module extension,
// rules_pgo_register_cc_toolchain's clang-N).
//
// It is the newest supported release, as the LLVM tools one installs
// today: `merge` without --llvm-version writes what llvm-profdata-22
// writes (index version 13, MemProf V3), `profgen` what llvm-profgen-22
// writes. clang 19 cannot read index version 13: --llvm-version 19 writes
// index version 12 with MemProf V0, which clang 22 no longer reads; a
// MemProf profile for both is --llvm-version 19 --memprof-version 3.
const Default = 22

// MemoryProfileUseSince is the first clang release with
// -fmemory-profile-use; older ones read MemProf records through
// -fprofile-use.
const MemoryProfileUseSince = 18

// Facts holds the format versions of one supported LLVM release.
type Facts struct {
	Major int
	// IndexVersion and MemProfVersion are what the release's
	// llvm-profdata merge writes without --memprof-version.
	IndexVersion, MemProfVersion int
	// The index and MemProf versions the release reads (and its
	// llvm-profdata can be asked to write).
	MinIndexVersion, MaxIndexVersion     int
	MinMemProfVersion, MaxMemProfVersion int
	// FullSchemaFlag: llvm-profdata merge has --memprof-full-schema.
	FullSchemaFlag bool
}

// releases is the table, in increasing Major order.
var releases = []Facts{
	{Major: 16, IndexVersion: 9, MemProfVersion: 0,
		MinIndexVersion: 9, MaxIndexVersion: 9, MinMemProfVersion: 0, MaxMemProfVersion: 0},
	{Major: 19, IndexVersion: 12, MemProfVersion: 0,
		MinIndexVersion: 9, MaxIndexVersion: 12, MinMemProfVersion: 0, MaxMemProfVersion: 3, FullSchemaFlag: true},
	{Major: 22, IndexVersion: 13, MemProfVersion: 3,
		MinIndexVersion: 9, MaxIndexVersion: 13, MinMemProfVersion: 2, MaxMemProfVersion: 4, FullSchemaFlag: true},
}

// All returns the supported releases, oldest first.
func All() []Facts { return append([]Facts(nil), releases...) }

// Majors returns the supported release numbers, oldest first.
func Majors() []int {
	m := make([]int, len(releases))
	for i, r := range releases {
		m[i] = r.Major
	}
	return m
}

// Lookup returns the facts of a supported release.
func Lookup(major Release) (Facts, bool) {
	for _, r := range releases {
		if Release(r.Major) == major {
			return r, true
		}
	}
	return Facts{}, false
}

// SupportedText lists the supported releases for messages: "16, 19 or 22".
func SupportedText() string {
	s := make([]string, len(releases))
	for i, r := range releases {
		s[i] = fmt.Sprint(r.Major)
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// ErrUnsupported is the error for a release not in the table; what names
// the package or flag reporting it.
func ErrUnsupported(what string, major Release) error {
	return fmt.Errorf("%s: unsupported LLVM release %d (want %s)", what, major, SupportedText())
}

// Reads reports whether the release's clang and llvm-profdata read a file
// with these index and MemProf versions.
func (r Facts) Reads(indexVersion, memProfVersion int) bool {
	return r.MinIndexVersion <= indexVersion && indexVersion <= r.MaxIndexVersion &&
		r.MinMemProfVersion <= memProfVersion && memProfVersion <= r.MaxMemProfVersion
}

// VersionsHelp is the table of versions written and read per release, and
// what the default release's output is read by, as `merge --help` prints it.
func VersionsHelp() string {
	var b strings.Builder
	b.WriteString("Versions written by default (what that release's llvm-profdata writes):\n")
	for _, r := range releases {
		reads := fmt.Sprintf("V%d", r.MinMemProfVersion)
		if r.MaxMemProfVersion != r.MinMemProfVersion {
			reads += fmt.Sprintf("-V%d", r.MaxMemProfVersion)
		}
		fmt.Fprintf(&b, "  --llvm-version %-4d index version %-3s MemProf V%-12d (clang %d reads %s)\n",
			r.Major, fmt.Sprint(r.IndexVersion)+",", r.MemProfVersion, r.Major, reads)
	}
	def, _ := Lookup(Default)
	var readers []string
	for _, r := range releases {
		if r.Reads(def.IndexVersion, def.MemProfVersion) {
			readers = append(readers, fmt.Sprint(r.Major))
		}
	}
	fmt.Fprintf(&b, "Without --llvm-version: %d, whose output is read by clang %s only.", Default, strings.Join(readers, ", "))
	// The output read by the most releases, the default among them: a
	// writer release and a MemProf version it can write (within what it
	// reads).
	var best []string
	var bestArgs string
	for _, w := range releases {
		for v := w.MinMemProfVersion; v <= w.MaxMemProfVersion; v++ {
			var rs []string
			for _, r := range releases {
				if r.Reads(w.IndexVersion, v) {
					rs = append(rs, fmt.Sprint(r.Major))
				}
			}
			if def.Reads(w.IndexVersion, v) && len(rs) >= len(best) {
				best, bestArgs = rs, fmt.Sprintf("--llvm-version %d --memprof-version %d", w.Major, v)
			}
		}
	}
	if len(best) > len(readers) {
		fmt.Fprintf(&b, "\nOne profile for clang %s: %s.", strings.Join(best, " and "), bestArgs)
	}
	return b.String()
}
