package perfscript

import (
	"bytes"
	"fmt"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/stdunordered"
)

// LoadWarnings returns the warnings llvm-profgen prints while it loads the
// binary (ProfiledBinary::load), in its order and words, without
// "warning: ": no DWARF functions at all, DWARF subprograms sharing a
// start address, runs of undecodable bytes, and functions none of whose
// ranges is a function entry (their DWARF name matches no symbol at the
// range start: a stripped or renamed symbol table, or no text symbols).
func (b *Binary) LoadWarnings() []string { return b.loadWarnings(false) }

// MissingDWO is the number of split-DWARF units whose .dwo (or .dwp
// entry) was not found.
func (b *Binary) MissingDWO() int { return b.missingDWO }

// LoadWarningsDetailed is LoadWarnings with --show-detailed-warning's
// per-function lines before the summary of functions without an entry.
// llvm-profgen lists them as its std::unordered_map of functions iterates
// (libstdc++'s order of the names inserted in DWARF order).
func (b *Binary) LoadWarningsDetailed() []string { return b.loadWarnings(true) }

func (b *Binary) loadWarnings(detailed bool) []string {
	var w []string
	if b.missingDWO > 0 {
		// (llvm-profgen's message starts with a space.)
		w = append(w, fmt.Sprintf(" DWO debug information was not loaded for %d modules. Please check the .o, .dwo or .dwp path.", b.missingDWO))
	}
	if len(b.functions) == 0 {
		w = append(w, "Loading of DWARF info completed, but no binary functions have been retrieved.")
	}
	// loadSymbolsFromSymtab's, before the disassembler's.
	w = append(w, b.symtabWarnings...)
	// Every kept range went into StartAddrToFuncRangeMap; a start seen
	// again is an address with multiple symbols.
	starts := map[uint64]int{}
	for _, fn := range b.functions {
		for _, r := range fn.Ranges {
			starts[r[0]]++
		}
	}
	multi := 0
	for _, n := range starts {
		if n > 1 {
			multi++
		}
	}
	if multi > 0 {
		w = append(w, fmt.Sprintf("Found %d start addresses with multiple symbols", multi))
	}
	if b.InvalidInstructions > 0 {
		if detailed {
			for _, r := range b.invalidRuns {
				w = append(w, fmt.Sprintf("Invalid instructions at %8x - %8x", r[0], r[1]))
			}
		}
		w = append(w, fmt.Sprintf("Found %d invalid instructions", b.InvalidInstructions))
	}
	// warnNoFuncEntry: functions with ranges but no entry range, of all
	// functions (also those whose ranges were all dropped).
	noEntry := 0
	var noEntryNames []string
	order := b.functions
	if detailed {
		// BinaryFunctions' order: a std::unordered_map of the names.
		names := make([]string, len(b.functions))
		for i, fn := range b.functions {
			names[i] = fn.Name
		}
		order = make([]*Function, 0, len(names))
		for _, i := range stdunordered.StringOrder(names) {
			order = append(order, b.functions[i])
		}
	}
	for _, fn := range order {
		if len(fn.Ranges) == 0 {
			continue
		}
		entry := false
		for _, r := range fn.Ranges {
			if fr := b.FuncRangeStartingAt(r[0]); fr != nil && fr.Entry {
				entry = true
				break
			}
		}
		if !entry {
			noEntry++
			noEntryNames = append(noEntryNames, fn.Name)
		}
	}
	if detailed {
		for _, name := range noEntryNames {
			w = append(w, "Failed to determine function entry for "+name+" due to inconsistent name from symbol table and dwarf info.")
		}
	}
	if noEntry > 0 {
		w = append(w, fmt.Sprintf("%.2f%%(%d/%d) of functions failed to determine function entry due to inconsistent name from symbol table and dwarf info.",
			float64(noEntry)*100/float64(len(b.functions)), noEntry, len(b.functions)))
	}
	return w
}

// elfMagic starts every ELF file.
var elfMagic = []byte("\x7fELF")

// checkObjectHead tells a file that is not an ELF image from a damaged
// one from its first bytes, before it is parsed: llvm-profgen's "The file was not
// recognized as a valid object file", with what the file starts with.
// hint says which file to pass instead.
func checkObjectHead(path string, head []byte, hint string) error {
	if len(head) > 52 {
		head = head[:52] // the smallest ELF header (ELFCLASS32)
	}
	n := len(head)
	if n < len(elfMagic) || !bytes.Equal(head[:len(elfMagic)], elfMagic) {
		return &decode.Error{Format: "perfscript", File: path, Section: "ELF header", Offset: 0,
			Msg: fmt.Sprintf("The file was not recognized as a valid object file (it starts with %q, not an ELF header): %s", head[:min(n, 4)], hint),
			Err: decode.ErrBadMagic}
	}
	if n < 52 {
		return &decode.Error{Format: "perfscript", File: path, Section: "ELF header", Offset: int64(n),
			Msg: fmt.Sprintf("truncated: the ELF header needs at least %d bytes, the file has %d", 52, n), Err: decode.ErrTruncated}
	}
	return nil
}
