package memprof

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadRaw checks that ReadRaw never panics and that whatever it
// accepts re-encodes (writeRaw) to a file that decodes to the same profile.
func FuzzReadRaw(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(rawDir, "*.memprofraw"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add(smallRawBytes(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ReadRaw("fuzz", data)
		if err != nil {
			return
		}
		for _, v := range p.Versions {
			if v != p.Version {
				return // mixed versions: rewriting in one version drops fields
			}
		}
		checkRoundTrip(t, p)
	})
}
