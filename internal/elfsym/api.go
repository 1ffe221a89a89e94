// Package elfsym turns addresses in an ELF binary into source locations with
// their inline chains, the way LLVM's DWARF symbolizer does.
//
// A Binary is opened once (Open) and indexed lazily; Symbolize is safe for
// concurrent use. Frames come innermost first, with the fields profile
// writers need (linkage name, line, column, discriminator, the enclosing
// subprogram's DW_AT_decl_line) and the ones llvm-symbolizer prints.
//
// Security: the package is meant to read untrusted binaries. Malformed input
// yields a *decode.Error (Format "elfsym") naming the file, the section and
// the offset within it; it never panics (no recover hides one: the fuzz
// targets fail on any) and never sizes an allocation from an unchecked
// length.
//
// Where this package and llvm-symbolizer differ on a damaged binary
// (internal/mutation's testdata/divergences/elf.tsv): llvm-symbolizer
// refuses the whole object when .strtab lies outside the file (here the
// symbol table is left out, with a warning), is not NUL-terminated (here
// the last name ends at the section's end) or a symbol's name points past
// it (here that symbol's name is empty); DWARF still answers. A corrupt
// abbreviation costs LLVM the whole unit, here only the damaged DIE. A
// symbol whose section index names no section is left out, as LLVM leaves
// it out.
package elfsym

// This file is the package's API contract: tools/symbolize, the MemProf
// converter and profgen are written against it. Implementations live in the
// other files of the package.

// Frame is one entry of an address's inline chain, innermost first.
type Frame struct {
	// Name is the subprogram's DW_AT_name (the "short" name), or the
	// symbol-table name when there is no DWARF.
	Name string
	// LinkageName is DW_AT_linkage_name (DW_AT_MIPS_linkage_name), falling
	// back to Name when absent (C functions, main).
	LinkageName string
	// File is the path of the line-table file, as llvm-symbolizer prints it
	// (joined with the include directory and the unit's comp_dir when
	// relative). Empty when there is no line information.
	File         string
	Line, Column uint32
	// Discriminator is the raw DWARF discriminator of the line-table row
	// (or DW_AT_GNU_discriminator of an inlined call site), with LLVM's
	// base/duplication-factor/copy-id encoding left to the caller.
	Discriminator uint32
	// StartFile and StartLine are the subprogram's DW_AT_decl_file and
	// DW_AT_decl_line (0 when absent). Profiles store Line - StartLine.
	StartFile string
	StartLine uint32
	// StartAddress is the low address of the (inlined) subprogram range that
	// contains the address, 0 when unknown.
	StartAddress uint64
	// Inlined is true for every frame except the outermost one.
	Inlined bool
}

// Options control how a binary and its debug information are found.
type Options struct {
	// DebugFileDirectories are searched for .build-id/xx/rest.debug and
	// .gnu_debuglink targets, after the binary's own directory.
	DebugFileDirectories []string
	// Warn, if set, receives non-fatal problems (e.g. "no line info").
	Warn func(msg string)
	// DWPFile, if set, is the DWARF package for split units (like
	// llvm-symbolizer --dwp); by default <debug file>.dwp is tried, then
	// the .dwo files named by the skeleton units.
	DWPFile string
	// DWARFOnly disables the symbol-table fallback for addresses no DWARF
	// unit covers (LLVM's UseSymbolTable=false, as llvm-profgen and the
	// MemProf reader use): Symbolize then returns ErrUnknownPC.
	DWARFOnly bool
	// IgnoreBadProgramHeaders opens a binary whose program header table
	// is unreadable (outside the file, entries too small, offsets or sizes
	// past 2^63) as if it had none: ELF().Progs is empty and Warn says
	// why. llvm-symbolizer never reads that table, so symbolize sets it;
	// callers that need the segments (load addresses) leave it unset and
	// get an error.
	IgnoreBadProgramHeaders bool
	// SymbolTableEarly starts reading the symbol table on another
	// goroutine as soon as the headers are parsed, while the debug
	// information is indexed, for a caller that will need it (symbolize
	// applies it to every answer).
	SymbolTableEarly bool
	// NoDWARF loads the headers, the build id and the symbol table only:
	// no debug information is looked for or indexed (Symbolize answers
	// from the symbol table, or ErrUnknownPC with DWARFOnly). For a
	// binary whose DWARF another file holds (llvm-profgen's
	// --debug-binary).
	NoDWARF bool
}

// Open and the methods of *Binary are implemented in binary.go:
//
//	func Open(path string, opts *Options) (*Binary, error)
//	func OpenFile(path string, f *os.File, opts *Options) (*Binary, error) // f already open
//	func (b *Binary) Close() error
//	func (b *Binary) Path() string
//	func (b *Binary) BuildID() []byte                 // GNU build id, nil if none
//	func ReadBuildID(path string) ([]byte, error)      // a file's, nothing else loaded
//	func (b *Binary) ELF() *elf.File                  // the parsed headers (do not Close)
//	func (b *Binary) RequireBuildID() ([]byte, error) // ErrNoBuildID
//	func (b *Binary) RequireDWARF() error             // ErrNoDWARF
//	func (b *Binary) Symbolize(addr uint64) ([]Frame, error) // file vaddr
//	func (b *Binary) SymbolizeInto(buf []Frame, addr uint64) ([]Frame, error) // into buf's memory
//	func (b *Binary) Prefetch(addrs []uint64)         // decode their units in parallel
//	func (b *Binary) SymbolTable() *SymbolTable       // .symtab or .dynsym, nil if unreadable
//	func (b *Binary) Subprograms() ([]Subprogram, bool)      // the own units' functions
//	func (b *Binary) SplitSubprograms() ([]Subprogram, int)  // the split units' functions
//	func (b *Binary) Functions(yield func(Function) bool)   // every subprogram DIE (one walk with the two above)
//
// Symbolize returns ErrUnknownPC (errors.Is) for addresses with no
// function; callers decide whether that is fatal. It follows LLVM's
// DWARFContext::getInliningInfoForAddress with FileLineInfoKind
// AbsoluteFilePath: the unit comes from .debug_aranges plus unit ranges
// (lowest unit offset wins on overlap), the innermost subroutine from the
// unit's address map (DWARFUnit::updateAddressDieMap), the innermost
// location from the line-table row for the address, the outer locations
// from DW_AT_call_file/line/column and DW_AT_GNU_discriminator, and names,
// DW_AT_decl_line/decl_file through DW_AT_abstract_origin and
// DW_AT_specification. StartAddress is the DIE's own DW_AT_low_pc only (0
// for DW_AT_ranges), as LLVM reports it. It does not apply the
// llvm-symbolizer command line's symbol-table override of the outermost
// frame's name (UseSymbolTable); tools/symbolize does that itself.
//
// A debug section that cannot be used (it lies outside the file, its
// compression header is cut or names an unknown codec, its stream is
// corrupt, fails its checksum or decompresses to another size than it
// claims) is left out with a warning, as LLVM's DWARFContext leaves it out:
// the rest of the binary is still symbolized (without .debug_info, from the
// symbol table). One difference, on purpose: a compressed section claiming
// more than its stream gives is used by LLVM with zeros after the data
// (allocating the whole claim, 4 GiB if it says so); here it is corrupt
// and left out (tools/symbolize TestDegradeClaimDiffers).
//
// Without DWARF (or outside every unit) frames come from .symtab/.dynsym
// (Name = LinkageName = symbol, StartAddress = symbol value, no File),
// unless Options.DWARFOnly is set. Legacy .zdebug_ sections are read even
// though LLVM 16+ ignores them.
//
// Lookups are indexed once at Open (unit headers, unit DIEs, address
// ranges); a unit's line table and DIE tree are decoded on its first lookup
// and kept, so memory grows with the units actually used.
