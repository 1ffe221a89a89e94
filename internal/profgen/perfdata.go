package profgen

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/perfdata"
	"github.com/rules-pgo/rules_pgo/internal/perfscript"
)

// perfScript turns a perf.data file into the perf script llvm-profgen
// reads, as its convertPerfDataToTrace does: `perf script
// --show-mmap-events -F comm,pid -i DATA` finds the processes that mapped
// the binary (those of --pid only, when given), then `perf script
// --show-mmap-events -F ip,brstack -i DATA --pid LIST` prints their
// samples (with the call stacks, for data recorded with -g). It returns
// the script's path and a function that removes it.
//
// Unlike llvm-profgen, a perf that fails is reported with its own
// message instead of being read as an empty script.
func perfScript(bin *perfscript.Binary, data string, pid int32, hasPID bool) (string, func(), error) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		return "", nil, fmt.Errorf("Perf not found: --perfdata runs `perf script`; install perf (the linux-perf package) or pass the output of `perf script -F ip,brstack --show-mmap-events -i %s` with --perfscript", data)
	}
	out, err := os.CreateTemp("", "perf-script-*.tmp")
	if err != nil {
		return "", nil, err
	}
	out.Close()
	cleanup := func() { os.Remove(out.Name()) }
	run := func(args ...string) error {
		f, err := os.Create(out.Name())
		if err != nil {
			return err
		}
		defer f.Close()
		var stderr bytes.Buffer
		cmd := exec.Command(perf, args...)
		cmd.Stdout, cmd.Stderr = f, &stderr
		if err := cmd.Run(); err != nil {
			msg := strings.TrimSpace(stderr.String())
			if len(msg) > 2000 {
				msg = msg[:2000] + "..."
			}
			return fmt.Errorf("%s %s: %v\n%s", perf, strings.Join(args, " "), err, msg)
		}
		return f.Close()
	}
	fail := func(err error) (string, func(), error) {
		cleanup()
		return "", nil, err
	}
	if err := run("script", "--show-mmap-events", "-F", "comm,pid", "-i", data); err != nil {
		return fail(err)
	}
	pids, err := binaryPIDs(bin, out.Name(), pid, hasPID)
	if err != nil {
		return fail(err)
	}
	if len(pids) == 0 {
		return fail(fmt.Errorf("No relevant mmap event is found in perf data: no process of %s maps %s (matched by file name, as llvm-profgen does)", data, bin.Name))
	}
	if err := run("script", "--show-mmap-events", "-F", "ip,brstack", "-i", data, "--pid", strings.Join(pids, ",")); err != nil {
		return fail(err)
	}
	return out.Name(), cleanup, nil
}

// binaryPIDs returns the processes whose mmap events in script map the
// binary, in first-seen order, only pid when hasPID.
func binaryPIDs(bin *perfscript.Binary, script string, pid int32, hasPID bool) ([]string, error) {
	f, err := os.Open(script)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	seen := map[int32]bool{}
	var pids []string
	r := bufio.NewReaderSize(f, 1<<16)
	for {
		line, err := r.ReadBytes('\n')
		if e, ok := bin.MMapEventOf(bytes.TrimSuffix(line, []byte("\n"))); ok && !seen[e.PID] {
			seen[e.PID] = true
			if !hasPID || e.PID == pid {
				pids = append(pids, strconv.Itoa(int(e.PID)))
			}
		}
		if err == io.EOF {
			return pids, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// maxStack is perf script's callchain depth (PERF_MAX_STACK_DEPTH, its
// --max-stack default): it prints no more frames of a sample.
const maxStack = 127

// parsePerfData reads --perfdata natively into the same profile (and
// unwinder input) that parseTrace makes of the text `perf script` prints
// of it for llvm-profgen: the processes that map the binary (by file
// name; only --pid's when given) are selected as convertPerfDataToTrace
// selects them, and their mmap events and samples go to
// perfscript.ParseEvents in the order perf script prints them
// (perfdata.Ordered).
//
// The selection needs the whole file (a process may map the binary at its
// end), so it is a pass of its own (perfDataProcesses) — unless the
// single pass of parsePerfDataOnce, which selects each process from its
// mapping of the binary on, sees every record of the selected processes.
func parsePerfData(c *Options, bin *perfscript.Binary, sym *elfsym.Binary, buildID []byte, popts perfscript.Options) (*perfscript.Profile, *Unwinder, error) {
	if prof, unwinder, ok := parsePerfDataOnce(c, bin, sym, buildID, popts); ok {
		return prof, unwinder, nil
	}
	pids, content, ids, err := perfDataProcesses(bin, c.Perfdata, popts.PID, popts.HasPID)
	if err != nil {
		return nil, nil, err
	}
	if err := checkBuildIDTable(c, bin, buildID, ids); err != nil {
		return nil, nil, err
	}
	if err := checkDataBuildID(c, buildID); err != nil {
		return nil, nil, err
	}
	r, err := perfdata.Open(c.Perfdata)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	return readPerfData(c, bin, sym, popts, r, content, &pidSelector{pids: pids})
}

// parsePerfDataOnce is parsePerfData in one pass over the file: a process
// is selected from the record that maps the binary on. That is the two
// passes' selection when no record of the process came before it, as in a
// recording of a command (exec maps the binary first) or of running
// processes (perf lists their mappings before their samples). If a
// selected process had a record dropped earlier, the pass stops and
// reports false, and so it does on any error, when the file is a pipe,
// when the mmap events are printed, and when the checks of the header
// fail: parsePerfData then takes its two passes, which give every error
// and warning as before. The pass's warnings are held until it succeeds.
// On bench/profgen's 906 MB data-cs file the first pass took 0.25-0.3 s
// of CPU and as much wall, before anything else could start.
func parsePerfDataOnce(c *Options, bin *perfscript.Binary, sym *elfsym.Binary, buildID []byte, popts perfscript.Options) (*perfscript.Profile, *Unwinder, bool) {
	if popts.MmapEvents != nil {
		return nil, nil, false
	}
	r, err := perfdata.Open(c.Perfdata)
	if err != nil {
		return nil, nil, false
	}
	defer r.Close()
	content := branchContent(r.Attrs)
	if r.Pipe || content == 0 || checkBuildIDTable(c, bin, buildID, r.BuildIDs) != nil || checkDataBuildID(c, buildID) != nil {
		return nil, nil, false
	}
	var mu sync.Mutex
	var warnings []string
	warn := popts.Warn
	popts.Warn = func(msg string) {
		mu.Lock()
		warnings = append(warnings, msg)
		mu.Unlock()
	}
	sel := &pidSelector{pids: map[int32]bool{}, dropped: map[int32]bool{}, grow: true, name: bin.Name, pid: popts.PID, hasPID: popts.HasPID}
	prof, unwinder, err := readPerfData(c, bin, sym, popts, r, content, sel)
	if err != nil || len(sel.pids) == 0 {
		if unwinder != nil {
			unwinder.discard()
		}
		return nil, nil, false
	}
	if warn != nil {
		for _, w := range warnings {
			warn(w)
		}
	}
	return prof, unwinder, true
}

// pidSelector selects the processes whose records a pass over perf.data
// reads: a fixed set, or (grow) each process from its first mapping of
// the binary (by file name; only --pid's when given) on, noting the
// processes it dropped records of before: when one of them maps the
// binary, the pass is void (errVoidPass).
type pidSelector struct {
	pids    map[int32]bool
	grow    bool
	name    string
	pid     int32
	hasPID  bool
	dropped map[int32]bool
}

var errVoidPass = errors.New("a process maps the binary after a record of it was dropped")

// mmap reports whether the mmap record m is read.
func (s *pidSelector) mmap(m *perfdata.Mmap) (bool, error) {
	p := int32(m.PID)
	if s.grow && !s.pids[p] && fileName(m.Filename) == s.name && (!s.hasPID || p == s.pid) {
		if s.dropped[p] {
			return false, errVoidPass
		}
		s.pids[p] = true
	}
	return s.keep(p), nil
}

// keep reports whether a record of process p is read.
func (s *pidSelector) keep(p int32) bool {
	if s.pids[p] {
		return true
	}
	if s.grow {
		s.dropped[p] = true
	}
	return false
}

// checkBuildIDTable refuses a binary whose build the recording's build-id
// table contradicts. perf record's table names the build of each file that
// has samples: a binary of another build is refused, as an MMAP2 event
// naming another build id is (perfscript.ErrBuildIDMismatch), where
// llvm-profgen, matching by name only, would write a profile of other
// code.
func checkBuildIDTable(c *Options, bin *perfscript.Binary, buildID []byte, ids []perfdata.BuildID) error {
	for _, id := range ids {
		if len(buildID) > 0 && len(id.BuildID) > 0 && fileName(id.Filename) == bin.Name && !bytes.Equal(id.BuildID, buildID) {
			return fmt.Errorf("%s: %w: the recording's build-id table names %s with build id %x, but %s has build id %x: pass the binary that was profiled",
				c.Perfdata, perfscript.ErrBuildIDMismatch, id.Filename, id.BuildID, c.Binary, buildID)
		}
	}
	return nil
}

// checkDataBuildID is checkBuildID (--trace-build-id) for --perfdata: the
// error names the perf.data file.
func checkDataBuildID(c *Options, buildID []byte) error {
	cb := *c
	cb.Perfscript = c.Perfdata
	return checkBuildID(&cb, buildID)
}

// readPerfData reads the records of the processes sel selects from r.
func readPerfData(c *Options, bin *perfscript.Binary, sym *elfsym.Binary, popts perfscript.Options, r *perfdata.Reader, content perfscript.Content, sel *pidSelector) (*perfscript.Profile, *Unwinder, error) {
	var unwinder *Unwinder
	if !c.IgnoreStackSamples {
		unwinder = NewUnwinder(bin, sym, c.Context)
		popts.HybridRecord = unwinder.AddRecord
	}
	o := perfdata.NewOrdered(r)
	// fill reads the next event of the selected processes into ev (its
	// mmap event into *mm).
	fill := func(ev *perfscript.Event, mm *perfscript.MMapEvent) error {
		ev.MMap, ev.BuildID, ev.Stack, ev.Branches = nil, nil, ev.Stack[:0], ev.Branches[:0]
		for {
			rec, err := nextRecord(o)
			if err != nil {
				return err
			}
			ev.File, ev.Offset = c.Perfdata, rec.Offset
			switch rec.Type {
			case perfdata.RecordMmap, perfdata.RecordMmap2:
				m := &rec.Mmap
				if keep, err := sel.mmap(m); err != nil {
					return err
				} else if !keep {
					continue
				}
				ev.Section = sectionMmap
				if rec.Type == perfdata.RecordMmap2 {
					ev.Section = sectionMmap2
				}
				*mm = mmapEvent(rec)
				ev.MMap = mm
				ev.BuildID = append(ev.BuildID[:0:0], m.BuildID...)
				return nil
			case perfdata.RecordSample:
				s := &rec.Sample
				if s.Attr.SampleType&perfdata.SampleBranchStack == 0 || !sel.keep(int32(s.PID)) {
					continue
				}
				ev.Section = sectionSample
				if content == perfscript.Hybrid {
					for _, a := range s.Callchain {
						if a >= perfdata.ContextMax {
							continue
						}
						if len(ev.Stack) == maxStack {
							break
						}
						ev.Stack = append(ev.Stack, a)
					}
				}
				for _, b := range s.Branches {
					ev.Branches = append(ev.Branches, perfscript.Branch{Source: b.From, Target: b.To})
				}
				return nil
			}
		}
	}
	// Decoding runs beside the aggregation: batches of events go from a
	// goroutine that fills them to ParseEvents, in order, and come back
	// to be filled again.
	type batch struct {
		evs []perfscript.Event
		mms []perfscript.MMapEvent
		n   int
		err error // after the n events: ErrEndOfEvents or the read error
	}
	const batchSize, batches = 256, 4
	full, free, done := make(chan *batch, batches), make(chan *batch, batches), make(chan struct{})
	for range batches {
		free <- &batch{evs: make([]perfscript.Event, batchSize), mms: make([]perfscript.MMapEvent, batchSize)}
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			var b *batch
			select {
			case b = <-free:
			case <-done:
				return
			}
			b.n, b.err = 0, nil
			for b.n < batchSize {
				if err := fill(&b.evs[b.n], &b.mms[b.n]); err != nil {
					b.err = err
					break
				}
				b.n++
			}
			select {
			case full <- b:
			case <-done:
				return
			}
			if b.err != nil {
				return
			}
		}
	}()
	defer func() {
		close(done)
		wg.Wait()
	}()
	var cur *batch
	i := 0
	next := func(ev *perfscript.Event) error {
		for cur == nil || i == cur.n {
			if cur != nil {
				if cur.err != nil {
					return cur.err
				}
				free <- cur
			}
			cur, i = <-full, 0
		}
		e := &cur.evs[i]
		i++
		ev.MMap, ev.BuildID, ev.Stack, ev.Branches = e.MMap, e.BuildID, e.Stack, e.Branches
		ev.File, ev.Section, ev.Offset = e.File, e.Section, e.Offset
		return nil
	}
	prof, err := perfscript.ParseEvents(c.Perfdata, content, bin, popts, next)
	return prof, unwinder, err
}

// The sections errors name, one string each rather than one per event.
var (
	sectionMmap   = "record " + perfdata.RecordMmap.String()
	sectionMmap2  = "record " + perfdata.RecordMmap2.String()
	sectionSample = "record " + perfdata.RecordSample.String()
)

// perfDataAccess reads a data-access recording from perf.data (what
// --data-access-perftrace otherwise takes as `perf report -D`'s dump of
// it): the records of that dump llvm-profgen reads, in perf's order — every
// process's MMAP2 events and every sample's pid, IP and data address
// (ADDR; 0 when the event does not sample it, as perf prints it).
func perfDataAccess(name string, bin *perfscript.Binary, syms *perfscript.DataAccessSymbols, base uint64, popts perfscript.Options) (map[perfscript.DataAccess]uint64, error) {
	r, err := perfdata.Open(name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	o := perfdata.NewOrdered(r)
	var mm perfscript.MMapEvent
	return perfscript.ParseDataAccessEvents(bin, syms, base, popts, func(ev *perfscript.DataAccessEvent) error {
		for {
			rec, err := nextRecord(o)
			if err != nil {
				return err
			}
			switch rec.Type {
			case perfdata.RecordMmap2:
				m := &rec.Mmap
				if m.Addr == 0 || m.Len == 0 {
					// perf prints them as "0", which llvm-profgen's
					// pattern does not take: not an mmap event for it.
					continue
				}
				mm = mmapEvent(rec)
				ev.MMap = &mm
				ev.File, ev.Section, ev.Offset = name, sectionMmap2, rec.Offset
				return nil
			case perfdata.RecordSample:
				s := &rec.Sample
				ev.PID, ev.IP, ev.Addr = int32(s.PID), s.IP, s.Addr
				if s.Attr.SampleType&perfdata.SampleTID == 0 {
					ev.PID = -1 // perf prints -1/-1: not a sample line for llvm-profgen
				}
				ev.File, ev.Section, ev.Offset = name, sectionSample, rec.Offset
				return nil
			}
		}
	})
}

// nextRecord is the next record in perf's order, ErrEndOfEvents after
// the last.
func nextRecord(o *perfdata.Ordered) (*perfdata.Record, error) {
	rec, err := o.NextRecord()
	if err == io.EOF {
		return nil, perfscript.ErrEndOfEvents
	}
	return rec, err
}

// mmapEvent is an mmap record as perf script and perf report -D print it.
func mmapEvent(rec *perfdata.Record) perfscript.MMapEvent {
	m := &rec.Mmap
	return perfscript.MMapEvent{PID: int32(m.PID), Address: m.Addr, Size: m.Len, Offset: m.PgOff, Prot: mmapProt(rec), Path: m.Filename}
}

// mmapProt is the protection perf script prints of an mmap event: "r-xp"
// and the like for MMAP2, "x" or "r" (a data mapping) for MMAP.
func mmapProt(rec *perfdata.Record) string {
	if rec.Type == perfdata.RecordMmap {
		if rec.Misc&perfdata.MiscMmapData != 0 {
			return "r"
		}
		return "x"
	}
	b := []byte("---p")
	for i, c := range []byte("rwx") {
		if rec.Mmap.Prot&(1<<i) != 0 {
			b[i] = c
		}
	}
	if rec.Mmap.Flags&1 != 0 { // MAP_SHARED
		b[3] = 's'
	}
	return string(b)
}

// perfDataProcesses is the first pass of convertPerfDataToTrace over
// perf.data: the processes whose mmap events map the binary (matched by
// file name, as llvm-profgen matches them), only pid when hasPID; and
// whether the samples carry call stacks (hybrid) besides branch stacks.
func perfDataProcesses(bin *perfscript.Binary, data string, pid int32, hasPID bool) (map[int32]bool, perfscript.Content, []perfdata.BuildID, error) {
	r, err := perfdata.Open(data)
	if err != nil {
		return nil, 0, nil, err
	}
	defer r.Close()
	r.SkipSamples = true
	pids := map[int32]bool{}
	var rec perfdata.Record
	for {
		err := r.Next(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, nil, err
		}
		if rec.Type != perfdata.RecordMmap && rec.Type != perfdata.RecordMmap2 {
			continue
		}
		p := int32(rec.Mmap.PID)
		if fileName(rec.Mmap.Filename) == bin.Name && (!hasPID || p == pid) {
			pids[p] = true
		}
	}
	content := branchContent(r.Attrs)
	if content == 0 {
		return nil, 0, nil, fmt.Errorf("%s: no event of this perf.data samples branch stacks: record with `perf record -b` (LBR), or `perf record -b --call-graph=fp` for a context-sensitive profile", data)
	}
	if len(pids) == 0 {
		return nil, 0, nil, fmt.Errorf("No relevant mmap event is found in perf data: no process of %s maps %s (matched by file name, as llvm-profgen does)", data, bin.Name)
	}
	return pids, content, r.BuildIDs, nil
}

// branchContent is what the events' samples hold: Hybrid if one samples
// branch stacks and callchains, LBR if one samples branch stacks, else 0.
func branchContent(attrs []*perfdata.Attr) perfscript.Content {
	content := perfscript.Content(0)
	for _, a := range attrs {
		if a.SampleType&perfdata.SampleBranchStack == 0 {
			continue
		}
		if content == 0 {
			content = perfscript.LBR
		}
		if a.SampleType&perfdata.SampleCallchain != 0 {
			content = perfscript.Hybrid
		}
	}
	return content
}

// fileName is the last element of a path, as llvm-profgen compares a
// mapping's file with the binary (the binary's name is perfscript's).
func fileName(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }
