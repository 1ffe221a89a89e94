package profgen

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/perfscript"
)

// CSCountersFromUnsymbolized turns a context-sensitive unsymbolized
// profile read back (llvm-profgen's --unsymbolized-profile) into the
// counters GenerateCS and GenerateCSProbeBased take, as
// UnsymbolizedProfileReader keys them: a DWARF binary's contexts are
// parsed from their strings ("main:3 @ foo:2.1 @ bar",
// SampleContext::createCtxVectorFromStr) and their leaves count as not
// inlined (the text does not keep WasLeafInlined, so ContextWasInlined
// attributes are lost as llvm-profgen loses them); contexts that parse
// alike are added up. A probe binary's contexts are call addresses
// ("0x1a2b @ 0x3c4d", offsets from base as WriteUnsymbolized writes
// them). llvm-profgen-19 and -22 crash on those (they key them as
// strings, then look for addresses); we read them back into the
// counters the trace gave.
func CSCountersFromUnsymbolized(name string, bin *perfscript.Binary, u *perfscript.Unsymbolized, base uint64) (*CSCounters, error) {
	cs := &CSCounters{Probes: bin.PseudoProbes}
	byKey := map[string]*ContextCounter{}
	for _, uc := range u.Counters {
		var c ContextCounter
		var key string
		if cs.Probes {
			addrs, err := parseAddrContext(uc.Context, base)
			if err != nil {
				return nil, unsymContextError(name, uc, err)
			}
			c.Addrs = addrs
			key = fmt.Sprint(addrs)
		} else {
			ctx, err := parseContext(uc.Context)
			if err != nil {
				return nil, unsymContextError(name, uc, err)
			}
			c.Context = ctx
			key = ctxKey(ctx)
		}
		to := byKey[key]
		if to == nil {
			to = &c
			to.Ranges, to.Branches = map[[2]uint64]uint64{}, map[[2]uint64]uint64{}
			byKey[key] = to
			cs.Counters = append(cs.Counters, to)
		}
		for k, n := range uc.Ranges {
			to.Ranges[[2]uint64{k.Source, k.Target}] += n
		}
		for k, n := range uc.Branches {
			to.Branches[[2]uint64{k.Source, k.Target}] += n
		}
	}
	// The unwinder's order (Unwind): by context string, then addresses.
	var bufs [2][]byte
	slices.SortStableFunc(cs.Counters, func(a, b *ContextCounter) int {
		if c := compareStrings(a.Context, b.Context, &bufs); c != 0 {
			return c
		}
		return slices.Compare(a.Addrs, b.Addrs)
	})
	return cs, nil
}

func unsymContextError(name string, uc *perfscript.UnsymbolizedCounter, err error) error {
	return &decode.Error{Format: "perfscript", File: name, Section: "unsymbolized profile", Offset: uc.Offset,
		Msg: fmt.Sprintf("line %d: context [%s]: %v", uc.Line, uc.Context, err), Err: decode.ErrMalformed}
}

// parseContext parses a DWARF context string: frames joined by " @ ",
// each "name" or "name:line" or "name:line.discriminator".
func parseContext(s string) (Context, error) {
	if s == "" {
		return nil, nil
	}
	var ctx Context
	for _, f := range strings.Split(s, " @ ") {
		name, loc, hasLoc := strings.Cut(f, ":")
		if name == "" {
			return nil, fmt.Errorf("frame %q has no function name", f)
		}
		fr := frame{name: name}
		if hasLoc {
			line, disc, hasDisc := strings.Cut(loc, ".")
			n, err := strconv.ParseUint(line, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("frame %q: the line offset is not a number (expected name:line[.discriminator])", f)
			}
			fr.line = uint32(n)
			if hasDisc {
				d, err := strconv.ParseUint(disc, 10, 32)
				if err != nil {
					return nil, fmt.Errorf("frame %q: the discriminator is not a number (expected name:line[.discriminator])", f)
				}
				fr.disc = uint32(d)
			}
		}
		ctx = append(ctx, fr)
	}
	return ctx, nil
}

// parseAddrContext parses a probe binary's context: "0x" hex offsets from
// base joined by " @ ".
func parseAddrContext(s string, base uint64) ([]uint64, error) {
	if s == "" {
		return nil, nil
	}
	var addrs []uint64
	for _, f := range strings.Split(s, " @ ") {
		hex, ok := strings.CutPrefix(f, "0x")
		a, err := strconv.ParseUint(hex, 16, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("frame %q is not an address 0x<hex> (a pseudo-probe binary's contexts are call addresses; was the profile written for another binary?)", f)
		}
		addrs = append(addrs, a+base)
	}
	return addrs, nil
}
