package profgen

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

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
