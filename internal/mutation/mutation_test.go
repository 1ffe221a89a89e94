package mutation

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rules-pgo/rules_pgo/internal/perfscript/tracetest"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

var (
	bigSet = flag.Bool("big", false, "run every structural mutant and four seeds of random ones (minutes)")
	update = flag.Bool("update", false, "rewrite testdata/divergences/*.tsv from this run (new rows get an empty reason to fill in)")
)

// fixtures builds testdata/gen.sh's files once (testenv.Cached), keyed by
// the script, the sources, the LLVM tools' versions and lbr-trace itself.
func fixtures(t *testing.T) string {
	t.Helper()
	tools := []string{"clang-22", "clang++-22", "llvm-profdata-22", "llvm-profgen-22", "ld.lld-19", "qemu-x86_64"}
	var inputs []string
	for _, tool := range tools {
		inputs = append(inputs, testenv.Version(t, tool))
	}
	tracer := tracetest.Tracer(t)
	tracerData, err := os.ReadFile(tracer)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(tracerData)
	inputs = append(inputs, "lbr-trace "+hex.EncodeToString(sum[:]))
	sources := []string{"gen.sh", "prog.c", "heap.cc"}
	texts := map[string][]byte{}
	for _, s := range sources {
		b, err := os.ReadFile(filepath.Join("testdata", s))
		if err != nil {
			t.Fatal(err)
		}
		texts[s] = b
		inputs = append(inputs, s, string(b))
	}
	return testenv.Cached(t, "mutation-fixtures", inputs, func(dir string) error {
		src := filepath.Join(dir, "src")
		if err := os.Mkdir(src, 0o755); err != nil {
			return err
		}
		for _, s := range sources {
			if err := os.WriteFile(filepath.Join(src, s), texts[s], 0o644); err != nil {
				return err
			}
		}
		out, err := exec.Command("bash", filepath.Join(src, "gen.sh"), dir, tracer).CombinedOutput()
		if err != nil {
			return fmt.Errorf("gen.sh: %v\n%s", err, out)
		}
		return nil
	})
}

// buildTools builds merge, profgen and symbolize into a temporary directory.
func buildTools(t *testing.T) string {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(here), "..", "..")
	bin := t.TempDir()
	cmd := exec.Command(testenv.Tool(t, "go"), "build", "-o", bin+"/", "./tools/merge", "./tools/profgen", "./tools/symbolize")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// reader is one reader under test: its fixture, where its mutants are
// interesting, and the two commands that read a mutant.
type reader struct {
	name, fixture string
	layout        func([]byte) layout
	// nStruct and nRandom size the CI set (mutantSet); pinned mutants are
	// always run: those that show a decision or a fix.
	nStruct, nRandom int
	pinned           []string
	// ours and llvm return the command lines reading in and writing out
	// (bin is where our tools are).
	ours, llvm func(bin, in, out string) []string
	// outcome classifies a run (outcomeFile unless set).
	outcome func(r run) string
}

// run is one finished command.
type run struct {
	code    int // exit code, -1 when killed by a signal
	signal  bool
	timeout bool
	stdout  []byte
	stderr  []byte
	out     string // the output file it was asked to write
}

func readers(fx string) []reader {
	fxp := func(name string) string { return filepath.Join(fx, name) }
	sampleMerge := func(bin, in, out string) []string {
		return []string{bin + "/merge", "--sample", "--text", "--llvm-version", "22", "-o", out, in}
	}
	llvmSampleMerge := func(_, in, out string) []string {
		return []string{"llvm-profdata-22", "merge", "--sample", "--text", "-o", out, in}
	}
	merge := func(bin, in, out string) []string {
		return []string{bin + "/merge", "--llvm-version", "22", "-o", out, in}
	}
	llvmMerge := func(_, in, out string) []string { return []string{"llvm-profdata-22", "merge", "-o", out, in} }
	memMerge := func(bin, in, out string) []string {
		return []string{bin + "/merge", "--llvm-version", "22", "--profiled-binary", fxp("heap"), "-o", out, in}
	}
	llvmMemMerge := func(_, in, out string) []string {
		return []string{"llvm-profdata-22", "merge", "--profiled-binary", fxp("heap"), "-o", out, in}
	}
	profgen := func(bin, in, out string) []string {
		return []string{bin + "/profgen", "--llvm-version", "22", "--perfscript=" + in, "--binary=" + fxp("prog"), "--format=text", "-o", out}
	}
	llvmProfgen := func(_, in, out string) []string {
		return []string{"llvm-profgen-22", "--perfscript=" + in, "--binary=" + fxp("prog"), "--format=text", "--output=" + out}
	}
	addrs := symbolizeAddrs(fxp("prog"))
	symbolize := func(bin, in, _ string) []string {
		return append([]string{bin + "/symbolize", "--obj=" + in}, addrs...)
	}
	llvmSymbolize := func(_, in, _ string) []string {
		return append([]string{"llvm-symbolizer-22", "--obj=" + in}, addrs...)
	}
	return []reader{
		{name: "sample-text", fixture: "prog.txt", layout: func(b []byte) layout { return textLayout(b, decimalRE, "num") },
			nStruct: 18, nRandom: 9, ours: sampleMerge, llvm: llvmSampleMerge},
		{name: "sample-binary", fixture: "prog.binary", layout: sampleBinaryLayout,
			nStruct: 18, nRandom: 9, pinned: []string{"uleb@0xce"}, ours: sampleMerge, llvm: llvmSampleMerge},
		{name: "sample-extbinary", fixture: "prog.extbinary", layout: extBinaryLayout,
			nStruct: 20, nRandom: 9, pinned: []string{"u64@0x62:max"}, ours: sampleMerge, llvm: llvmSampleMerge},
		{name: "sample-extbinary-z", fixture: "prog.extbinary-z", layout: extBinaryLayout,
			nStruct: 20, nRandom: 9, pinned: []string{"flip@0x38:eb", "flip@0x14b:ff"}, ours: sampleMerge, llvm: llvmSampleMerge},
		{name: "profraw", fixture: "prog.profraw", layout: profrawLayout,
			nStruct: 20, nRandom: 9, pinned: []string{"flip@0xa0:ff", "u64@0x70:max"}, ours: merge, llvm: llvmMerge},
		{name: "indexed", fixture: "prog.profdata", layout: indexedLayout,
			nStruct: 20, nRandom: 9, pinned: []string{"flip@0x1c:ff", "u64@0x18:2^32", "u64@0x3c8:2^32", "u64@0x40:max"}, ours: merge, llvm: llvmMerge},
		{name: "memprofraw", fixture: "heap.memprofraw", layout: memprofLayout,
			nStruct: 18, nRandom: 9, pinned: []string{"u64@0x238:2^32"}, ours: memMerge, llvm: llvmMemMerge},
		{name: "perfscript", fixture: "prog.lbr.script", layout: perfScriptLayout,
			nStruct: 18, nRandom: 9, ours: profgen, llvm: llvmProfgen},
		{name: "elf", fixture: "prog", layout: elfLayout,
			nStruct: 24, nRandom: 12, pinned: []string{"flip@0x155f:2c", "flip@0x19b0:ff", "flip@0xcc3:ff", "flip@0x1134:ff", "u64@0x2190:2^32"}, ours: symbolize, llvm: llvmSymbolize, outcome: outcomeSymbolize},
	}
}

// symbolizeAddrs returns the addresses symbolize is asked about: a few
// bytes into each of the program's functions, and one outside them.
func symbolizeAddrs(bin string) []string {
	f, err := elf.Open(bin)
	if err != nil {
		return []string{"0x0"}
	}
	defer f.Close()
	syms, _ := f.Symbols()
	var out []string
	for _, s := range syms {
		switch s.Name {
		case "main", "collatz", "classify", "twice":
			out = append(out, fmt.Sprintf("%#x", s.Value+4))
		}
	}
	sort.Strings(out)
	return append(out, "0x10")
}

// outcomeFile: "ok" for exit 0 with a non-empty output file, "ok-empty"
// for exit 0 without one, "error" for a non-zero exit, and "crash",
// "hang" or "panic" (a Go panic) for what must never happen to ours.
func outcomeFile(r run) string {
	if s := abnormal(r); s != "" {
		return s
	}
	if r.code != 0 {
		return "error"
	}
	if st, err := os.Stat(r.out); err != nil || st.Size() == 0 {
		return "ok-empty"
	}
	return "ok"
}

func abnormal(r run) string {
	switch {
	case r.timeout:
		return "hang"
	case r.signal:
		return "crash"
	case bytes.Contains(r.stderr, []byte("panic: ")) || bytes.Contains(r.stderr, []byte("goroutine ")):
		return "panic"
	}
	return ""
}

// outcomeSymbolize: exit status, then per address whether a function is
// named ("f" or "?") and whether a line is ("l" or "?"): "ok f? l? ...".
func outcomeSymbolize(r run) string {
	if s := abnormal(r); s != "" {
		return s
	}
	if r.code != 0 {
		return "error"
	}
	var b strings.Builder
	b.WriteString("ok")
	lines := strings.Split(strings.TrimRight(string(r.stdout), "\n"), "\n")
	fn := true
	for _, l := range lines {
		switch {
		case l == "":
			fn = true
		case fn:
			fn = false
			if l == "??" {
				b.WriteString(" ?")
			} else {
				b.WriteString(" f")
			}
		case strings.HasPrefix(l, "??:0") || strings.HasSuffix(l, ":0:0"):
			b.WriteString("?")
			fn = true // an inlined frame's function follows
		default:
			b.WriteString("l")
			fn = true
		}
	}
	return b.String()
}

// exec runs argv with a time limit and returns what happened.
func execute(argv []string, out string) run {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	// A crashing LLVM tool would otherwise run llvm-symbolizer on its
	// own backtrace, which costs a second per crash.
	cmd.Env = append(os.Environ(), "LLVM_DISABLE_SYMBOLIZATION=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := run{stdout: stdout.Bytes(), stderr: stderr.Bytes(), out: out}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.timeout = true
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.signal = true
		}
	case err != nil:
		r.code = -1
		r.stderr = append(r.stderr, err.Error()...)
	}
	return r
}

// class is what outcomes are compared by: a crash is a rejection (an LLVM
// tool that reads past its buffer crashes or fails depending on what lies
// there, so the two cannot be told apart from one run to the next).
func class(outcome string) string {
	if outcome == "crash" {
		return "error"
	}
	return outcome
}

// reasonRE is a row's reason: a tag naming the decision (the subtest's
// name), a colon, and why.
var reasonRE = regexp.MustCompile(`^([A-Z][A-Za-z0-9]+): \S`)

// reasonTag returns a reason's tag ("NoReason" when it has none).
func reasonTag(reason string) string {
	if m := reasonRE.FindStringSubmatch(reason); m != nil {
		return m[1]
	}
	return "NoReason"
}

// row is one line of a divergence table.
type row struct {
	mutant, seed, ours, llvm, reason string
}

const tableHeader = "# Divergences of this reader from the LLVM 22 tool (internal/mutation; go test ./internal/mutation [-big] -update).\n" +
	"# ours, llvm: ok, ok-empty, error, crash, hang; symbolize: ok then per address f or ? (function) and l or ? (line).\n" +
	"# reason: Tag: why (the tag names the subtest).\n" +
	"# mutant\tseed\tours\tllvm\treason\n"

func tablePath(reader string) string {
	return filepath.Join("testdata", "divergences", reader+".tsv")
}

// readTable reads testdata/divergences/<reader>.tsv (absent: empty).
func readTable(t *testing.T, reader string) map[string]row {
	t.Helper()
	rows := map[string]row{}
	data, err := os.ReadFile(tablePath(reader))
	if errors.Is(err, os.ErrNotExist) {
		return rows
	} else if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "\t", 5)
		if len(f) < 4 {
			t.Fatalf("%s:%d: want mutant, seed, ours, llvm, reason separated by tabs: %q", tablePath(reader), n, line)
		}
		r := row{mutant: f[0], seed: f[1], ours: f[2], llvm: f[3]}
		if len(f) == 5 {
			r.reason = strings.TrimSpace(f[4])
		}
		if _, dup := rows[r.mutant]; dup {
			t.Errorf("%s:%d: %s listed twice", tablePath(reader), n, r.mutant)
		}
		rows[r.mutant] = r
	}
	return rows
}

func writeTable(t *testing.T, reader string, rows map[string]row) {
	t.Helper()
	var keys []string
	for k := range rows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(tableHeader)
	for _, k := range keys {
		r := rows[k]
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\n", r.mutant, r.seed, r.ours, r.llvm, r.reason)
	}
	if err := os.MkdirAll(filepath.Dir(tablePath(reader)), 0o755); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		os.Remove(tablePath(reader))
		return
	}
	if err := os.WriteFile(tablePath(reader), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMutations: every mutant's outcome under our tool and under the LLVM
// tool of the same job agree, or the divergence is listed with its reason
// in testdata/divergences/<reader>.tsv (see the package doc).
func TestMutations(t *testing.T) {
	for _, tool := range []string{"llvm-profdata-22", "llvm-profgen-22", "llvm-symbolizer-22"} {
		testenv.Tool(t, tool)
	}
	fx := fixtures(t)
	bin := buildTools(t)
	tmp := t.TempDir()
	total, diverged := 0, 0
	for _, rd := range readers(fx) {
		t.Run(rd.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(fx, rd.fixture))
			if err != nil {
				t.Fatal(err)
			}
			outcome := rd.outcome
			if outcome == nil {
				outcome = outcomeFile
			}
			try := func(name string, in []byte) (ours, llvm string, oursRun, llvmRun run) {
				inPath := filepath.Join(tmp, rd.name+"-"+strings.NewReplacer("@", "-", ":", "-", "^", "").Replace(name))
				if err := os.WriteFile(inPath, in, 0o644); err != nil {
					t.Fatal(err)
				}
				defer os.Remove(inPath)
				o1, o2 := inPath+".ours.out", inPath+".llvm.out"
				defer os.Remove(o1)
				defer os.Remove(o2)
				oursRun = execute(rd.ours(bin, inPath, o1), o1)
				ours = outcome(oursRun)
				llvmRun = execute(rd.llvm(bin, inPath, o2), o2)
				llvm = outcome(llvmRun)
				return
			}
			// The fixture itself reads everywhere.
			if ours, llvm, r, _ := try("orig", data); ours != llvm || !strings.HasPrefix(ours, "ok") {
				t.Fatalf("the unmutated fixture: ours %s, LLVM %s\n%s", ours, llvm, r.stderr)
			}
			table := readTable(t, rd.name)
			newRows := map[string]row{}
			for id, r := range table {
				newRows[id] = r // rows of mutants this run does not make stay
			}
			ms, unknown := mutantSet(rd.name, data, rd.layout(data), rd.nStruct, rd.nRandom, rd.pinned, *bigSet)
			for _, id := range unknown {
				t.Errorf("%s: pinned mutant %s names no mutant of %s", rd.name, id, rd.fixture)
			}
			for _, m := range ms {
				total++
				ours, llvm, oursRun, llvmRun := try(m.id, m.data)
				if ours == "panic" || ours == "hang" || ours == "crash" {
					t.Errorf("%s %s: ours %s (never allowed)\n%s", rd.name, m.id, ours, oursRun.stderr)
				}
				listed, isListed := table[m.id]
				check := func(t *testing.T) {
					switch {
					case class(ours) == class(llvm) && isListed:
						t.Errorf("%s %s is listed as diverging (ours %s, LLVM %s) but both now say %s: drop the row (-update)", rd.name, m.id, listed.ours, listed.llvm, ours)
						delete(newRows, m.id)
					case class(ours) == class(llvm):
					case !isListed:
						diverged++
						t.Errorf("%s %s (seed %s): ours %s, LLVM %s: a new divergence; match LLVM or list it with its reason in %s\nours: %s\nLLVM: %s",
							rd.name, m.id, m.seed, ours, llvm, tablePath(rd.name), firstLine(oursRun.stderr), firstLine(llvmRun.stderr))
						newRows[m.id] = row{mutant: m.id, seed: m.seed, ours: ours, llvm: llvm}
					case class(listed.ours) != class(ours) || class(listed.llvm) != class(llvm):
						diverged++
						t.Errorf("%s %s: listed as ours %s, LLVM %s; now ours %s, LLVM %s: check the reason and update the row\nours: %s\nLLVM: %s",
							rd.name, m.id, listed.ours, listed.llvm, ours, llvm, firstLine(oursRun.stderr), firstLine(llvmRun.stderr))
						newRows[m.id] = row{mutant: m.id, seed: m.seed, ours: ours, llvm: llvm, reason: listed.reason}
					default:
						diverged++
					}
				}
				if isListed {
					// A listed divergence runs as a subtest named by its
					// reason's tag: the decision is in the test's name.
					t.Run(reasonTag(listed.reason)+"/"+m.id, check)
				} else {
					check(t)
				}
			}
			if *update {
				writeTable(t, rd.name, newRows)
			}
			for id, r := range table {
				if _, ok := fromID(data, id, r.seed); !ok {
					t.Errorf("%s: %s in %s names no mutant of %s", rd.name, id, tablePath(rd.name), rd.fixture)
				}
				if !reasonRE.MatchString(r.reason) {
					t.Errorf("%s %s: the row in %s has no reason; write one as 'Tag: why' (Tag names the decision: LLVMCrashes, PendingHCompress, ...)", rd.name, id, tablePath(rd.name))
				}
			}
		})
	}
	t.Logf("%d mutants, %d listed divergences", total, diverged)
}

// firstLine returns the first line of a tool's stderr that is not a
// warning (the error, or the crash banner), else the first line.
func firstLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for _, l := range lines {
		if !strings.Contains(l, "warning:") {
			return l
		}
	}
	return lines[0]
}
