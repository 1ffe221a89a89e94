package perfscript

import (
	"encoding/hex"
	"errors"
	"fmt"
	"hash/maphash"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// Event is one event of a recording decoded from perf.data rather than
// read from perf script's text: an mmap event (MMap set) or a sample, in
// the order perf script would print them. ParseEvents aggregates events
// as Parse aggregates the lines perf script prints of them.
type Event struct {
	// MMap is an mmap event; BuildID is the one an MMAP2 event recorded
	// with --buildid-mmap names.
	MMap    *MMapEvent
	BuildID []byte
	// A sample: its call stack, leaf first, as perf prints it (no
	// PERF_CONTEXT_* markers; hybrid samples only), and its branch stack,
	// newest first, as runtime addresses.
	Stack    []uint64
	Branches []Branch
	// Where names the event in errors: the file, the record and its
	// offset.
	File, Section string
	Offset        int64
}

// ParseEvents reads the events next returns (io.EOF, or any error, ends
// them) and aggregates them into an unsymbolized profile, exactly as
// Parse aggregates the text perf script prints of the same events with
// `-F ip,brstack --show-mmap-events`: the same counters, the same
// warnings in the same order, the same unwinder input. content says
// whether the samples carry call stacks (Hybrid) or not (LBR).
func ParseEvents(name string, content Content, bin *Binary, opts Options, next func(*Event) error) (*Profile, error) {
	if content == Hybrid && !opts.IgnoreStackSamples && opts.HybridSample == nil && opts.HybridRecord == nil {
		return nil, ErrContextSensitive
	}
	p := &reader{
		name: name, bin: bin, opts: opts, content: content,
		s:                  &lineStream{eof: true},
		base:               bin.PreferredBase(),
		prof:               &Profile{Content: content, Counter: *newCounter(), CS: content == Hybrid && !opts.IgnoreStackSamples},
		invalidReturnAddrs: map[uint64]struct{}{},
	}
	p.seed, p.seed2 = maphash.MakeSeed(), maphash.MakeSeed()
	if opts.ShowDetailedWarning {
		p.order = newSampleOrder()
	}
	var ev Event
	for {
		ev.MMap, ev.BuildID, ev.Stack, ev.Branches = nil, nil, ev.Stack[:0], ev.Branches[:0]
		err := next(&ev)
		if err != nil {
			if err == ErrEndOfEvents {
				break
			}
			return nil, err
		}
		if ev.MMap != nil {
			if err := p.mmapEvent(&ev); err != nil {
				return nil, err
			}
			continue
		}
		if content == LBR {
			p.lbrEvent(&ev)
		} else {
			p.hybridEvent(&ev)
		}
	}
	return p.done(), nil
}

// eventError is the error of an event, where the text path names a line.
func eventError(ev *Event, err error) error {
	var de *decode.Error
	if errors.As(err, &de) {
		msg := de.Msg
		if i := strings.Index(msg, ": "); strings.HasPrefix(msg, "line ") && i >= 0 {
			msg = msg[i+2:]
		}
		return &decode.Error{Format: "perfdata", File: ev.File, Section: ev.Section, Offset: ev.Offset, Msg: msg, Err: de.Err}
	}
	return err
}

// mmapEvent is parseMMapEvent for a decoded mmap event.
func (p *reader) mmapEvent(ev *Event) error {
	e := *ev.MMap
	if p.opts.MmapEvents != nil {
		fmt.Fprintf(p.opts.MmapEvents, "Mmap: Binary %s loaded at %#x: \n", e.Path, e.Address)
	}
	if fileName(e.Path) != p.bin.Name {
		return nil
	}
	if p.opts.BuildID != nil && len(ev.BuildID) > 0 && !(p.opts.HasPID && e.PID != p.opts.PID) {
		if id := hex.EncodeToString(ev.BuildID); id != hex.EncodeToString(p.opts.BuildID) {
			return &decode.Error{Format: "perfdata", File: ev.File, Section: ev.Section, Offset: ev.Offset, Err: ErrBuildIDMismatch,
				Msg: fmt.Sprintf("the trace maps %s (pid %d) with build id %s, but %s has build id %s: pass the binary that was profiled",
					e.Path, e.PID, id, p.bin.Name, hex.EncodeToString(p.opts.BuildID))}
		}
	}
	if err := p.updateBinaryAddress(e); err != nil {
		return eventError(ev, err)
	}
	return nil
}

// canonicalLBR is parseLBRLine for decoded branches.
func (p *reader) canonicalLBR(branches []Branch) bool {
	p.lbr = p.lbr[:0]
	for _, b := range branches {
		src, dst := p.canonical(b.Source), p.canonical(b.Target)
		srcIn, dstIn := p.bin.IsCode(src), p.bin.IsCode(dst)
		if !srcIn {
			src = ExternalAddr
		}
		if !dstIn {
			dst = ExternalAddr
		}
		if !srcIn && !dstIn {
			continue
		}
		p.lbr = append(p.lbr, Branch{src, dst})
	}
	return len(p.lbr) > 0
}

// lbrEvent is parseSample of an LBR-only trace for one decoded sample.
func (p *reader) lbrEvent(ev *Event) {
	p.prof.Samples++
	if p.canonicalLBR(ev.Branches) {
		p.warnIfMissingMMap()
		p.record(1)
	}
}

// hybridEvent is parseSample of a hybrid trace for one decoded sample.
// perf prints an empty line before each hybrid sample, which llvm-profgen
// reads as a sample of its own (with no stack, dropped): it counts too.
func (p *reader) hybridEvent(ev *Event) {
	p.prof.Samples++ // the empty line
	if len(ev.Stack) == 0 {
		return // the LBR line follows the empty line: skipped with it
	}
	p.prof.Samples++
	ok := p.stackOf(ev.Stack)
	if !ok || len(ev.Branches) == 0 {
		// A sample whose LBR line perf prints empty ends the stack
		// lines as a line that is not a frame does.
		return
	}
	p.warnIfMissingMMap()
	if p.canonicalLBR(ev.Branches) {
		if !p.opts.IgnoreStackSamples {
			p.stack[0] = p.lbr[0].Target
			p.noteOrder(p.stack, p.lbr)
			first := p.noteDistinct()
			p.countFallThrough(1)
			p.hybridSample(p.stack, p.lbr, p.key, 1, first)
			return
		}
		p.stack = p.stack[:0]
		p.record(1)
	}
}

// stackOf is extractCallstack for decoded frames.
func (p *reader) stackOf(frames []uint64) bool {
	p.stack = p.stack[:0]
	for _, addr := range frames {
		if !p.pushFrame(addr) {
			break
		}
	}
	p.trimExternalTail()
	return p.stackUsable()
}

// ErrEndOfEvents is what an event source returns after its last event.
var ErrEndOfEvents = errors.New("end of events")
