package perfdata

import "fmt"

// SampleType is perf_event_attr.sample_type: which fields a SAMPLE record
// holds, in the order of the bits.
type SampleType uint64

// The PERF_SAMPLE_* bits.
const (
	SampleIP            SampleType = 1 << 0
	SampleTID           SampleType = 1 << 1
	SampleTime          SampleType = 1 << 2
	SampleAddr          SampleType = 1 << 3
	SampleRead          SampleType = 1 << 4
	SampleCallchain     SampleType = 1 << 5
	SampleID            SampleType = 1 << 6
	SampleCPU           SampleType = 1 << 7
	SamplePeriod        SampleType = 1 << 8
	SampleStreamID      SampleType = 1 << 9
	SampleRaw           SampleType = 1 << 10
	SampleBranchStack   SampleType = 1 << 11
	SampleRegsUser      SampleType = 1 << 12
	SampleStackUser     SampleType = 1 << 13
	SampleWeight        SampleType = 1 << 14
	SampleDataSrc       SampleType = 1 << 15
	SampleIdentifier    SampleType = 1 << 16
	SampleTransaction   SampleType = 1 << 17
	SampleRegsIntr      SampleType = 1 << 18
	SamplePhysAddr      SampleType = 1 << 19
	SampleAux           SampleType = 1 << 20
	SampleCgroup        SampleType = 1 << 21
	SampleDataPageSize  SampleType = 1 << 22
	SampleCodePageSize  SampleType = 1 << 23
	SampleWeightStruct  SampleType = 1 << 24
	sampleTypeKnownBits SampleType = 1<<25 - 1
)

// ReadFormat is perf_event_attr.read_format: the layout of a READ value.
type ReadFormat uint64

// The PERF_FORMAT_* bits.
const (
	FormatTotalTimeEnabled ReadFormat = 1 << 0
	FormatTotalTimeRunning ReadFormat = 1 << 1
	FormatID               ReadFormat = 1 << 2
	FormatGroup            ReadFormat = 1 << 3
	FormatLost             ReadFormat = 1 << 4
)

// The PERF_SAMPLE_BRANCH_* bits of branch_sample_type that change the
// record's layout.
const (
	BranchHWIndex  uint64 = 1 << 17 // a u64 hw_idx before the entries
	BranchCounters uint64 = 1 << 19 // a u64 of counters after the entries, one per entry
)

// Attr flag bits (the bit field after read_format) that this package reads.
const (
	AttrFlagSampleIDAll uint64 = 1 << 18
	AttrFlagMmap2       uint64 = 1 << 23
)

// Attr is one event's perf_event_attr (the fields this package reads) and
// the sample ids perf assigned to it.
type Attr struct {
	Type             uint32
	Size             uint32 // as stored (0 means the first version, 64 bytes)
	Config           uint64
	SamplePeriod     uint64 // or the frequency, when Freq
	SampleType       SampleType
	ReadFormat       ReadFormat
	Flags            uint64
	BranchSampleType uint64
	SampleRegsUser   uint64
	SampleStackUser  uint32
	SampleRegsIntr   uint64
	IDs              []uint64
}

// Freq reports whether SamplePeriod is a frequency (perf record -F).
func (a *Attr) Freq() bool { return a.Flags&(1<<10) != 0 }

// SampleIDAll reports whether non-sample records carry the sample id
// trailer.
func (a *Attr) SampleIDAll() bool { return a.Flags&AttrFlagSampleIDAll != 0 }

// RecordType is perf_event_header.type.
type RecordType uint32

// The record types: the kernel's PERF_RECORD_* and perf's own (64 and up).
const (
	RecordMmap            RecordType = 1
	RecordLost            RecordType = 2
	RecordComm            RecordType = 3
	RecordExit            RecordType = 4
	RecordThrottle        RecordType = 5
	RecordUnthrottle      RecordType = 6
	RecordFork            RecordType = 7
	RecordRead            RecordType = 8
	RecordSample          RecordType = 9
	RecordMmap2           RecordType = 10
	RecordAux             RecordType = 11
	RecordItraceStart     RecordType = 12
	RecordLostSamples     RecordType = 13
	RecordSwitch          RecordType = 14
	RecordSwitchCPUWide   RecordType = 15
	RecordNamespaces      RecordType = 16
	RecordKsymbol         RecordType = 17
	RecordBPFEvent        RecordType = 18
	RecordCgroup          RecordType = 19
	RecordTextPoke        RecordType = 20
	RecordAuxOutputHWID   RecordType = 21
	RecordHeaderAttr      RecordType = 64
	RecordHeaderEventType RecordType = 65
	RecordHeaderTracing   RecordType = 66
	RecordHeaderBuildID   RecordType = 67
	RecordFinishedRound   RecordType = 68
	RecordIDIndex         RecordType = 69
	RecordAuxtraceInfo    RecordType = 70
	RecordAuxtrace        RecordType = 71
	RecordAuxtraceError   RecordType = 72
	RecordThreadMap       RecordType = 73
	RecordCPUMap          RecordType = 74
	RecordStatConfig      RecordType = 75
	RecordStat            RecordType = 76
	RecordStatRound       RecordType = 77
	RecordEventUpdate     RecordType = 78
	RecordTimeConv        RecordType = 79
	RecordHeaderFeature   RecordType = 80
	RecordCompressed      RecordType = 81
	RecordFinishedInit    RecordType = 82
	RecordCompressed2     RecordType = 83
)

var recordNames = map[RecordType]string{
	RecordMmap: "MMAP", RecordLost: "LOST", RecordComm: "COMM", RecordExit: "EXIT",
	RecordThrottle: "THROTTLE", RecordUnthrottle: "UNTHROTTLE", RecordFork: "FORK",
	RecordRead: "READ", RecordSample: "SAMPLE", RecordMmap2: "MMAP2", RecordAux: "AUX",
	RecordItraceStart: "ITRACE_START", RecordLostSamples: "LOST_SAMPLES",
	RecordSwitch: "SWITCH", RecordSwitchCPUWide: "SWITCH_CPU_WIDE",
	RecordNamespaces: "NAMESPACES", RecordKsymbol: "KSYMBOL", RecordBPFEvent: "BPF_EVENT",
	RecordCgroup: "CGROUP", RecordTextPoke: "TEXT_POKE", RecordAuxOutputHWID: "AUX_OUTPUT_HW_ID",
	RecordHeaderAttr: "HEADER_ATTR", RecordHeaderEventType: "HEADER_EVENT_TYPE",
	RecordHeaderTracing: "HEADER_TRACING_DATA", RecordHeaderBuildID: "HEADER_BUILD_ID",
	RecordFinishedRound: "FINISHED_ROUND", RecordIDIndex: "ID_INDEX",
	RecordAuxtraceInfo: "AUXTRACE_INFO", RecordAuxtrace: "AUXTRACE",
	RecordAuxtraceError: "AUXTRACE_ERROR", RecordThreadMap: "THREAD_MAP",
	RecordCPUMap: "CPU_MAP", RecordStatConfig: "STAT_CONFIG", RecordStat: "STAT",
	RecordStatRound: "STAT_ROUND", RecordEventUpdate: "EVENT_UPDATE",
	RecordTimeConv: "TIME_CONV", RecordHeaderFeature: "HEADER_FEATURE",
	RecordCompressed: "COMPRESSED", RecordFinishedInit: "FINISHED_INIT",
	RecordCompressed2: "COMPRESSED2",
}

func (t RecordType) String() string {
	if s, ok := recordNames[t]; ok {
		return "PERF_RECORD_" + s
	}
	return fmt.Sprintf("PERF_RECORD_%d", uint32(t))
}

// The header's misc bits.
const (
	MiscCPUModeMask   uint16 = 7
	MiscKernel        uint16 = 1
	MiscUser          uint16 = 2
	MiscHypervisor    uint16 = 3
	MiscGuestKernel   uint16 = 4
	MiscGuestUser     uint16 = 5
	MiscMmapData      uint16 = 1 << 13 // MMAP/MMAP2: a non-executable mapping
	MiscCommExec      uint16 = 1 << 13 // COMM: the name changed by exec
	MiscMmapBuildID   uint16 = 1 << 14 // MMAP2: the build-id form
	MiscBuildIDSize   uint16 = 1 << 15 // HEADER_BUILD_ID: the size byte is valid
	miscSwitchOut     uint16 = 1 << 13
	miscExactIP       uint16 = 1 << 14
	miscSwitchPreempt uint16 = 1 << 14
)

// The callchain's context markers (PERF_CONTEXT_*): entries at or above
// ContextMax are not addresses but say whose frames follow.
const (
	ContextHV          = ^uint64(32) + 1
	ContextKernel      = ^uint64(128) + 1
	ContextUser        = ^uint64(512) + 1
	ContextGuest       = ^uint64(2048) + 1
	ContextGuestKernel = ^uint64(2176) + 1
	ContextGuestUser   = ^uint64(2560) + 1
	ContextMax         = ^uint64(4095) + 1
)

// BranchEntry is one perf_branch_entry of a branch stack (LBR).
type BranchEntry struct {
	From, To uint64
	Flags    uint64 // mispred:1 predicted:1 in_tx:1 abort:1 cycles:16 type:4 spec:2 new_type:4 priv:3
}

// Mispred, Predicted, InTx, Abort, Cycles and Type unpack Flags.
func (b BranchEntry) Mispred() bool   { return b.Flags&1 != 0 }
func (b BranchEntry) Predicted() bool { return b.Flags&2 != 0 }
func (b BranchEntry) InTx() bool      { return b.Flags&4 != 0 }
func (b BranchEntry) Abort() bool     { return b.Flags&8 != 0 }
func (b BranchEntry) Cycles() uint16  { return uint16(b.Flags >> 4) }
func (b BranchEntry) Type() uint8     { return uint8(b.Flags>>20) & 0xf }

// SampleIDTrailer is the sample_id trailer of a non-sample record (when
// the event's sample_id_all is set): the fields its sample_type selects.
type SampleIDTrailer struct {
	PID, TID uint32
	Time     uint64
	ID       uint64
	StreamID uint64
	CPU      uint32
}

// Sample is a PERF_RECORD_SAMPLE. Fields its event's sample_type does not
// select are zero. The slices belong to the Record and are reused by the
// next call of Reader.Next.
type Sample struct {
	Attr      *Attr // the event that took it
	IP        uint64
	PID, TID  uint32
	Time      uint64
	Addr      uint64
	ID        uint64
	StreamID  uint64
	CPU       uint32
	Period    uint64
	Callchain []uint64 // as recorded: PERF_CONTEXT_* markers included
	// Branches is the branch stack, most recent first; HWIndex is its
	// hw_idx, present (HasHWIndex) when branch_sample_type has
	// PERF_SAMPLE_BRANCH_HW_INDEX.
	Branches   []BranchEntry
	HWIndex    uint64
	HasHWIndex bool
	Weight     uint64
	DataSrc    uint64
	PhysAddr   uint64
}

// Mmap is a PERF_RECORD_MMAP or PERF_RECORD_MMAP2.
type Mmap struct {
	PID, TID         uint32
	Addr, Len, PgOff uint64
	// MMAP2 only: the inode form (Maj, Min, Ino, InoGeneration) or, when
	// the header's misc has MiscMmapBuildID, the build id.
	Maj, Min           uint32
	Ino, InoGeneration uint64
	BuildID            []byte
	Prot, Flags        uint32
	Filename           string
}

// Comm is a PERF_RECORD_COMM.
type Comm struct {
	PID, TID uint32
	Comm     string
}

// Fork is a PERF_RECORD_FORK or PERF_RECORD_EXIT.
type Fork struct {
	PID, PPID, TID, PTID uint32
	Time                 uint64
}

// Lost is a PERF_RECORD_LOST.
type Lost struct {
	ID, Lost uint64
}

// Throttle is a PERF_RECORD_THROTTLE or PERF_RECORD_UNTHROTTLE.
type Throttle struct {
	Time, ID, StreamID uint64
}

// Record is one record of the data section. Which of Sample, Mmap, Comm,
// Fork, Lost and Throttle is filled depends on Type; SampleID is the
// trailer of a non-sample record (HasSampleID). Raw is the record's bytes,
// header included, valid until the next call of Reader.Next.
type Record struct {
	Type RecordType
	Misc uint16
	// Offset is the record's byte offset in the file; a record decompressed
	// from a PERF_RECORD_COMPRESSED has that record's offset, and
	// InCompressed set.
	Offset       int64
	InCompressed bool

	Sample      Sample
	Mmap        Mmap
	Comm        Comm
	Fork        Fork
	Lost        Lost
	Throttle    Throttle
	SampleID    SampleIDTrailer
	HasSampleID bool
	Raw         []byte
	rawBuf      []byte // Raw's own copy, for Ordered
}

// CPUMode is the record's cpumode (misc & MiscCPUModeMask).
func (r *Record) CPUMode() uint16 { return r.Misc & MiscCPUModeMask }

// BuildID is one entry of the build-id table: the build-id feature section
// of a file, or a PERF_RECORD_HEADER_BUILD_ID of a pipe.
type BuildID struct {
	PID      int32
	CPUMode  uint16
	BuildID  []byte
	Filename string
}

// Feature bits of the file header's adds_features bitmap this package reads.
const (
	FeatureBuildID    = 2
	FeatureCompressed = 27
)
