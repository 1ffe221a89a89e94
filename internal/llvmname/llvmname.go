// Package llvmname owns LLVM's facts about function names that every
// profile format and trace reader shares:
//
//   - GUID, the one implementation of LLVM's 64-bit MD5 hash of a name
//     (MD5Hash, Function::getGUID, IndexedInstrProf::ComputeHash): what
//     MemProf frames, sample-profile MD5 name tables, instrumentation
//     NameRefs and pseudo-probe descriptors identify functions by;
//   - Canonical and CanonicalForRelease, the canonical function names
//     (FunctionSamples::getCanonicalFnName) as each supported LLVM release
//     computes them before hashing.
//
// It imports no project package, so a format package (memprof,
// sampleprof, instrprof) and a trace reader (perfscript, pseudoprobe) can
// share these facts without importing one another.
package llvmname

import (
	"crypto/md5"
	"encoding/binary"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"strings"
)

// GUID is LLVM's MD5Hash of name, which Function::getGUID and
// IndexedInstrProf::ComputeHash return: the first 8 bytes of MD5(name) read
// as a little-endian integer. Pass the canonical name (Canonical) to get
// what MemProf records and pseudo-probe descriptors use.
func GUID(name string) uint64 {
	if len(name) > 4096 {
		// A long name is hashed through a small buffer, not copied whole.
		h := md5.New()
		var buf [4096]byte
		for len(name) > 0 {
			n := copy(buf[:], name)
			h.Write(buf[:n])
			name = name[n:]
		}
		return binary.LittleEndian.Uint64(h.Sum(nil)[:8])
	}
	sum := md5.Sum([]byte(name))
	return binary.LittleEndian.Uint64(sum[:8])
}

// Canonical is FunctionSamples::getCanonicalFnName(name, "selected"),
// which llvm-profgen applies to symbol names and MemProf to linkage names
// before hashing them (LLVM 17+): for the suffixes ".llvm." and ".part."
// in that order, the last occurrence is cut off when no '.' follows it.
// ".__uniq." suffixes are kept (HasUniqSuffix defaults to true), and so is
// ".cold".
func Canonical(name string) string {
	for _, suffix := range []string{".llvm.", ".part."} {
		i := strings.LastIndex(name, suffix)
		if i < 0 {
			continue
		}
		if strings.LastIndexByte(name, '.') == i+len(suffix)-1 {
			name = name[:i]
		}
	}
	return name
}

// CanonicalForRelease returns the name the LLVM release hashes for
// a symbolized linkage name in a MemProf frame. LLVM 16's
// IndexedMemProfRecord::getGUID cut the name at the first ".llvm." and
// nothing else; later releases use Canonical.
func CanonicalForRelease(name string, release llvmrelease.Release) string {
	if !release.CanonicalMemProfNames() {
		if i := strings.Index(name, ".llvm."); i >= 0 {
			return name[:i]
		}
		return name
	}
	return Canonical(name)
}
