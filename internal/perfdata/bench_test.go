package perfdata_test

import "testing"

// BenchmarkSeeds reads the fuzz seeds: what one fuzz execution costs.
func BenchmarkSeeds(b *testing.B) {
	f, _ := synthetic()
	for _, m := range []struct {
		name string
		data []byte
	}{{"file", f.Bytes()}, {"pipe", f.PipeBytes()}, {"compressed", compressed(b, f).Bytes()}} {
		b.Run(m.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				readAll(m.data)
			}
		})
	}
}
