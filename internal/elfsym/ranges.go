package elfsym

import (
	"fmt"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// addrRange is a half-open address range [lo, hi).
type addrRange struct{ lo, hi uint64 }

const (
	rleEndOfList    = 0
	rleBaseAddressx = 1
	rleStartxEndx   = 2
	rleStartxLength = 3
	rleOffsetPair   = 4
	rleBaseAddress  = 5
	rleStartEnd     = 6
	rleStartLength  = 7
)

// maxRanges caps the entries read from one range list.
const maxRanges = 1 << 20

// dieRanges returns a DIE's address ranges the way LLVM's
// DWARFDie::getAddressRanges does: low_pc/high_pc first, then DW_AT_ranges.
func (u *unit) dieRanges(d *die) ([]addrRange, error) { return u.appendDIERanges(nil, d) }

// appendDIERanges appends the DIE's ranges to rs.
func (u *unit) appendDIERanges(rs []addrRange, d *die) ([]addrRange, error) {
	if lo, ok := u.addr(d.lowPC); ok && d.highPC.set {
		if hi, ok := u.addr(d.highPC); ok {
			return append(rs, addrRange{lo, hi}), nil
		}
		if off, ok := d.highPC.constant(); ok {
			return append(rs, addrRange{lo, lo + off}), nil
		}
	}
	if !d.ranges.set {
		return rs, nil
	}
	if d.ranges.form == formRnglistx {
		return u.rnglistx(rs, d.ranges.val)
	}
	off, ok := d.ranges.sectionOffset()
	if !ok {
		return rs, nil
	}
	if u.version <= 4 {
		return u.rangeListV4(rs, u.rangesBase+off)
	}
	return u.rnglist(rs, off)
}

func (u *unit) tombstone() uint64 {
	if u.addrSize == 4 {
		return 0xffffffff
	}
	return ^uint64(0)
}

// rangeListV4 reads a .debug_ranges list (DWARF 2-4).
func (u *unit) rangeListV4(rs []addrRange, off uint64) ([]addrRange, error) {
	df := u.df
	sec := u.rangesSec
	name := ".debug_ranges"
	b := newCursor(df.file, name, sec, off, df.order)
	base, hasBase := u.baseAddr, u.hasBaseAddr
	if u.skeleton != nil {
		base, hasBase = u.skeleton.baseAddr, u.skeleton.hasBaseAddr
	}
	max := u.tombstone()
	for n := 0; b.Err() == nil; n++ {
		if n > maxRanges {
			b.Fail(decode.ErrMalformed, "too many range list entries")
			break
		}
		lo := b.UintN(u.addrSize)
		hi := b.UintN(u.addrSize)
		if b.Err() != nil {
			break
		}
		if lo == 0 && hi == 0 {
			break
		}
		if lo == max {
			base, hasBase = hi, true
			continue
		}
		if hasBase {
			if base == max {
				continue
			}
			lo += base
			hi += base
		}
		rs = append(rs, addrRange{lo, hi})
	}
	return rs, b.Err()
}

// rnglistx resolves a DW_FORM_rnglistx index through the unit's offsets table.
func (u *unit) rnglistx(rs []addrRange, i uint64) ([]addrRange, error) {
	sec := u.df.sec.rnglists
	os := uint64(u.offSize)
	if i > uint64(len(sec)) {
		return rs, u.rnglistErr(u.rnglistsBase, fmt.Sprintf("rnglistx index %d out of range", i))
	}
	at := u.rnglistsBase + i*os
	if at+os > uint64(len(sec)) || at < u.rnglistsBase {
		return rs, u.rnglistErr(at, fmt.Sprintf("rnglistx index %d out of range", i))
	}
	var rel uint64
	if os == 8 {
		rel = u.df.order.Uint64(sec[at:])
	} else {
		rel = uint64(u.df.order.Uint32(sec[at:]))
	}
	return u.rnglist(rs, u.rnglistsBase+rel)
}

func (u *unit) rnglistErr(off uint64, msg string) error {
	return newError(u.df.file, u.df.secName(".debug_rnglists"), off, decode.ErrMalformed, "%s", msg)
}

// rnglist reads a DWARF 5 range list at off in .debug_rnglists(.dwo).
func (u *unit) rnglist(rs []addrRange, off uint64) ([]addrRange, error) {
	df := u.df
	b := newCursor(df.file, df.secName(".debug_rnglists"), df.sec.rnglists, off, df.order)
	base, hasBase := u.baseAddr, u.hasBaseAddr
	if u.skeleton != nil && !hasBase {
		base, hasBase = u.skeleton.baseAddr, u.skeleton.hasBaseAddr
	}
	tomb := u.tombstone()
	addrx := func(i uint64) uint64 {
		a, ok := u.addrIndex(i)
		if !ok {
			b.Fail(decode.ErrMalformed, "address index %d out of range", i)
		}
		return a
	}
	for n := 0; b.Err() == nil; n++ {
		if n > maxRanges {
			b.Fail(decode.ErrMalformed, "too many range list entries")
			break
		}
		kind := b.U8()
		var r addrRange
		switch kind {
		case rleEndOfList:
			return rs, b.Err()
		case rleBaseAddressx:
			base, hasBase = addrx(b.Uleb()), true
			continue
		case rleBaseAddress:
			base, hasBase = b.UintN(u.addrSize), true
			continue
		case rleStartxEndx:
			r.lo = addrx(b.Uleb())
			r.hi = addrx(b.Uleb())
		case rleStartxLength:
			r.lo = addrx(b.Uleb())
			r.hi = r.lo + b.Uleb()
		case rleOffsetPair:
			r.lo, r.hi = b.Uleb(), b.Uleb()
			if !hasBase {
				// LLVM treats a missing base as 0.
				base = 0
			}
			if base == tomb {
				continue
			}
			r.lo += base
			r.hi += base
		case rleStartEnd:
			r.lo = b.UintN(u.addrSize)
			r.hi = b.UintN(u.addrSize)
		case rleStartLength:
			r.lo = b.UintN(u.addrSize)
			r.hi = r.lo + b.Uleb()
		default:
			b.FailAt(int64(b.Off()-1), decode.ErrMalformed, "unknown range list entry kind %#x", kind)
			continue
		}
		if b.Err() != nil {
			break
		}
		if r.lo == tomb {
			continue
		}
		rs = append(rs, r)
	}
	return rs, b.Err()
}
