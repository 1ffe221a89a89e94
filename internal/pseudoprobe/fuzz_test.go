package pseudoprobe

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// seedSections builds a small pair of sections in memory: two descriptors,
// a function with a block probe, a call probe with a discriminator and an
// inlinee, and a second function with a sentinel and an absolute address.
func seedSections() (desc, probes []byte) {
	le := binary.LittleEndian
	for i, name := range []string{"main", "foo"} {
		desc = le.AppendUint64(desc, uint64(i+1))
		desc = le.AppendUint64(desc, uint64(100+i))
		desc = append(desc, byte(len(name)))
		desc = append(desc, name...)
	}
	probes = le.AppendUint64(probes, 1)
	probes = append(probes, 2, 1) // 2 probes, 1 inlinee
	probes = append(probes, 1, 0x80, 4)
	probes = append(probes, 2, 0x80|0x40|2, 3, 7) // call, discriminator 7
	probes = append(probes, 2)                    // inline site 2
	probes = le.AppendUint64(probes, 2)
	probes = append(probes, 1, 0, 1, 0x80, 0x7e) // delta -2
	probes = le.AppendUint64(probes, 2)
	probes = append(probes, 2, 0)
	probes = append(probes, 0, 0x20)
	probes = le.AppendUint64(probes, 1)
	probes = append(probes, 1, 0)
	probes = le.AppendUint64(probes, 0x401000)
	return desc, probes
}

func TestSeed(t *testing.T) {
	desc, probes := seedSections()
	p, err := Decode("seed", desc, probes, Options{FuncStartAddrs: map[uint64]uint64{1: 0x1000}})
	if err != nil {
		t.Fatal(err)
	}
	want := `Pseudo Probe Desc:
GUID: 1 Name: main
Hash: 100
GUID: 2 Name: foo
Hash: 101
Address:	4100
 [Probe]:	FUNC: main Index: 1  Type: Block  
Address:	4101
 [Probe]:	FUNC: foo Index: 1  Type: Block  Inlined: @ main:2
Address:	4103
 [Probe]:	FUNC: main Index: 2  Discriminator: 7  Type: DirectCall  
Address:	4198400
 [Probe]:	FUNC: foo Index: 1  Type: Block  
`
	if got := p.String(); got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
}

// FuzzDecode: any bytes decode or fail with a *decode.Error naming one of
// the two sections; what decodes prints.
func FuzzDecode(f *testing.F) {
	desc, probes := seedSections()
	f.Add(desc, probes)
	f.Add(desc[:10], probes[:20])
	f.Fuzz(func(t *testing.T, desc, probes []byte) {
		p, err := Decode("fuzz", desc, probes, Options{FuncStartAddrs: map[uint64]uint64{1: 0x1000, 2: 0x2000}})
		if err != nil {
			var de *decode.Error
			if !errors.As(err, &de) || (de.Section != DescSection && de.Section != ProbeSection) {
				t.Fatalf("error %v is not a decode.Error of a probe section", err)
			}
			return
		}
		_ = p.String()
		_ = p.Check("fuzz")
		for _, q := range p.ByAddr {
			p.InlineContext(nil, q, true)
			p.InlinerDesc(q)
			p.CallProbeAt(q.Address)
		}
	})
}
