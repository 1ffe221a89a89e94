package profmerge

import (
	"errors"

	"github.com/rules-pgo/rules_pgo/internal/cli"
	"github.com/rules-pgo/rules_pgo/internal/instrprof"
)

// checkInstrShowFormat refuses what llvm-profdata show refuses for an
// instrumentation profile before it reads it: --show-format=json (or
// --json) and yaml, with its words (every release), and --show-vtables
// before LLVM 19, which has no such option.
func checkInstrShowFormat(so SampleShowOptions, o instrprof.ShowOptions) error {
	switch {
	case so.JSON || so.Format == "json":
		return errors.New("JSON output is not supported for instr profiles")
	case so.Format == "yaml":
		return errors.New("YAML output is not supported for instr profiles")
	case so.Format != "" && so.Format != "text":
		return cli.Usagef("--show-format=%s: want text, json or yaml", so.Format)
	case o.VTables && !o.Release.HasVTableValueProfiles():
		return cli.Usagef("--show-vtables: llvm-profdata %d has no vtable profiles (19 and later); use --llvm-version 19 or 22", o.Release)
	}
	return nil
}
