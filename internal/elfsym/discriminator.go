package elfsym

// DecodeDiscriminator splits a raw DWARF discriminator into LLVM's three
// components, as DILocation::decodeDiscriminator and the accessors
// getBaseDiscriminatorFromDiscriminator / getDuplicationFactorFromDiscriminator
// / getCopyIdentifierFromDiscriminator do for the default (non flow-sensitive,
// non pseudo-probe) encoding. Each component is prefix encoded: bit 0 set means
// the component is empty (0); otherwise it is a 5-bit value after a 1-bit
// marker, or, when bit 6 is set, a 12-bit value in 14 bits.
//
// dupFactor follows getDuplicationFactorFromDiscriminator: an empty factor is
// reported as 1. Examples: 2 -> (1, 1, 0); 4 -> (2, 1, 0).
func DecodeDiscriminator(d uint32) (base, dupFactor, copyID uint32) {
	base = unsignedFromPrefixEncoding(d)
	next := nextDiscriminatorComponent(d)
	dupFactor = unsignedFromPrefixEncoding(next)
	if dupFactor == 0 {
		dupFactor = 1
	}
	copyID = unsignedFromPrefixEncoding(nextDiscriminatorComponent(next))
	return base, dupFactor, copyID
}

func unsignedFromPrefixEncoding(u uint32) uint32 {
	if u&1 != 0 {
		return 0
	}
	u >>= 1
	if u&0x20 != 0 {
		return ((u >> 1) & 0xfe0) | (u & 0x1f)
	}
	return u & 0x1f
}

func nextDiscriminatorComponent(d uint32) uint32 {
	if d&1 == 0 {
		if d&0x40 != 0 {
			return d >> 14
		}
		return d >> 7
	}
	return d >> 1
}
