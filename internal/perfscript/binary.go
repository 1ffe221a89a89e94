package perfscript

import (
	"cmp"
	"fmt"
	"math/bits"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/densemap"
	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"github.com/rules-pgo/rules_pgo/internal/profbinary"
	"github.com/rules-pgo/rules_pgo/internal/x86inst"
)

// ExternalAddr is llvm-profgen's stand-in for every address outside the
// profiled binary's code (its SpecialFrameAddr::ExternalAddr). In the
// unsymbolized profile it is printed like any address, as an offset from
// the base (1 − 0x1000 = fffffffffffff001 for a base of 0x1000).
const ExternalAddr = 1

// pageSize is llvm-profgen's hard-coded page size for segment alignment.
const pageSize = 0x1000

// Binary is what llvm-profgen's ProfiledBinary knows about the profiled
// executable before symbolization: its executable segments, the start of
// every instruction of its text sections (disassembled symbol by symbol,
// as llvm-profgen does), which of them are calls, returns and branches,
// and the function ranges of its DWARF.
type Binary struct {
	// pb is the profiled binary, opened once, everything is read from.
	pb *profbinary.Binary
	// Name is the file name of the binary (llvm-profgen matches mmap
	// events against it, ignoring directories).
	Name string
	// PreferredTextSegmentAddresses and TextSegmentOffsets are the
	// page-aligned p_vaddr and p_offset of each executable PT_LOAD.
	PreferredTextSegmentAddresses []uint64
	TextSegmentOffsets            []uint64
	// FirstLoadableAddress is the page-aligned p_vaddr of the first PT_LOAD
	// whose address is not 0 (llvm-profgen's).
	FirstLoadableAddress uint64

	// code holds the sorted instruction start addresses; kind the class
	// of each (parallel to code).
	code []uint64
	kind []instKind
	size []uint8 // instruction lengths (parallel to code)
	// codeBits has a bit per byte address from codeLo: set at instruction
	// starts (IsCode without a search).
	codeBits []uint64
	codeLo   uint64
	// rank[w] counts the instructions below word w of codeBits, so that
	// an address's index in code is found without a search (lowerBound).
	rank []uint32
	// nextUncond[i] is the address of the first call, return or direct
	// unconditional jump (llvm-profgen's UncondBranchAddrSet) at or after
	// instruction i, ^0 if none; len(code)+1 entries.
	nextUncond []uint64
	// funcs are the DWARF function ranges sorted by start; a start address
	// appears once (the first DIE that had it).
	funcs []FuncRange
	// functions are llvm-profgen's BinaryFunctions: every range of every
	// DWARF subprogram, grouped by name.
	functions []*Function
	// prologEpilog is llvm-profgen's PrologEpilogTracker set: the first two
	// instructions of each function range and each return with the
	// instruction before it.
	prologEpilog map[uint64]bool
	// InvalidInstructions counts the runs of undecodable bytes (llvm-profgen
	// warns "Found N invalid instructions").
	InvalidInstructions int
	// invalidRuns are those runs, first and last byte, in address order
	// (llvm-profgen's AddrsWithInvalidInstruction, a set).
	invalidRuns [][2]uint64
	// symtabWarnings are RecoverSymbolTableFunctions' conflicting-range
	// warnings, in symbol-table order.
	symtabWarnings []string
	// missingDWO counts the skeleton units whose split unit was not found.
	missingDWO int
	// byName and rangeStarts index the functions while they are loaded.
	byName      map[string]*Function
	rangeStarts map[uint64]bool
	// FSDiscriminator is set when a data section defines
	// __llvm_fs_discriminator__ (llvm-profgen's checkUseFSDiscriminator).
	FSDiscriminator bool
	// PseudoProbes is set when the binary has .pseudo_probe_desc and
	// .pseudo_probe sections (llvm-profgen then correlates with probes).
	PseudoProbes bool
}

// FuncRange is one address range [Start, End) of a DWARF subprogram.
type FuncRange struct {
	Start, End uint64
	Name       string
	// Func is the function the range belongs to.
	Func *Function
	// Entry is llvm-profgen's IsFuncEntry: the function has one range, or
	// a symbol inside the range has the function's name (canonicalized).
	Entry bool
}

// Function is llvm-profgen's BinaryFunction: all ranges [lo, hi) of the
// DWARF subprograms of one name (also those whose start another
// subprogram's range already had).
type Function struct {
	Name   string
	Ranges [][2]uint64
	// Recovered: the function has no DWARF subprogram and was recovered
	// from the ELF symbol table (RecoverSymbolTableFunctions).
	Recovered bool
	// NameMismatch: a sized function symbol in one of its ranges has
	// another name than its DWARF one (llvm-profgen-22's
	// DwarfNameStatus::Mismatch, by RecoverSymbolTableFunctions): its
	// ranges count as recovered from the symbol table too.
	NameMismatch bool
}

// RecoverSymbolTableFunctions adds, as llvm-profgen-22 does for binaries
// with pseudo probes, a function for every sized STT_FUNC symbol of an
// executable section that no DWARF subprogram covers (crt's _start, code
// built without -g): its range [value, value+size) is a function entry,
// so ranges in it count as "recovered from symbol table" instead of
// belonging to no function, and calls to it name it as their target. A
// DWARF function with such a symbol of another name anywhere in its
// ranges (an alias, a renamed or broken name) is marked NameMismatch; one
// of its own name (up to a .llvm., .part. or .cold suffix) that starts
// inside its range is warned about ("Conflicting range", LoadWarnings).
// LLVM 19 does not.
func (b *Binary) RecoverSymbolTableFunctions() error {
	secs := b.pb.Sections()
	syms, err := b.pb.Symbols()
	if err != nil {
		return err
	}
	var added []FuncRange
	for _, s := range syms {
		if !s.Func || s.Size == 0 || s.Section < 0 || !secs[s.Section].Exec || s.Value < b.PreferredBase() {
			continue
		}
		if fr := b.findFuncRange(s.Value); fr != nil {
			if fr.Func == nil || fr.Func.Recovered {
				continue
			}
			if canonicalSymbolName(s.Name) != fr.Func.Name {
				fr.Func.NameMismatch = true
			} else if fr.Start != s.Value {
				b.symtabWarnings = append(b.symtabWarnings, fmt.Sprintf("Conflicting range for symbol %s with range (%8x, %8x), but the DWARF symbol %s indicates another range (%8x, %8x)",
					s.Name, s.Value, s.Value+s.Size, fr.Func.Name, fr.Start, fr.End))
			}
			continue
		}
		if slices.ContainsFunc(added, func(r FuncRange) bool { return r.Start == s.Value }) {
			continue
		}
		fn := &Function{Name: s.Name, Ranges: [][2]uint64{{s.Value, s.Value + s.Size}}, Recovered: true}
		b.functions = append(b.functions, fn)
		added = append(added, FuncRange{Start: s.Value, End: s.Value + s.Size, Name: s.Name, Func: fn, Entry: true})
	}
	b.funcs = append(b.funcs, added...)
	sort.Slice(b.funcs, func(i, j int) bool { return b.funcs[i].Start < b.funcs[j].Start })
	// Their entries are prologs too: samples whose leaf is there are
	// dropped as for any function.
	b.inferPrologEpilog()
	return nil
}

type instKind uint8

const (
	instOther instKind = iota
	instCall
	instReturn
	instCondBranch   // conditional or indirect branch: a branch, not a barrier
	instUncondBranch // direct unconditional jump
)

// PreferredBase is the preferred load address of the first executable
// segment: the origin of the offsets in the unsymbolized profile.
func (b *Binary) PreferredBase() uint64 { return b.PreferredTextSegmentAddresses[0] }

// IsCode reports whether addr is the start of an instruction of the text
// (llvm-profgen's addressIsCode).
func (b *Binary) IsCode(addr uint64) bool {
	i := addr - b.codeLo
	return i>>6 < uint64(len(b.codeBits)) && b.codeBits[i>>6]&(1<<(i&63)) != 0
}

func (b *Binary) kindOf(addr uint64) (instKind, bool) {
	if !b.IsCode(addr) {
		return 0, false
	}
	return b.kind[b.lowerBound(addr)], true
}

// lowerBound is the index of the first instruction at or above addr
// (slices.BinarySearch(b.code, addr), by rank).
func (b *Binary) lowerBound(addr uint64) int {
	if addr <= b.codeLo || len(b.code) == 0 {
		return 0
	}
	i := addr - b.codeLo
	w := i >> 6
	if w >= uint64(len(b.codeBits)) {
		return len(b.code)
	}
	return int(b.rank[w]) + bits.OnesCount64(b.codeBits[w]&(1<<(i&63)-1))
}

// isTransfer is llvm-profgen's addressIsTransfer: a branch, call or return.
func (b *Binary) isTransfer(addr uint64) bool {
	k, ok := b.kindOf(addr)
	return ok && k != instOther
}

// rangeCrossUncondBranch reports whether a call, return or direct jump lies
// in [start, end).
func (b *Binary) rangeCrossUncondBranch(start, end uint64) bool {
	if start >= end {
		return false
	}
	return b.nextUncond[b.lowerBound(start)] < end
}

// validFallThrough is llvm-profgen's isValidFallThroughRange.
func (b *Binary) validFallThrough(start, end uint64) bool {
	return start <= end && !b.rangeCrossUncondBranch(start, end)
}

// callAddrFromFrameAddr turns a return address into the address of the
// call before it, or 0 when the instruction before it is not a call.
func (b *Binary) callAddrFromFrameAddr(addr uint64) uint64 {
	if addr == ExternalAddr {
		return ExternalAddr
	}
	i := b.lowerBound(addr)
	if i == 0 {
		return 0
	}
	if prev := b.code[i-1]; prev != 0 && b.kind[i-1] == instCall {
		return prev
	}
	return 0
}

// findFuncRange returns the function range containing addr.
func (b *Binary) findFuncRange(addr uint64) *FuncRange {
	i := sort.Search(len(b.funcs), func(i int) bool { return b.funcs[i].Start > addr })
	if i == 0 {
		return nil
	}
	if r := &b.funcs[i-1]; addr < r.End {
		return r
	}
	return nil
}

// OpenBinary loads an x86-64 ELF executable as llvm-profgen does.
func OpenBinary(path string) (*Binary, error) { return OpenBinaryDWP(path, "") }

// OpenBinaryDWP is OpenBinary with the DWARF package of a split-DWARF
// binary (llvm-profgen's --dwp; "" tries <path>.dwp, then each unit's .dwo
// file, as LLVM does): the functions of its split units follow those of
// the binary's own units.
func OpenBinaryDWP(path, dwp string) (*Binary, error) {
	pb, err := OpenProfiled(path, profbinary.Options{DWP: dwp, DWARFOnly: true})
	if err != nil {
		return nil, err
	}
	return NewBinary(pb)
}

// OpenProfiled opens the profiled binary (and opts.DebugBinary) once, as
// llvm-profgen takes it: a file that does not exist or is not an ELF
// object is refused in llvm-profgen's words, naming what to pass instead.
// The functions come from the DWARF of opts.DebugBinary when given
// (--debug-binary: the unstripped twin of a stripped binary, or its
// `objcopy --only-keep-debug` file); everything else from path.
func OpenProfiled(path string, opts profbinary.Options) (*profbinary.Binary, error) {
	opts.Check = func(p string, head []byte) error {
		hint := "pass the profiled executable to --binary"
		if p != path {
			hint = "pass the unstripped executable or its --only-keep-debug file to --debug-binary"
		}
		return checkObjectHead(p, head, hint)
	}
	opts.NotExist = func(p, flag string) error {
		if flag != "" {
			_, err := os.Stat(p)
			return fmt.Errorf("%s: %w", flag, err)
		}
		return fmt.Errorf("Input binary(%s) doesn't exist.", p)
	}
	return profbinary.Open(path, opts)
}

// NewBinary loads the profiled binary pb as llvm-profgen's ProfiledBinary
// does: the executable segments, the functions of its DWARF (its debug
// file's), the instructions of its text.
func NewBinary(pb *profbinary.Binary) (*Binary, error) {
	path := pb.Path()
	bad := func(section string, format string, args ...any) error {
		return &decode.Error{Format: "perfscript", File: path, Section: section, Msg: fmt.Sprintf(format, args...), Err: decode.ErrMalformed}
	}
	if !pb.X86_64() {
		return nil, bad("ELF header", "machine %v: only x86-64 is supported", pb.Machine())
	}
	b := &Binary{Name: fileName(path), pb: pb}
	for _, p := range pb.LoadSegments() {
		if b.FirstLoadableAddress == 0 {
			// llvm-profgen tests the address, not whether it was set:
			// a PIE's first PT_LOAD at 0 leaves it to the next one.
			b.FirstLoadableAddress = p.Vaddr &^ (pageSize - 1)
		}
		if p.Exec {
			b.PreferredTextSegmentAddresses = append(b.PreferredTextSegmentAddresses, p.Vaddr&^(pageSize-1))
			b.TextSegmentOffsets = append(b.TextSegmentOffsets, p.Off&^(pageSize-1))
		}
	}
	if len(b.PreferredTextSegmentAddresses) == 0 {
		return nil, bad("program headers", "no executable segment found")
	}
	// The functions of the debug file's own units, then of its split
	// units (loadSymbolsFromDWARFUnit, in DIE order), dropping empty
	// ranges and ranges below the preferred base. They are read from the
	// DWARF on another goroutine while the text is decoded, which needs
	// them only at the end (function entries).
	var subs []elfsym.Subprogram
	var missing int
	loaded := make(chan struct{})
	go func() {
		defer close(loaded)
		subs, missing = pb.Functions()
	}()
	waited := false
	functions := func() {
		if waited {
			return
		}
		waited = true
		<-loaded
		for _, s := range subs {
			b.addFunction(s.Name, s.Ranges)
		}
		b.missingDWO = missing
		sort.Slice(b.funcs, func(i, j int) bool { return b.funcs[i].Start < b.funcs[j].Start })
	}
	err := b.disassemble(functions)
	functions()
	if err != nil {
		return nil, bad(".text", "%v", err)
	}
	b.inferPrologEpilog()
	b.PseudoProbes = pb.HasProbes()
	return b, nil
}

// Profiled returns the profiled binary the Binary was loaded from.
func (b *Binary) Profiled() *profbinary.Binary { return b.pb }

// addFunction adds a subprogram's ranges to the function of its name
// (loadSymbolsFromDWARFUnit): empty ranges and ranges below the preferred
// base are dropped, a start address already seen gets no second range.
func (b *Binary) addFunction(name string, ranges [][2]uint64) {
	if len(ranges) == 0 {
		return
	}
	if b.byName == nil {
		b.byName, b.rangeStarts = map[string]*Function{}, map[uint64]bool{}
	}
	fn := b.byName[name]
	if fn == nil {
		fn = &Function{Name: name}
		b.byName[name] = fn
		b.functions = append(b.functions, fn)
	}
	for _, rg := range ranges {
		if rg[1] <= rg[0] || rg[0] < b.PreferredBase() {
			continue
		}
		fn.Ranges = append(fn.Ranges, [2]uint64{rg[0], rg[1]})
		if b.rangeStarts[rg[0]] {
			continue
		}
		b.rangeStarts[rg[0]] = true
		b.funcs = append(b.funcs, FuncRange{Start: rg[0], End: rg[1], Name: name, Func: fn})
	}
}

// disassemble decodes every text section but .plt symbol by symbol: from
// each .symtab symbol of the section (sorted by address) to the next one,
// as ProfiledBinary::dissassembleSymbol does. Bytes before the first
// symbol are not decoded.
//
// functions loads the DWARF functions; it is called before the symbols
// mark function entries (setFuncEntry), after the decoding.
func (b *Binary) disassemble(functions func()) error {
	secs := b.pb.Sections()
	syms, err := b.pb.Symbols()
	if err != nil {
		return err
	}
	bySection := map[int][]uint64{}
	var entries []int // indexes into syms of the symbols of text sections
	for i, s := range syms {
		if s.Section < 0 {
			continue
		}
		bySection[s.Section] = append(bySection[s.Section], s.Value)
		sec := secs[s.Section]
		switch {
		case sec.Exec && sec.Size != 0 && !sec.NoBits:
			entries = append(entries, i)
		case s.Name == "__llvm_fs_discriminator__" && sec.ProgBits && sec.Alloc && sec.Size != 0:
			b.FSDiscriminator = true
		}
	}
	defer func() {
		functions()
		for _, i := range entries {
			b.setFuncEntry(syms[i].Value, llvmname.Canonical(syms[i].Name))
		}
	}()
	var invalid [][2]uint64
	for i, sec := range secs {
		if !sec.Exec || sec.Size == 0 || sec.Name == ".plt" || sec.NoBits {
			continue
		}
		data, err := sec.Data()
		if err != nil {
			return fmt.Errorf("section %s: %v", sec.Name, err)
		}
		addrs := bySection[i]
		slices.Sort(addrs)
		addrs = slices.Compact(addrs)
		end := sec.Addr + uint64(len(data))
		for j, start := range addrs {
			next := end
			if j+1 < len(addrs) {
				next = addrs[j+1]
			}
			run := uint64(0)
			a := start
			for a < next {
				if a < sec.Addr || a >= end {
					break
				}
				size, kind, ok := decodeInst(data[a-sec.Addr:])
				if ok {
					b.code = append(b.code, a)
					b.kind = append(b.kind, kind)
					b.size = append(b.size, uint8(size))
					if run > 0 {
						invalid = append(invalid, [2]uint64{a - run, a - 1})
						run = 0
					}
				} else {
					run += uint64(size)
				}
				a += uint64(size)
			}
			if run > 0 {
				invalid = append(invalid, [2]uint64{a - run, a - 1})
			}
		}
	}
	b.invalidRuns = invalidRunOrder(invalid)
	b.InvalidInstructions = len(b.invalidRuns)
	// Sections are laid out in ascending order in executables; sort anyway
	// so that lookups stay correct for odd layouts.
	if !slices.IsSorted(b.code) {
		idx := make([]int, len(b.code))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(x, y int) bool { return b.code[idx[x]] < b.code[idx[y]] })
		code, kind, size := make([]uint64, 0, len(idx)), make([]instKind, 0, len(idx)), make([]uint8, 0, len(idx))
		for _, i := range idx {
			if n := len(code); n > 0 && code[n-1] == b.code[i] {
				continue
			}
			code, kind, size = append(code, b.code[i]), append(kind, b.kind[i]), append(size, b.size[i])
		}
		b.code, b.kind, b.size = code, kind, size
	}
	if n := len(b.code); n > 0 {
		b.codeLo = b.code[0]
		b.codeBits = make([]uint64, (b.code[n-1]-b.codeLo)/64+1)
		for _, a := range b.code {
			i := a - b.codeLo
			b.codeBits[i>>6] |= 1 << (i & 63)
		}
	}
	b.rank = make([]uint32, len(b.codeBits))
	n := uint32(0)
	for w, x := range b.codeBits {
		b.rank[w] = n
		n += uint32(bits.OnesCount64(x))
	}
	b.nextUncond = make([]uint64, len(b.code)+1)
	next := ^uint64(0)
	b.nextUncond[len(b.code)] = next
	for i := len(b.code) - 1; i >= 0; i-- {
		if k := b.kind[i]; k == instCall || k == instReturn || k == instUncondBranch {
			next = b.code[i]
		}
		b.nextUncond[i] = next
	}
	return nil
}

// invalidRunOrder returns the distinct runs in the order llvm-profgen's
// AddrsWithInvalidInstruction (a DenseSet of address pairs, filled in
// disassembly order) iterates them, as its detailed warnings list them.
func invalidRunOrder(runs [][2]uint64) [][2]uint64 {
	var uniq [][2]uint64
	seen := map[[2]uint64]bool{}
	for _, r := range runs {
		if !seen[r] {
			seen[r] = true
			uniq = append(uniq, r)
		}
	}
	idx := make([]uint64, len(uniq))
	for i := range idx {
		idx[i] = uint64(i)
	}
	// DenseMapInfo's hashes are the same from LLVM 19 on.
	order := densemap.OrderHashed(idx, func(i uint64) uint32 {
		r := uniq[i]
		return densemap.CombineHash(densemap.HashUint64(19, r[0]), densemap.HashUint64(19, r[1]))
	})
	out := make([][2]uint64, len(order))
	for i, j := range order {
		out[i] = uniq[j]
	}
	return out
}

// setFuncEntry is llvm-profgen's setIsFuncEntry for the symbol sym at
// addr of a text section: the range containing addr is a function entry if
// its function has one range or its name is sym.
func (b *Binary) setFuncEntry(addr uint64, sym string) {
	if r := b.findFuncRange(addr); r != nil && (len(r.Func.Ranges) == 1 || r.Name == sym) {
		r.Entry = true
	}
}

// IsCall reports whether addr is a call instruction (addressIsCall).
func (b *Binary) IsCall(addr uint64) bool {
	k, ok := b.kindOf(addr)
	return ok && k == instCall
}

// CallOrReturn is IsCall and IsReturn with one lookup.
func (b *Binary) CallOrReturn(addr uint64) (call, ret bool) {
	k, ok := b.kindOf(addr)
	return ok && k == instCall, ok && k == instReturn
}

// IsReturn reports whether addr is a return instruction (addressIsReturn).
func (b *Binary) IsReturn(addr uint64) bool {
	k, ok := b.kindOf(addr)
	return ok && k == instReturn
}

// ValidFallThrough is llvm-profgen's isValidFallThroughRange: start ≤ end
// and no call, return or direct jump in [start, end).
func (b *Binary) ValidFallThrough(start, end uint64) bool { return b.validFallThrough(start, end) }

// CallAddrFromFrameAddr is getCallAddrFromFrameAddr: the address of the
// call instruction before a return address, ExternalAddr for ExternalAddr,
// else 0.
func (b *Binary) CallAddrFromFrameAddr(addr uint64) uint64 { return b.callAddrFromFrameAddr(addr) }

// NumInsts returns the number of decoded instructions.
func (b *Binary) NumInsts() int { return len(b.code) }

// InstIndex returns the index of the first instruction at or above addr
// (NumInsts if none): llvm-profgen's InstructionPointer rounded to next.
func (b *Binary) InstIndex(addr uint64) int { return b.lowerBound(addr) }

// Inst returns the address and length of instruction i.
func (b *Binary) Inst(i int) (addr uint64, size int) { return b.code[i], int(b.size[i]) }

// FuncRangeAt returns the function range containing addr, or nil
// (llvm-profgen's findFuncRange).
func (b *Binary) FuncRangeAt(addr uint64) *FuncRange { return b.findFuncRange(addr) }

// FuncRangeStartingAt returns the function range that starts at addr, or
// nil (findFuncRangeForStartAddr).
func (b *Binary) FuncRangeStartingAt(addr uint64) *FuncRange {
	i, ok := slices.BinarySearchFunc(b.funcs, addr, func(r FuncRange, a uint64) int { return cmp.Compare(r.Start, a) })
	if !ok {
		return nil
	}
	return &b.funcs[i]
}

// Functions returns every function of the DWARF, in the order their first
// subprogram appears.
func (b *Binary) Functions() []*Function { return b.functions }

// decodeInst returns the length and class of the instruction at the start
// of code as LLVM's disassembler decodes it (x86inst), with ok false for
// undecodable bytes (the length is then what LLVM read).
func decodeInst(code []byte) (size int, kind instKind, ok bool) {
	in := x86inst.Decode(code)
	return in.Len, kindOf[in.Class], in.OK
}

// kindOf maps x86inst's classes to llvm-profgen's address sets.
var kindOf = [...]instKind{
	x86inst.Other:        instOther,
	x86inst.Call:         instCall,
	x86inst.Return:       instReturn,
	x86inst.Branch:       instCondBranch,
	x86inst.UncondBranch: instUncondBranch,
}

// inferPrologEpilog builds llvm-profgen's PrologEpilogTracker set: for each
// function range start (ascending) the start and the instruction after the
// first code address at or above it, stopping at the end of the code; for
// each return, the return and the instruction before it.
func (b *Binary) inferPrologEpilog() {
	b.prologEpilog = map[uint64]bool{}
	for _, fr := range b.funcs {
		b.prologEpilog[fr.Start] = true
		i, _ := slices.BinarySearch(b.code, fr.Start)
		if i+1 >= len(b.code) {
			break
		}
		b.prologEpilog[b.code[i+1]] = true
	}
	for i, k := range b.kind {
		if k != instReturn {
			continue
		}
		b.prologEpilog[b.code[i]] = true
		if i > 0 {
			b.prologEpilog[b.code[i-1]] = true
		}
	}
}

// fileName is llvm::sys::path::filename in the native (POSIX) style.
func fileName(p string) string {
	if p == "" {
		return ""
	}
	if strings.Trim(p, "/") == "" {
		return "/"
	}
	if strings.HasSuffix(p, "/") {
		return "."
	}
	return p[strings.LastIndexByte(p, '/')+1:]
}

// canonicalSymbolName is the name llvm-profgen-22 compares a symbol's with
// the DWARF name of the function it lies in when it reads functions from
// the symbol table (RecoverSymbolTableFunctions): without a ".llvm.N",
// ".part.N" or ".cold" suffix (".__uniq.N" kept), as measured against
// llvm-profgen-22 (fib.cold, fib.llvm.1 and fib.part.0 are fib;
// fib.__uniq.1 and fib.foo are not; tools/profgen's TestSymbolTableNames).
// Function entries (setFuncEntry) and --show-canonical-fname use
// getCanonicalFnName, llvmname.Canonical, which keeps ".cold": the cold
// range of a function split by -fsplit-machine-functions is no entry
// (tools/profgen's TestSplitFunctions).
func canonicalSymbolName(name string) string {
	return strings.TrimSuffix(llvmname.Canonical(name), ".cold")
}
