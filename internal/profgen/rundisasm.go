package profgen

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"github.com/rules-pgo/rules_pgo/internal/perfscript"
	"github.com/rules-pgo/rules_pgo/internal/profbinary"
	"github.com/rules-pgo/rules_pgo/internal/pseudoprobe"
	"github.com/rules-pgo/rules_pgo/internal/symbolizer"
)

// showProbes opens the binary's pseudo probes for --show-pseudo-probe and
// --show-disassembly-only: every function's, with the symbol table's
// start addresses (llvm-profgen's decodePseudoProbe in that mode); nil
// without probe sections or with --use-dwarf-correlation.
func showProbes(c *Options, pb *profbinary.Binary) (*pseudoprobe.Probes, error) {
	if c.UseDWARFCorrelation {
		return nil, nil
	}
	return pb.Probes(pseudoprobe.Options{FuncStartAddrs: pb.SymbolStarts()})
}

// printProbeDescs prints the probe descriptors for --show-pseudo-probe
// when a profile is generated (llvm-profgen prints them as it decodes the
// probes).
func printProbeDescs(c *Options, bin *perfscript.Binary, w io.Writer) error {
	if !c.ShowPseudoProbe || !bin.PseudoProbes {
		return nil
	}
	probes, err := showProbes(c, bin.Profiled())
	if err != nil || probes == nil {
		return err
	}
	_, err = io.WriteString(w, probes.DescString())
	return err
}

// showDisassembly prints what llvm-profgen --show-disassembly-only prints:
// the symbols of --disassemble-functions only (all without it), their
// names canonical with --show-canonical-fname; with --show-pseudo-probe the probe descriptors first and each
// instruction's probes before it, with --show-source-locations its
// inline frames after it (appendSourceLocation). The instruction text is
// golang.org/x/arch's AT&T syntax, not LLVM's printer's (addresses,
// symbols, sections and probes are the same). The warnings of loading the
// binary (undecodable bytes, functions without an entry) go to c.Warn, as
// llvm-profgen prints them while it disassembles.
func showDisassembly(c *Options) error {
	w := c.Stdout
	bin, err := loadBinary(c, c.Warn)
	if err != nil {
		return err
	}
	pb := bin.Profiled()
	defer pb.Close()
	// llvm-profgen's disassembler reports no warnings of the DWARF.
	c.heldWarnings = nil
	var probes *pseudoprobe.Probes
	if c.ShowPseudoProbe {
		if probes, err = showProbes(c, pb); err != nil {
			return err
		}
	}
	var dwarf *elfsym.Binary
	if c.ShowSourceLocations {
		dwarf = pb.Symbolizer()
	}
	bw := bufio.NewWriter(w)
	if probes != nil {
		bw.WriteString(probes.DescString())
	}
	syms, err := pb.SectionSymbols()
	if err != nil {
		return fmt.Errorf("%s: reading the symbol table: %v", c.Binary, err)
	}
	fmt.Fprintf(bw, "\nDisassembly of %s:\n", c.Binary)
	var line []byte
	for i, sec := range pb.Sections() {
		if !sec.Exec || !sec.ProgBits || sec.Size == 0 {
			continue
		}
		fmt.Fprintf(bw, "\nDisassembly of section %s [0x%x, 0x%x]:\n\n", sec.Name, sec.Addr, sec.Addr+sec.Size)
		if sec.Name == ".plt" {
			continue
		}
		data, err := sec.Data()
		if err != nil {
			return fmt.Errorf("%s: section %s: %v", c.Binary, sec.Name, err)
		}
		list := syms[i]
		for j, sym := range list {
			end := sec.Addr + sec.Size
			if j+1 < len(list) {
				end = list[j+1].Addr
			}
			name := sym.Name
			if c.ShowCanonicalName {
				name = llvmname.Canonical(name)
			}
			if len(c.DisassembleFunctions) > 0 && !slices.Contains(c.DisassembleFunctions, name) {
				continue
			}
			fmt.Fprintf(bw, "<%s>:\n", name)
			for pc := sym.Addr; pc < end && pc >= sec.Addr && pc-sec.Addr < uint64(len(data)); {
				if probes != nil {
					for _, q := range probes.At(pc) {
						line = append(line[:0], " [Probe]:\t"...)
						line = probes.AppendProbe(line, q)
						line = append(line, '\n')
						bw.Write(line)
					}
				}
				// From the section's rest, as llvm-profgen decodes: the
				// last instruction of a symbol may run into the next one.
				text, size := symbolizer.DecodeInst(data[pc-sec.Addr:], pc)
				line = fmt.Appendf(line[:0], "%8x:%s", pc, text)
				if dwarf != nil {
					for n := len(text); n < SourceLocColumn; n++ {
						line = append(line, ' ')
					}
					if line, err = appendSourceLocation(line, dwarf, pc, c.ShowCanonicalName, c.ShowPseudoProbe); err != nil {
						return err
					}
				}
				line = append(line, '\n')
				bw.Write(line)
				pc += uint64(size)
			}
			bw.WriteString("\n")
		}
	}
	return bw.Flush()
}

// SourceLocColumn is where --show-source-locations starts the location:
// llvm-profgen pads the instruction text to 40 columns (none when longer).
const SourceLocColumn = 40

// appendSourceLocation appends what llvm-profgen --show-source-locations
// prints after an instruction: its inline frames, innermost first, as
// "name:offset[.discriminator]" joined by " @ " (getReversedLocWithContext
// of ProfiledBinary::symbolize): DWARF linkage names, the line as an
// offset from the function's first line (16 bits) and the raw
// discriminator, or with probes (--show-pseudo-probe) the probe index
// the discriminator encodes and no discriminator. The frames kept are the
// outer ones up to the first without a name (llvm-profgen's symbolizer
// reads DWARF only). With canonical (--show-canonical-fname) the names
// lose their .llvm. and .part. suffixes.
func appendSourceLocation(b []byte, sym *elfsym.Binary, addr uint64, canonical, probes bool) ([]byte, error) {
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
		if probes {
			line, disc = probeIndex(disc), 0
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
