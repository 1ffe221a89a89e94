package main

import (
	"errors"
	iofs "io/fs"
	"os"

	"github.com/rules-pgo/rules_pgo/internal/infile"
	"github.com/rules-pgo/rules_pgo/internal/perfscript"
	"github.com/rules-pgo/rules_pgo/internal/profgen"
)

// offsetBase is what the addresses of unsymbolized profiles are offsets
// from: the preferred base (--use-offset, the default), the first
// loadable segment (--use-first-loadable-segment-as-base), or 0
// (--use-offset=false: virtual addresses).
func offsetBase(c *config, bin *perfscript.Binary) uint64 {
	switch {
	case !c.useOffset:
		return 0
	case c.useFirstLoadable:
		return bin.FirstLoadableAddress
	}
	return bin.PreferredBase()
}

// readUnsymbolized reads --unsymbolized-profile: the profile of a
// context-insensitive one (its counter), or the counters by context of a
// CS one.
func readUnsymbolized(c *config, bin *perfscript.Binary) (*perfscript.Profile, *profgen.CSCounters, error) {
	f, err := infile.OpenStream(c.unsymbolized)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	base := offsetBase(c, bin)
	u, err := perfscript.ReadUnsymbolized(c.unsymbolized, f, base)
	if err != nil {
		return nil, nil, err
	}
	prof := &perfscript.Profile{CS: u.CS, BaseAddress: bin.PreferredBase()}
	if !u.CS {
		prof.Counter = u.Counters[0].Counter
		return prof, nil, nil
	}
	cs, err := profgen.CSCountersFromUnsymbolized(c.unsymbolized, bin, u, base)
	return prof, cs, err
}

// fileExists is false only when path does not exist (other errors show
// when it is opened).
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, iofs.ErrNotExist)
}
