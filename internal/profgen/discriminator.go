package profgen

// baseDisc is ProfileGeneratorBase::getBaseDiscriminator: the raw value
// for FS discriminators, else DILocation's prefix-encoded base
// discriminator. (The pseudo-probe form, low three bits 7, never comes
// out of clang's three-component encoding; probe binaries take their
// locations from the probes instead.)
func (g *generator) baseDisc(d uint32) uint32 {
	if g.fs {
		return d
	}
	return prefixDecode(d)
}

// dupFactor is getDuplicationFactor: 1 for FS discriminators, else the
// second component of the discriminator (0 means 1).
func (g *generator) dupFactor(d uint32) uint32 {
	if g.fs {
		return 1
	}
	if d&1 == 0 {
		if d&0x40 != 0 {
			d >>= 14
		} else {
			d >>= 7
		}
	} else {
		d >>= 1
	}
	if f := prefixDecode(d); f != 0 {
		return f
	}
	return 1
}

// prefixDecode is DILocation::getUnsignedFromPrefixEncoding.
func prefixDecode(u uint32) uint32 {
	if u&1 != 0 {
		return 0
	}
	u >>= 1
	if u&(1<<5) != 0 {
		return ((u >> 1) & 0xfe0) | (u & 0x1f)
	}
	return u & 0x1f
}
