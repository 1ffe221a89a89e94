package perfdata_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/perfdata"
	"github.com/rules-pgo/rules_pgo/internal/perfdata/perfdatatest"
)

// synthetic is a small perf.data of two events (with sample ids) and one of
// each record this package decodes, for round trips, bad input and the
// fuzzer's seeds. Its validity is checked where it matters, against perf:
// the LBR generator's tests run perf script on what perfdatatest writes.
func synthetic() (*perfdatatest.File, []perfdata.Sample) {
	st := perfdata.SampleIdentifier | perfdata.SampleIP | perfdata.SampleTID | perfdata.SampleTime |
		perfdata.SampleAddr | perfdata.SampleCPU | perfdata.SamplePeriod | perfdata.SampleCallchain | perfdata.SampleBranchStack
	a := &perfdata.Attr{Type: 1, SamplePeriod: 4000, SampleType: st, Flags: perfdata.AttrFlagSampleIDAll | perfdata.AttrFlagMmap2,
		BranchSampleType: perfdata.BranchHWIndex | 1, IDs: []uint64{7, 8}}
	b := perfdatatest.Clone(a, 9)
	b.BranchSampleType = 0
	f := &perfdatatest.File{Attrs: []*perfdata.Attr{a, b}}
	id := perfdata.SampleIDTrailer{PID: 10, TID: 11, Time: 5, ID: 7, CPU: 1}
	f.Records = append(f.Records,
		perfdatatest.Comm(a, perfdata.MiscCommExec, perfdata.Comm{PID: 10, TID: 10, Comm: "prog"}, id),
		perfdatatest.Mmap2(a, perfdata.MiscUser, perfdata.Mmap{PID: 10, TID: 10, Addr: 0x400000, Len: 0x2000, PgOff: 0x1000, Maj: 8, Min: 1, Ino: 99, Prot: 5, Flags: 2, Filename: "/bin/prog"}, id),
		perfdatatest.Mmap2(a, perfdata.MiscUser, perfdata.Mmap{PID: 10, TID: 10, Addr: 0x7f0000, Len: 0x1000, BuildID: []byte{1, 2, 3, 4}, Prot: 5, Filename: "/lib/libc.so"}, id),
		perfdatatest.Fork(a, perfdata.RecordFork, perfdata.Fork{PID: 10, PPID: 10, TID: 12, PTID: 10, Time: 6}, id),
	)
	samples := []perfdata.Sample{
		{Attr: a, ID: 7, IP: 0x401000, PID: 10, TID: 10, Time: 7, CPU: 1, Period: 4000,
			Callchain: []uint64{perfdata.ContextUser, 0x401000, 0x401100},
			Branches:  []perfdata.BranchEntry{{From: 0x401010, To: 0x401000, Flags: 1 << 4}, {From: 0x401200, To: 0x401008, Flags: 3}},
			HWIndex:   3, HasHWIndex: true},
		{Attr: b, ID: 9, IP: 0x401004, PID: 10, TID: 12, Time: 8, Period: 1},
	}
	for i := range samples {
		f.Records = append(f.Records, perfdatatest.Sample(samples[i].Attr, perfdata.MiscUser, &samples[i]))
	}
	f.Records = append(f.Records, perfdatatest.FinishedRound(),
		perfdatatest.Fork(a, perfdata.RecordExit, perfdata.Fork{PID: 10, PPID: 10, TID: 12, PTID: 10, Time: 9}, id),
		perfdatatest.Record(perfdata.RecordLost, 0, append(make([]byte, 16), perfdatatest.Trailer(a.SampleType, id)...)),
		perfdatatest.Record(perfdata.RecordType(200), 0, []byte("unknown")))
	f.BuildIDs = []perfdata.BuildID{{PID: -1, CPUMode: perfdata.MiscUser, BuildID: []byte{0xaa, 0xbb}, Filename: "/bin/prog"}}
	return f, samples
}

// compressed is perfdatatest.Compressed in chunks of 50 bytes.
func compressed(t testing.TB, f *perfdatatest.File) *perfdatatest.File {
	g, err := perfdatatest.Compressed(f, 50)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func readAll(data []byte) ([]perfdata.Record, *perfdata.Reader, error) {
	r, err := perfdata.NewReader(bytes.NewReader(data), "x.data")
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	var out []perfdata.Record
	for {
		var rec perfdata.Record
		err := r.Next(&rec)
		if err == io.EOF {
			return out, r, nil
		}
		if err != nil {
			return out, r, err
		}
		rec.Raw = nil
		out = append(out, rec)
	}
}

func TestSynthetic(t *testing.T) {
	f, samples := synthetic()
	for _, mode := range []struct {
		name string
		data []byte
	}{{"file", f.Bytes()}, {"pipe", f.PipeBytes()}, {"compressed", compressed(t, f).Bytes()}} {
		recs, r, err := readAll(mode.data)
		if err != nil {
			t.Fatalf("%s: %v", mode.name, err)
		}
		if len(r.Attrs) != 2 || len(r.BuildIDs) != 1 || r.BuildIDs[0].Filename != "/bin/prog" || !bytes.Equal(r.BuildIDs[0].BuildID, []byte{0xaa, 0xbb}) {
			t.Errorf("%s: attrs %d, build ids %+v", mode.name, len(r.Attrs), r.BuildIDs)
		}
		var got []perfdata.Sample
		types := ""
		for _, rec := range recs {
			types += rec.Type.String() + " "
			switch rec.Type {
			case perfdata.RecordSample:
				s := rec.Sample
				s.Attr = nil
				got = append(got, s)
			case perfdata.RecordMmap2:
				if rec.Mmap.Filename == "/lib/libc.so" && !bytes.Equal(rec.Mmap.BuildID, []byte{1, 2, 3, 4}) {
					t.Errorf("%s: mmap2 build id %x", mode.name, rec.Mmap.BuildID)
				}
				if rec.Mmap.Filename == "/bin/prog" && (rec.Mmap.Ino != 99 || rec.Mmap.PgOff != 0x1000 || rec.SampleID.TID != 11) {
					t.Errorf("%s: mmap2 %+v %+v", mode.name, rec.Mmap, rec.SampleID)
				}
			case perfdata.RecordComm:
				if rec.Comm.Comm != "prog" {
					t.Errorf("%s: comm %q", mode.name, rec.Comm.Comm)
				}
			}
		}
		const wantTypes = "PERF_RECORD_COMM PERF_RECORD_MMAP2 PERF_RECORD_MMAP2 PERF_RECORD_FORK PERF_RECORD_SAMPLE PERF_RECORD_SAMPLE PERF_RECORD_FINISHED_ROUND PERF_RECORD_EXIT PERF_RECORD_LOST PERF_RECORD_200 "
		if types != wantTypes {
			t.Errorf("%s: records %s", mode.name, types)
		}
		want := make([]perfdata.Sample, len(samples))
		for i, s := range samples {
			s.Attr = nil
			want[i] = s
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: samples\n got %+v\nwant %+v", mode.name, got, want)
		}
	}
}

// TestBadInput cuts the synthetic files at every byte and lies about
// every record's size: each read ends in a *decode.Error or, where perf
// accepts the input (a pipe cut between records), in io.EOF.
func TestBadInput(t *testing.T) {
	f, _ := synthetic()
	for _, mode := range []struct {
		name string
		data []byte
	}{{"file", f.Bytes()}, {"pipe", f.PipeBytes()}, {"compressed", compressed(t, f).Bytes()}} {
		for n := 0; n < len(mode.data); n++ {
			_, _, err := readAll(mode.data[:n])
			var de *decode.Error
			if mode.name == "pipe" && err == nil {
				continue
			}
			if !errors.As(err, &de) {
				t.Fatalf("%s cut at %d: %v, want a *decode.Error", mode.name, n, err)
			}
		}
		// Every 16-bit field a lie.
		for at := 0; at+2 <= len(mode.data); at += 2 {
			for _, v := range []uint16{0, 1, 8, 0xffff} {
				d := bytes.Clone(mode.data)
				d[at], d[at+1] = byte(v), byte(v>>8)
				_, _, err := readAll(d)
				var de *decode.Error
				if err != nil && !errors.As(err, &de) {
					t.Fatalf("%s, %#x at %d: %v, want a *decode.Error", mode.name, v, at, err)
				}
			}
		}
	}
	_, _, err := readAll([]byte("2ELIFREP\x68\x00\x00\x00\x00\x00\x00\x00"))
	if !errors.Is(err, decode.ErrUnsupportedVersion) || err.Error() != `x.data: perfdata: header at offset 0x0: byte-swapped magic 0x50455246494c4532: a big-endian perf.data, which this reader does not read` {
		t.Errorf("byte-swapped: %v", err)
	}
}

func FuzzRead(f *testing.F) {
	file, _ := synthetic()
	f.Add(file.Bytes())
	f.Add(file.PipeBytes())
	f.Add(compressed(f, file).Bytes())
	f.Add(compressed(f, file).PipeBytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, _, err := readAll(data)
		var de *decode.Error
		if err != nil && !errors.As(err, &de) {
			t.Fatalf("%v, want a *decode.Error", err)
		}
		// perf's order: the same records, the same end.
		r, rerr := perfdata.NewReader(bytes.NewReader(data), "x.data")
		if rerr != nil {
			return
		}
		defer r.Close()
		o := perfdata.NewOrdered(r)
		n := 0
		var rec perfdata.Record
		for {
			oerr := o.Next(&rec)
			if oerr == io.EOF {
				break
			}
			if oerr != nil {
				if err == nil {
					t.Fatalf("ordered: %v, unordered: no error", oerr)
				}
				return
			}
			n++
		}
		want := 0 // Ordered consumes the FINISHED_ROUND records
		for _, r := range recs {
			if r.Type != perfdata.RecordFinishedRound {
				want++
			}
		}
		if err == nil && n != want {
			t.Fatalf("ordered: %d records, unordered %d", n, want)
		}
	})
}

// TestDataAfterRecord: an AUXTRACE's trace follows the record outside its
// size; skipping it (here 200 KiB, more than a pipe's 64 KiB buffer, read
// through a reader that is not a *bytes.Reader) must leave the record's
// bytes, returned as a slice of the buffer, intact, and the records after
// it read.
func TestDataAfterRecord(t *testing.T) {
	f, _ := synthetic()
	const traceLen = 200 << 10
	body := binary.LittleEndian.AppendUint64(nil, traceLen)
	body = append(body, "offset, reference, idx, tid, cpu"...)
	aux := perfdatatest.Record(perfdata.RecordAuxtrace, 0, body)
	withTrace := append(bytes.Clone(aux), bytes.Repeat([]byte{0xee}, traceLen)...)
	f.Records = append([][]byte{withTrace}, f.Records...)
	for _, mode := range []struct {
		name string
		data []byte
	}{{"file", f.Bytes()}, {"pipe", f.PipeBytes()}} {
		for _, wrap := range []bool{false, true} {
			var in io.Reader = bytes.NewReader(mode.data)
			if wrap && mode.name == "pipe" {
				in = io.MultiReader(in) // a stream: the 64 KiB buffer
			}
			r, err := perfdata.NewReader(in, "x.data")
			if err != nil {
				t.Fatalf("%s: %v", mode.name, err)
			}
			var rec perfdata.Record
			if err := r.Next(&rec); err != nil || rec.Type != perfdata.RecordAuxtrace || !bytes.Equal(rec.Raw, aux) {
				t.Fatalf("%s (stream %v): first record %v %s %x, want AUXTRACE %x", mode.name, wrap, err, rec.Type, rec.Raw, aux)
			}
			n := 1
			for {
				err := r.Next(&rec)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%s (stream %v): record %d: %v", mode.name, wrap, n, err)
				}
				n++
			}
			if want := len(f.Records); n != want {
				t.Errorf("%s (stream %v): %d records, want %d", mode.name, wrap, n, want)
			}
		}
	}
}
