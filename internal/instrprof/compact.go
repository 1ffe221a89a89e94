package instrprof

import (
	"io"

	"github.com/rules-pgo/rules_pgo/internal/instrprof/container"
	"github.com/rules-pgo/rules_pgo/internal/instrprof/memprofidx"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// The dense-form entry points: memprof.Converter builds a memprof.Compact,
// whose frames and call stacks are already numbered, so the writer skips
// re-interning every call stack of a Profile (indexCompact).

// WriteCompactFile is WriteFile for a profile in dense form.
func WriteCompactFile(name string, c *memprof.Compact, opts WriteOptions) error {
	pl, err := planForCompact(c, opts)
	if err != nil {
		return err
	}
	return container.WriteFileAtomic(name, 0o644, func(w io.Writer) error { return container.StreamWith(w, pl.emit) })
}

// WriteCompact is WriteCompactFile to a writer.
func WriteCompact(w io.Writer, c *memprof.Compact, opts WriteOptions) error {
	pl, err := planForCompact(c, opts)
	if err != nil {
		return err
	}
	return container.StreamWith(w, pl.emit)
}

// marshalCompact is marshal for a profile in dense form: the same bytes as
// marshal(c.Profile(), opts).
func marshalCompact(c *memprof.Compact, opts WriteOptions) ([]byte, error) {
	pl, err := planForCompact(c, opts)
	if err != nil {
		return nil, err
	}
	return container.MarshalWith(pl.emit), nil
}

func planForCompact(c *memprof.Compact, opts WriteOptions) (*plan, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	ix, err := memprofidx.IndexCompact(c, opts.Release)
	if err != nil {
		return nil, err
	}
	return newPlan(ix, opts), nil
}
