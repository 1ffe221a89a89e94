package main

import (
	"errors"
	"strconv"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"github.com/rules-pgo/rules_pgo/internal/profgen"
)

// sourceLocColumn is where --show-source-locations starts the location:
// llvm-profgen pads the instruction text to 40 columns (none when longer).
const sourceLocColumn = 40

// appendSourceLocation appends what llvm-profgen --show-source-locations
// prints after an instruction: its inline frames, innermost first, as
// "name:offset[.discriminator]" joined by " @ " (getReversedLocWithContext
// of ProfiledBinary::symbolize): DWARF linkage names, the line as an
// offset from the function's first line (16 bits) and the raw
// discriminator, or with probeIndex (--show-pseudo-probe) the probe index
// the discriminator encodes and no discriminator. The frames kept are the
// outer ones up to the first without a name (llvm-profgen's symbolizer
// reads DWARF only). With canonical (--show-canonical-fname) the names
// lose their .llvm. and .part. suffixes.
func appendSourceLocation(b []byte, sym *elfsym.Binary, addr uint64, canonical, probeIndex bool) ([]byte, error) {
	frames, err := sym.Symbolize(addr)
	if err != nil && !errors.Is(err, elfsym.ErrUnknownPC) {
		return b, err
	}
	inner := len(frames) // the innermost frame kept
	for inner > 0 && frames[inner-1].LinkageName != "" && frames[inner-1].LinkageName != "<invalid>" {
		inner--
	}
	for i := inner; i < len(frames); i++ {
		f := &frames[i]
		if i > inner {
			b = append(b, " @ "...)
		}
		line, disc := (f.Line-f.StartLine)&0xffff, f.Discriminator
		if probeIndex {
			line, disc = profgen.ProbeIndex(disc), 0
		}
		if canonical {
			b = append(b, llvmname.Canonical(f.LinkageName)...)
		} else {
			b = append(b, f.LinkageName...)
		}
		b = append(b, ':')
		b = strconv.AppendUint(b, uint64(line), 10)
		if disc > 0 {
			b = append(b, '.')
			b = strconv.AppendUint(b, uint64(disc), 10)
		}
	}
	return b, nil
}
