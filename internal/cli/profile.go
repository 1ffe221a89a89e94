package cli

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// startProfiling starts the developer profiling hooks every tool has:
// RULES_PGO_CPUPROFILE=FILE writes a CPU profile of the whole run and
// RULES_PGO_MEMPROFILE=FILE a heap profile (allocations) at exit, both for
// `go tool pprof`, and RULES_PGO_TRACE=FILE an execution trace for `go tool
// trace`. The returned function stops and writes them.
func startProfiling(tool string) func() {
	cpu, mem := os.Getenv("RULES_PGO_CPUPROFILE"), os.Getenv("RULES_PGO_MEMPROFILE")
	var traceFile *os.File
	if name := os.Getenv("RULES_PGO_TRACE"); name != "" {
		f, err := os.Create(name)
		if err == nil {
			err = trace.Start(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: warning: RULES_PGO_TRACE: %v\n", tool, err)
		} else {
			traceFile = f
		}
	}
	var cpuFile *os.File
	if cpu != "" {
		f, err := os.Create(cpu)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: warning: RULES_PGO_CPUPROFILE: %v\n", tool, err)
		} else {
			cpuFile = f
		}
	}
	return func() {
		if traceFile != nil {
			trace.Stop()
			traceFile.Close()
		}
		if cpuFile != nil {
			pprof.StopCPUProfile()
			cpuFile.Close()
		}
		if mem != "" {
			f, err := os.Create(mem)
			if err == nil {
				runtime.GC()
				err = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: warning: RULES_PGO_MEMPROFILE: %v\n", tool, err)
			}
		}
	}
}
