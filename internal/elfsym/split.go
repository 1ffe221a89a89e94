package elfsym

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// splitCtx finds and caches the .dwp package and .dwo files for the
// skeleton units of one dwarfFile, the way LLVM's DWARFContext::getDWOContext
// does: a package (<debug file>.dwp, or Options.DWPFile) wins over .dwo files.
type splitCtx struct {
	dwpPath string

	dwpOnce sync.Once
	dwp     *dwoFile
	dwpErr  error

	mu   sync.Mutex
	dwos map[string]*dwoFile
	errs map[string]error
}

// dwoFile is an opened .dwo or .dwp.
type dwoFile struct {
	df      *dwarfFile
	index   map[uint64]cuIndexRow // DWP cu_index by signature
	closeFn func() error
}

type cuIndexRow struct {
	infoOff, infoSize uint64
	abbrevOff         uint64
	strOffsetsOff     uint64
	rnglistsOff       uint64
}

// openDWO reads an object file's .dwo sections.
func openDWO(path string) (*dwoFile, error) {
	img, err := openELF(path, true)
	if err != nil {
		return nil, err
	}
	ef, closeFn := img.ef, img.close
	df := &dwarfFile{file: path, dwo: true, order: ef.ByteOrder}
	// An unusable section of a split file fails the file: its units are
	// reported as missing where they are needed.
	var bad error
	ss := loadSections(path, ef, img.layout, img.data, true, func(msg string) {
		if bad == nil {
			bad = errors.New(msg)
		}
	})
	if bad != nil {
		closeFn()
		return nil, bad
	}
	df.sec = ss
	f := &dwoFile{df: df, closeFn: closeFn}
	if len(ss.cuIndex) > 0 {
		if f.index, err = parseCUIndex(path, ss.cuIndex, df); err != nil {
			closeFn()
			return nil, err
		}
		// Each unit starts its .debug_info.dwo contribution.
		byInfo := make(map[uint64]uint64, len(f.index))
		for _, r := range f.index {
			byInfo[r.infoOff] = r.abbrevOff
		}
		df.abbrevAdj = func(unitOff uint64) uint64 { return byInfo[unitOff] }
	}
	if err := df.parseUnits(); err != nil {
		closeFn()
		return nil, err
	}
	return f, nil
}

// DWARF package section identifiers (DWARF 5 §7.3.5.3; version 2 GNU
// packages use 1 INFO, 2 TYPES, 3 ABBREV, 4 LINE, 5 LOC, 6 STR_OFFSETS,
// 7 MACINFO, 8 MACRO).
const (
	sectInfo       = 1
	sectAbbrev     = 3
	sectStrOffsets = 6
	sectRnglists   = 8
)

func parseCUIndex(path string, data []byte, df *dwarfFile) (map[uint64]cuIndexRow, error) {
	b := newCursor(path, ".debug_cu_index", data, 0, df.order)
	version := b.U32()
	if version == 5<<16 || version == 5 {
		version = 5
	} else if version&0xffff == 5 {
		version = 5
	}
	ncols := uint64(b.U32())
	nunits := uint64(b.U32())
	nslots := uint64(b.U32())
	if b.Err() != nil {
		return nil, b.Err()
	}
	if version != 2 && version != 5 {
		b.FailAt(0, decode.ErrUnsupportedVersion, "unsupported index version %d", version)
		return nil, b.Err()
	}
	// Check the tables fit before allocating anything.
	need := nslots*12 + ncols*4 + 2*nunits*ncols*4
	if ncols > 64 || nslots > uint64(b.Remaining()) || nunits > uint64(b.Remaining()) || need > uint64(b.Remaining()) {
		b.Fail(decode.ErrMalformed, "index tables (%d slots, %d units, %d columns) exceed section", nslots, nunits, ncols)
		return nil, b.Err()
	}
	sigs := b.Bytes(nslots * 8)
	idxs := b.Bytes(nslots * 4)
	cols := make([]uint32, ncols)
	for i := range cols {
		cols[i] = b.U32()
	}
	offs := b.Bytes(nunits * ncols * 4)
	sizes := b.Bytes(nunits * ncols * 4)
	if b.Err() != nil {
		return nil, b.Err()
	}
	out := make(map[uint64]cuIndexRow)
	for s := uint64(0); s < nslots; s++ {
		row := uint64(df.order.Uint32(idxs[s*4:]))
		if row == 0 {
			continue
		}
		if row > nunits {
			return nil, newError(path, ".debug_cu_index", 16+nslots*8+s*4, decode.ErrMalformed, "row %d out of range", row)
		}
		sig := df.order.Uint64(sigs[s*8:])
		var r cuIndexRow
		for c, id := range cols {
			at := ((row-1)*ncols + uint64(c)) * 4
			off := uint64(df.order.Uint32(offs[at:]))
			size := uint64(df.order.Uint32(sizes[at:]))
			switch {
			case id == sectInfo:
				r.infoOff, r.infoSize = off, size
			case id == sectAbbrev:
				r.abbrevOff = off
			case id == sectStrOffsets:
				r.strOffsetsOff = off
			case id == sectRnglists && version == 5:
				r.rnglistsOff = off
			}
		}
		out[sig] = r
	}
	return out, nil
}

func (sc *splitCtx) getDWP() (*dwoFile, error) {
	sc.dwpOnce.Do(func() {
		if sc.dwpPath == "" {
			return
		}
		if _, err := os.Stat(sc.dwpPath); err != nil {
			return
		}
		sc.dwp, sc.dwpErr = openDWO(sc.dwpPath)
	})
	return sc.dwp, sc.dwpErr
}

func (sc *splitCtx) getDWO(path string) (*dwoFile, error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if f, ok := sc.dwos[path]; ok {
		return f, nil
	}
	if err, ok := sc.errs[path]; ok {
		return nil, err
	}
	f, err := openDWO(path)
	if err != nil {
		if sc.errs == nil {
			sc.errs = make(map[string]error)
		}
		sc.errs[path] = err
		return nil, err
	}
	if sc.dwos == nil {
		sc.dwos = make(map[string]*dwoFile)
	}
	sc.dwos[path] = f
	return f, nil
}

func (sc *splitCtx) close() {
	if sc == nil {
		return
	}
	if sc.dwp != nil {
		sc.dwp.closeFn()
	}
	for _, f := range sc.dwos {
		f.closeFn()
	}
}

// splitUnit returns the split compile unit for a skeleton unit, with the
// skeleton's address, range and string bases applied.
func (u *unit) splitUnit() (*unit, error) {
	u.splitOnce.Do(func() { u.split, u.splitErr = u.findSplitUnit() })
	return u.split, u.splitErr
}

func (u *unit) findSplitUnit() (*unit, error) {
	sc := u.df.split
	if sc == nil {
		return nil, nil
	}
	f, err := sc.getDWP()
	if err != nil {
		return nil, err
	}
	if f == nil {
		path := u.dwoName
		if !isAbs(path) && u.hasCompDir && u.compDir != "" {
			path = appendPath(u.compDir, path)
		}
		if f, err = sc.getDWO(path); err != nil {
			return nil, err
		}
	}
	var hdr *unit
	var row cuIndexRow
	if f.index != nil {
		r, ok := f.index[u.dwoID]
		if !ok {
			return nil, fmt.Errorf("%s: no unit with DWO id %#x", f.df.file, u.dwoID)
		}
		row = r
		for _, c := range f.df.units {
			if c.off == r.infoOff {
				hdr = c
				break
			}
		}
	} else {
		for _, c := range f.df.units {
			if c.version >= 5 {
				if c.unitType == utSplitCompile && c.dwoID == u.dwoID {
					hdr = c
					break
				}
				continue
			}
			// DWARF 4: the id is DW_AT_GNU_dwo_id of the unit DIE.
			b := newCursor(f.df.file, ".debug_info.dwo", f.df.sec.info[:c.end], c.dieOff, f.df.order)
			var d die
			if c.readDIE(&b, &d) {
				if id, ok := d.gnuDWOID.constant(); ok && id == u.dwoID {
					hdr = c
					break
				}
			}
		}
	}
	if hdr == nil {
		return nil, fmt.Errorf("%s: no unit with DWO id %#x", f.df.file, u.dwoID)
	}
	s := &unit{
		df: hdr.df, off: hdr.off, dieOff: hdr.dieOff, end: hdr.end,
		version: hdr.version, unitType: hdr.unitType, addrSize: hdr.addrSize,
		offSize: hdr.offSize, abbrevs: hdr.abbrevs, dwoID: u.dwoID, hasDWOID: true,
		skeleton: u,
	}
	s.addrSec, s.addrBase = u.df.sec.addr, u.addrBase
	s.rangesSec, s.rangesBase = u.df.sec.ranges, u.rangesBase
	s.baseAddr, s.hasBaseAddr = u.baseAddr, u.hasBaseAddr
	s.compDir, s.hasCompDir = u.compDir, u.hasCompDir
	hdrSize := uint64(8)
	rlHdr := uint64(12)
	if s.offSize == 8 {
		hdrSize, rlHdr = 16, 20
	}
	if s.version >= 5 {
		s.strOffsetsBase = row.strOffsetsOff + hdrSize
		s.rnglistsBase = row.rnglistsOff + rlHdr
		s.hasRnglistBase = true
	} else {
		s.strOffsetsBase = row.strOffsetsOff
	}
	b := newCursor(s.df.file, ".debug_info.dwo", s.df.sec.info[:s.end], s.dieOff, s.df.order)
	if !s.readDIE(&b, &s.cuDIE) {
		if b.Err() != nil {
			return nil, b.Err()
		}
		return nil, fmt.Errorf("%s: empty split unit at %#x", s.df.file, s.off)
	}
	if v, ok := s.cuDIE.rnglistsBase.sectionOffset(); ok {
		s.rnglistsBase = row.rnglistsOff + v
	}
	return s, nil
}
