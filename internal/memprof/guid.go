package memprof

import (
	"crypto/md5"
	"encoding/binary"
	"strings"
)

// GUID returns LLVM's function GUID of name: the first 8 bytes of
// MD5(name) read as a little-endian integer (MD5Hash, Function::getGUID).
// Pass the canonical name (CanonicalName) to get what MemProf records use.
func GUID(name string) uint64 {
	sum := md5.Sum([]byte(name))
	return binary.LittleEndian.Uint64(sum[:8])
}

// CanonicalName is FunctionSamples::getCanonicalFnName(name, "selected"),
// which MemProf applies to linkage names before hashing them (LLVM 17+):
// for the suffixes ".llvm." and ".part." in that order, the last
// occurrence is cut off when no '.' follows it. ".__uniq." suffixes are
// kept (HasUniqSuffix defaults to true).
func CanonicalName(name string) string {
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

// canonicalNameForRelease returns the name LLVM release llvmRelease hashes
// for a symbolized linkage name. LLVM 16's IndexedMemProfRecord::getGUID
// cut the name at the first ".llvm." and nothing else.
func canonicalNameForRelease(name string, llvmRelease int) string {
	if llvmRelease < 17 {
		if i := strings.Index(name, ".llvm."); i >= 0 {
			return name[:i]
		}
		return name
	}
	return CanonicalName(name)
}

// displayNameForRelease is the SymbolName llvm-profdata keeps for a frame:
// the canonical name from LLVM 17 on, the raw linkage name in LLVM 16.
func displayNameForRelease(name string, llvmRelease int) string {
	if llvmRelease < 17 {
		return name
	}
	return CanonicalName(name)
}
