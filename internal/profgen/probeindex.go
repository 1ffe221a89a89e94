package profgen

// ProbeIndex is PseudoProbeDwarfDiscriminator::extractProbeIndex: the
// probe index a pseudo-probe build's DWARF discriminator encodes
// (llvm-profgen's locations with --show-pseudo-probe).
func ProbeIndex(discriminator uint32) uint32 { return probeIndex(discriminator) }
