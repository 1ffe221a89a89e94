package profmerge

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/instrprof"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
)

// Show writes the MemProf content of the profile at path to w: for a raw
// profile the text `llvm-profdata show --memory` of the release prints
// (symbolized against binary); for an indexed profile the YAML form LLVM
// 20+ prints; a YAML input is re-printed canonically.
func Show(w io.Writer, path, binary string, release int) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	switch Detect(data) {
	case KindMemProfRaw:
		raw, err := memprof.ReadRaw(path, data)
		if err != nil {
			return err
		}
		if binary == "" {
			return missingBinaryError([]*memprof.RawProfile{raw})
		}
		bin, err := elfsym.Open(binary, &elfsym.Options{DWARFOnly: true})
		if err != nil {
			return fmt.Errorf("profiled binary: %w", err)
		}
		defer bin.Close()
		return memprof.ShowRaw(w, raw, bin, memprof.ConvertOptions{LLVMRelease: release})
	case KindIndexed:
		f, err := instrprof.Read(path, data)
		if err != nil {
			return err
		}
		if f.Profile == nil {
			return fmt.Errorf("%s: indexed profile has no MemProf data", path)
		}
		return instrprof.WriteYAMLSchema(w, f.Profile, f.Schema, f.MemProfSummary)
	case KindMemProfYAML:
		p, err := instrprof.ReadYAML(path, data)
		if err != nil {
			return err
		}
		return instrprof.WriteYAML(w, p)
	}
	return errors.New(path + ": unrecognized profile format")
}

// SampleShowOptions are the options of `show --sample`.
type SampleShowOptions struct {
	sampleprof.ShowOptions
	// SectionInfoOnly prints the extbinary section table instead
	// (--show-sec-info-only); other encodings get a warning and nothing.
	SectionInfoOnly bool
	// AllFunctions (--all-functions) prints every profile even with a
	// Function, which it overrides with a warning.
	AllFunctions bool
	// Format is --show-format: "" or text, json (as --json), yaml (an
	// error for sample profiles, as in LLVM).
	Format string
	Warnf  func(format string, args ...any)
}

// ShowSample writes what `llvm-profdata show --sample` of release
// o.LLVM prints for the sample profile at path.
func ShowSample(w io.Writer, path string, o SampleShowOptions) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	enc := sampleprof.Detect(data)
	if enc == sampleprof.FormatUnknown {
		return errors.New(path + ": unrecognized sample profile encoding format")
	}
	switch o.Format {
	case "", "text":
	case "json":
		o.JSON = true
	case "yaml":
		return errors.New("YAML output is not supported for sample profiles")
	default:
		return fmt.Errorf("--show-format=%s: want text, json or yaml", o.Format)
	}
	if o.AllFunctions && o.HasFunction {
		o.Warnf("-function argument ignored: showing all functions")
		o.HasFunction = false
	}
	if o.JSON && o.HasFunction {
		return errors.New("the JSON format is supported only when all functions are to be printed (drop --function or give --all-functions)")
	}
	var out []byte
	if o.SectionInfoOnly {
		if enc != sampleprof.FormatExtBinary {
			o.Warnf("--show-sec-info-only is only supported for sample profile in extbinary format and is ignored for other formats")
			return nil
		}
		secs, err := sampleprof.ReadSections(path, data)
		if err != nil {
			return err
		}
		out = sampleprof.AppendSectionInfo(nil, secs, len(data))
	} else {
		p, err := sampleprof.Read(path, data, sampleprof.ReadOptions{LLVM: o.LLVM})
		if err != nil {
			return err
		}
		if o.SymbolList && len(p.SymbolList) == 0 {
			return errors.New(path + ": --show-prof-sym-list: the profile has no profile symbol list (llvm-profdata crashes here)")
		}
		out = p.AppendShow(nil, o.ShowOptions)
	}
	_, err = w.Write(out)
	return err
}
