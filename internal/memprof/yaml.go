package memprof

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"gopkg.in/yaml.v3"
)

// The YAML MemProf profile (llvm/ProfileData/MemProfYAML.h) is what
// `llvm-profdata show --memory` prints for an indexed file in LLVM 20+ and
// what `llvm-profdata merge` accepts as input. The writer below produces the
// exact bytes of LLVM 22's yaml::Output: keys padded to 16 columns, frames
// as flow mappings, GUIDs as unpadded lowercase hex, MemInfoBlock fields in
// tag order, and a leading document of "# MemProfSummary" comment lines.

// WriteYAML writes p printing the MemInfoBlock fields of schema (in tag
// order), preceded by the summary comment document (none if sum is nil).
func WriteYAML(w io.Writer, p *Profile, schema []Meta, sum *Summary) error {
	bw := bufio.NewWriter(w)
	var present [MaxMeta + 1]bool
	for _, m := range schema {
		if m.Valid() {
			present[m] = true
		}
	}
	if sum != nil {
		sum.writeComment(bw)
	}
	if len(p.Records) == 0 {
		bw.WriteString("---\n{}\n")
	} else {
		bw.WriteString("---\nHeapProfileRecords:\n")
	}
	frames := func(indent string, fs []Frame) {
		for _, f := range fs {
			fmt.Fprintf(bw, "%s- { Function: %#x, LineOffset: %d, Column: %d, IsInlineFrame: %t }\n", indent, f.Function, f.LineOffset, f.Column, f.IsInlineFrame)
		}
	}
	for _, r := range p.Records {
		fmt.Fprintf(bw, "  - %s%#x\n", padKey("GUID"), r.GUID)
		if len(r.AllocSites) > 0 {
			bw.WriteString("    AllocSites:\n")
			for i := range r.AllocSites {
				a := &r.AllocSites[i]
				if len(a.CallStack) == 0 {
					fmt.Fprintf(bw, "      - %s[]\n", padKey("Callstack"))
				} else {
					bw.WriteString("      - Callstack:\n")
					frames("          ", a.CallStack)
				}
				bw.WriteString("        MemInfoBlock:\n")
				for m := Meta(1); m <= MaxMeta; m++ {
					if present[m] {
						fmt.Fprintf(bw, "          %s%d\n", padKey(m.String()), a.Info.Field(m))
					}
				}
			}
		}
		if len(r.CallSites) > 0 {
			bw.WriteString("    CallSites:\n")
			for _, c := range r.CallSites {
				if len(c.Frames) == 0 {
					fmt.Fprintf(bw, "      - %s[]\n", padKey("Frames"))
				} else {
					bw.WriteString("      - Frames:\n")
					frames("          ", c.Frames)
				}
				if len(c.CalleeGUIDs) > 0 {
					fmt.Fprintf(bw, "        %s[ ", padKey("CalleeGuids"))
					for i, g := range c.CalleeGUIDs {
						if i > 0 {
							bw.WriteString(", ")
						}
						fmt.Fprintf(bw, "%#x", g)
					}
					bw.WriteString(" ]\n")
				}
			}
		}
	}
	bw.WriteString("...\n")
	return bw.Flush()
}

// padKey returns "key:" followed by the padding yaml::Output uses: enough
// spaces to reach column 17, at least one.
func padKey(k string) string {
	if len(k) < 16 {
		return k + ":" + strings.Repeat(" ", 16-len(k))
	}
	return k + ": "
}

// ReadYAML parses a YAML MemProf profile. Records keep document order (the
// first record of a repeated GUID wins, as in LLVM); Frames and CallStacks
// get the order in which LLVM's YAML reader registers them, so Write
// reproduces llvm-profdata's output for the same YAML. The data-access
// profile part is accepted and ignored. Errors are *decode.Error values
// (Section "YAML", Offset the byte offset of the offending node) wrapping
// decode.ErrMalformed, or decode.ErrTruncated for an input without a
// document.
func ReadYAML(name string, data []byte) (*Profile, error) {
	// llvm-profdata show prints the summary as a comment-only document
	// first; like LLVM, skip documents without content.
	var doc yaml.Node
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	for {
		doc = yaml.Node{}
		if err := dec.Decode(&doc); err != nil {
			if err == io.EOF {
				return nil, &decode.Error{Format: "memprof", File: name, Section: "YAML", Offset: int64(len(data)), Msg: "empty YAML document", Err: decode.ErrTruncated}
			}
			return nil, yamlSyntaxError(name, data, err)
		}
		if len(doc.Content) > 0 && !(doc.Content[0].Kind == yaml.ScalarNode && doc.Content[0].Tag == "!!null") {
			break
		}
	}
	y := &yamlReader{name: name, data: data, prof: &Profile{}, frameSeen: map[Frame]bool{}, stackSeen: map[string]bool{}, recSeen: map[uint64]bool{}}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, y.errf(root, "expected a mapping with HeapProfileRecords")
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "HeapProfileRecords":
			if err := y.records(v); err != nil {
				return nil, err
			}
		case "DataAccessProfiles":
		default:
			return nil, y.errf(k, "unknown key %q", k.Value)
		}
	}
	return y.prof, nil
}

type yamlReader struct {
	name      string
	data      []byte
	prof      *Profile
	frameSeen map[Frame]bool
	stackSeen map[string]bool
	recSeen   map[uint64]bool
}

// errf returns the *decode.Error of a problem at node n: Section "YAML",
// Offset the node's byte offset, the message prefixed with its line and
// column.
func (y *yamlReader) errf(n *yaml.Node, format string, args ...any) error {
	return &decode.Error{Format: "memprof", File: y.name, Section: "YAML", Offset: lineOffset(y.data, n.Line, n.Column),
		Msg: fmt.Sprintf("line %d column %d: %s", n.Line, n.Column, fmt.Sprintf(format, args...)), Err: decode.ErrMalformed}
}

var yamlErrorLine = regexp.MustCompile(`^yaml: line (\d+): `)

// yamlSyntaxError turns an error of the YAML parser ("yaml: line N: ...")
// into a *decode.Error at the start of that line.
func yamlSyntaxError(name string, data []byte, err error) error {
	msg := err.Error()
	line := 0
	if m := yamlErrorLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = fmt.Sprintf("line %d: %s", line, msg[len(m[0]):])
	}
	return &decode.Error{Format: "memprof", File: name, Section: "YAML", Offset: lineOffset(data, line, 1), Msg: msg, Err: decode.ErrMalformed}
}

// lineOffset returns the byte offset of 1-based line and column in data
// (clamped to data).
func lineOffset(data []byte, line, column int) int64 {
	off := 0
	for l := 1; l < line && off < len(data); l++ {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return int64(len(data))
		}
		off += i + 1
	}
	return int64(min(off+max(column-1, 0), len(data)))
}

func (y *yamlReader) records(n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode {
		return y.errf(n, "HeapProfileRecords must be a sequence")
	}
	for _, rn := range n.Content {
		if rn.Kind != yaml.MappingNode {
			return y.errf(rn, "record must be a mapping")
		}
		r := &Record{}
		hasGUID := false
		for i := 0; i+1 < len(rn.Content); i += 2 {
			k, v := rn.Content[i], rn.Content[i+1]
			var err error
			switch k.Value {
			case "GUID":
				r.GUID, err = y.guid(v)
				hasGUID = true
			case "AllocSites":
				err = y.allocSites(v, r)
			case "CallSites":
				err = y.callSites(v, r)
			default:
				err = y.errf(k, "unknown key %q", k.Value)
			}
			if err != nil {
				return err
			}
		}
		if !hasGUID {
			return y.errf(rn, "missing required key 'GUID'")
		}
		if !y.recSeen[r.GUID] {
			y.recSeen[r.GUID] = true
			y.prof.Records = append(y.prof.Records, r)
		}
	}
	return nil
}

// guid parses a GUIDHex64: 0x-prefixed hex, or a function name; all-decimal
// values are rejected as in LLVM.
func (y *yamlReader) guid(n *yaml.Node) (uint64, error) {
	if n.Kind != yaml.ScalarNode {
		return 0, y.errf(n, "expected a GUID")
	}
	s := n.Value
	if s != "" && strings.Trim(s, "0123456789") == "" {
		return 0, y.errf(n, "use a hexadecimal GUID or a function instead")
	}
	if len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X") {
		v, err := strconv.ParseUint(s[2:], 16, 64)
		if err != nil {
			return 0, y.errf(n, "invalid hex64 number")
		}
		return v, nil
	}
	return llvmname.GUID(llvmname.Canonical(s)), nil
}

func (y *yamlReader) uint(n *yaml.Node, bits int) (uint64, error) {
	if n.Kind != yaml.ScalarNode {
		return 0, y.errf(n, "expected an unsigned integer")
	}
	// Like StringRef::getAsInteger with radix 0: 0x, 0b, 0o and 0-prefixed
	// octal are accepted; Go's digit separators are not.
	v, err := strconv.ParseUint(n.Value, 0, bits)
	if err != nil || strings.Contains(n.Value, "_") {
		return 0, y.errf(n, "invalid number %q", n.Value)
	}
	return v, nil
}

func (y *yamlReader) frames(n *yaml.Node) ([]Frame, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, y.errf(n, "expected a sequence of frames")
	}
	fs := make([]Frame, 0, len(n.Content))
	for _, fn := range n.Content {
		if fn.Kind != yaml.MappingNode {
			return nil, y.errf(fn, "frame must be a mapping")
		}
		var f Frame
		var seen [4]bool
		for i := 0; i+1 < len(fn.Content); i += 2 {
			k, v := fn.Content[i], fn.Content[i+1]
			var err error
			var x uint64
			switch k.Value {
			case "Function":
				f.Function, err = y.guid(v)
				seen[0] = true
			case "LineOffset":
				x, err = y.uint(v, 32)
				f.LineOffset = uint32(x)
				seen[1] = true
			case "Column":
				x, err = y.uint(v, 32)
				f.Column = uint32(x)
				seen[2] = true
			case "IsInlineFrame":
				// llvm::yaml::parseBool's spellings.
				switch v.Value {
				case "y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE":
					f.IsInlineFrame = true
				case "n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE":
				default:
					err = y.errf(v, "invalid boolean %q", v.Value)
				}
				seen[3] = true
			default:
				err = y.errf(k, "unknown key %q", k.Value)
			}
			if err != nil {
				return nil, err
			}
		}
		for i, key := range []string{"Function", "LineOffset", "Column", "IsInlineFrame"} {
			if !seen[i] {
				return nil, y.errf(fn, "missing required key '%s'", key)
			}
		}
		fs = append(fs, f)
	}
	return fs, nil
}

// addStack registers a stack's frames and the stack itself in first-seen
// order, as LLVM's YAML reader does.
func (y *yamlReader) addStack(fs []Frame) {
	for _, f := range fs {
		if !y.frameSeen[f] {
			y.frameSeen[f] = true
			y.prof.Frames = append(y.prof.Frames, f)
		}
	}
	if key := frameKey(fs); !y.stackSeen[key] {
		y.stackSeen[key] = true
		y.prof.CallStacks = append(y.prof.CallStacks, fs)
	}
}

func (y *yamlReader) allocSites(n *yaml.Node, r *Record) error {
	if n.Kind != yaml.SequenceNode {
		return y.errf(n, "AllocSites must be a sequence")
	}
	for _, an := range n.Content {
		if an.Kind != yaml.MappingNode {
			return y.errf(an, "alloc site must be a mapping")
		}
		var a AllocationInfo
		var haveStack, haveMIB bool
		for i := 0; i+1 < len(an.Content); i += 2 {
			k, v := an.Content[i], an.Content[i+1]
			switch k.Value {
			case "Callstack":
				fs, err := y.frames(v)
				if err != nil {
					return err
				}
				a.CallStack, haveStack = fs, true
			case "MemInfoBlock":
				if v.Kind != yaml.MappingNode {
					return y.errf(v, "MemInfoBlock must be a mapping")
				}
				for j := 0; j+1 < len(v.Content); j += 2 {
					mk, mv := v.Content[j], v.Content[j+1]
					m := MetaByName(mk.Value)
					if m == 0 {
						return y.errf(mk, "Key is not a valid validation event")
					}
					x, err := y.uint(mv, 64)
					if err != nil {
						return err
					}
					a.Info.SetField(m, x)
				}
				haveMIB = true
			default:
				return y.errf(k, "unknown key %q", k.Value)
			}
		}
		if !haveStack || !haveMIB {
			return y.errf(an, "alloc site needs Callstack and MemInfoBlock")
		}
		y.addStack(a.CallStack)
		r.AllocSites = append(r.AllocSites, a)
	}
	return nil
}

func (y *yamlReader) callSites(n *yaml.Node, r *Record) error {
	if n.Kind != yaml.SequenceNode {
		return y.errf(n, "CallSites must be a sequence")
	}
	for _, cn := range n.Content {
		var c CallSite
		switch cn.Kind {
		case yaml.SequenceNode: // LLVM 20 form: a bare list of frames
			fs, err := y.frames(cn)
			if err != nil {
				return err
			}
			c.Frames = fs
		case yaml.MappingNode:
			haveFrames := false
			for i := 0; i+1 < len(cn.Content); i += 2 {
				k, v := cn.Content[i], cn.Content[i+1]
				switch k.Value {
				case "Frames":
					fs, err := y.frames(v)
					if err != nil {
						return err
					}
					c.Frames, haveFrames = fs, true
				case "CalleeGuids":
					if v.Kind != yaml.SequenceNode {
						return y.errf(v, "CalleeGuids must be a sequence")
					}
					for _, g := range v.Content {
						x, err := y.guid(g)
						if err != nil {
							return err
						}
						c.CalleeGUIDs = append(c.CalleeGUIDs, x)
					}
				default:
					return y.errf(k, "unknown key %q", k.Value)
				}
			}
			if !haveFrames {
				return y.errf(cn, "missing required key 'Frames'")
			}
		default:
			return y.errf(cn, "call site must be a mapping")
		}
		y.addStack(c.Frames)
		r.CallSites = append(r.CallSites, c)
	}
	return nil
}
