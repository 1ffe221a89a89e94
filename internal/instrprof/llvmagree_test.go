package instrprof

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// TestHashTypeReadAs32BitsAsLLVM: LLVM reads the indexed header's HashType
// as its 32-bit IndexedInstrProf::HashT, so bits set in the field's upper
// half are ignored (internal/mutation found llvm-profdata accepting such
// a file); a non-zero lower half is still an unsupported hash type.
func TestHashTypeReadAs32BitsAsLLVM(t *testing.T) {
	data := tinyIndexed(t, 22, false)
	upper := bytes.Clone(data)
	binary.LittleEndian.PutUint64(upper[24:], 0xff<<32)
	if _, err := ReadFuncs("upper.profdata", upper); err != nil {
		t.Errorf("upper half of HashType set: %v, want it read as MD5 as LLVM reads it", err)
	}
	lower := bytes.Clone(data)
	binary.LittleEndian.PutUint64(lower[24:], 1)
	if _, err := ReadFuncs("lower.profdata", lower); err == nil {
		t.Error("HashType 1 read without an error")
	}
}
