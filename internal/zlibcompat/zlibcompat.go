// Package zlibcompat writes the exact bytes zlib 1.2.13's compress2 writes
// (the zlib that LLVM links on Debian 12), for the lazy-matching levels 4 to
// 9. llvm-profdata compresses extbinary sample-profile sections with
// compress2 at level 9 (compression::zlib::BestSizeCompression), and issue 10
// asks for byte-identical output.
//
// It is hand-written because no Go library reproduces zlib's output:
// compress/flate and github.com/klauspost/compress choose other matches,
// block boundaries and Huffman trees, so their streams decode to the same
// data but differ byte for byte. This package follows what zlib's deflate.c
// and trees.c do, as described by RFC 1950/1951 and zlib's own comments:
//
//   - one deflate call with Z_FINISH over the whole input (compress2 hands
//     over all input at once), windowBits 15, memLevel 8: a 64 KiB window
//     buffer slid by 32 KiB, a 15-bit rolling hash (shift 5) with head/prev
//     chains, a 16384-entry symbol buffer;
//   - deflate_slow's lazy matching with the level's configuration (good,
//     lazy, nice, chain), longest_match's chain walk and its quick rejects,
//     the TOO_FAR rule for 3-byte matches;
//   - blocks end when the symbol buffer holds 16383 symbols or at the end;
//     each block is stored, fixed or dynamic by _tr_flush_block's cost
//     estimate; the dynamic trees come from build_tree's heap (ties broken by
//     depth), gen_bitlen's overflow repair at 15 (7 for the code-length
//     code), canonical codes, and scan_tree/send_tree's run-length coding.
//
// The tests compare with the system zlib through python3's zlib module.
package zlibcompat

import (
	"encoding/binary"
	"fmt"
	"hash/adler32"
)

const (
	wBits      = 15
	wSize      = 1 << wBits
	wMask      = wSize - 1
	windowSize = 2 * wSize
	hashBits   = 15 // memLevel 8 + 7
	hashSize   = 1 << hashBits
	hashMask   = hashSize - 1
	hashShift  = (hashBits + minMatch - 1) / minMatch
	litBufSize = 1 << 14 // memLevel 8 + 6
	symEnd     = (litBufSize - 1) * 3

	minMatch     = 3
	maxMatch     = 258
	minLookahead = maxMatch + minMatch + 1
	maxDist      = wSize - minLookahead
	tooFar       = 4096
	nilPos       = 0

	lCodes   = 286
	dCodes   = 30
	blCodes  = 19
	heapSize = 2*lCodes + 1
	maxBits  = 15
	endBlock = 256
	rep3_6   = 16
	repz3_10 = 17
	repz11   = 18
)

// config is zlib's configuration_table row for a level.
type config struct{ good, lazy, nice, chain int }

var configs = [10]config{
	4: {4, 4, 16, 16},
	5: {8, 16, 32, 32},
	6: {8, 16, 128, 128},
	7: {8, 32, 128, 256},
	8: {32, 128, 258, 1024},
	9: {32, 258, 258, 4096},
}

// BestCompression is the level LLVM uses for profile sections.
const BestCompression = 9

// Compress returns zlib's compress2(src, level 9).
func Compress(src []byte) []byte {
	out, _ := CompressLevel(src, BestCompression)
	return out
}

// CompressLevel returns zlib's compress2(src, level) for levels 4 to 9
// (the levels zlib compresses with deflate_slow).
func CompressLevel(src []byte, level int) ([]byte, error) {
	if level < 4 || level > 9 {
		return nil, fmt.Errorf("zlibcompat: level %d not supported (only 4 to 9)", level)
	}
	d := newDeflater(src, level)
	d.run()
	return d.out, nil
}

var (
	extraLBits  = [29]int{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	extraDBits  = [30]int{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	extraBLBits = [19]int{16: 2, 17: 3, 18: 7}
	blOrder     = [19]int{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

	lengthCode [256]uint8 // match length - 3 → length code 0..28
	baseLength [29]int
	distCode   [512]uint8 // as zlib's _dist_code: dist-1 < 256 direct, else 256 + (dist-1)>>7
	baseDist   [30]int

	staticLTree [lCodes + 2]ctData
	staticDTree [dCodes]ctData
)

type ctData struct {
	freq, code uint16 // zlib shares these in a union; kept apart here
	dad, len   uint16
}

func init() {
	length := 0
	for code := 0; code < 28; code++ {
		baseLength[code] = length
		for n := 0; n < 1<<extraLBits[code]; n++ {
			lengthCode[length] = uint8(code)
			length++
		}
	}
	// Length 258 is code 285, not 284 with all extra bits set.
	lengthCode[255] = 28
	baseLength[28] = 0
	dist := 0
	for code := 0; code < 16; code++ {
		baseDist[code] = dist
		for n := 0; n < 1<<extraDBits[code]; n++ {
			distCode[dist] = uint8(code)
			dist++
		}
	}
	dist >>= 7
	for code := 16; code < dCodes; code++ {
		baseDist[code] = dist << 7
		for n := 0; n < 1<<(extraDBits[code]-7); n++ {
			distCode[256+dist] = uint8(code)
			dist++
		}
	}
	var blCount [maxBits + 1]uint16
	for n := 0; n <= 287; n++ {
		l := uint16(8)
		switch {
		case n >= 144 && n <= 255:
			l = 9
		case n >= 256 && n <= 279:
			l = 7
		}
		staticLTree[n].len = l
		blCount[l]++
	}
	genCodes(staticLTree[:], lCodes+1, &blCount)
	for n := range staticDTree {
		staticDTree[n].len = 5
		staticDTree[n].code = uint16(bitReverse(uint(n), 5))
	}
}

func dCode(dist int) int {
	if dist < 256 {
		return int(distCode[dist])
	}
	return int(distCode[256+(dist>>7)])
}

func bitReverse(code uint, n int) uint {
	var r uint
	for ; n > 0; n-- {
		r = r<<1 | code&1
		code >>= 1
	}
	return r
}

// genCodes assigns canonical codes (bit-reversed for LSB-first output) to
// tree[0..maxCode] from their lengths.
func genCodes(tree []ctData, maxCode int, blCount *[maxBits + 1]uint16) {
	var next [maxBits + 1]uint
	code := uint(0)
	for bits := 1; bits <= maxBits; bits++ {
		code = (code + uint(blCount[bits-1])) << 1
		next[bits] = code
	}
	for n := 0; n <= maxCode; n++ {
		l := int(tree[n].len)
		if l == 0 {
			continue
		}
		tree[n].code = uint16(bitReverse(next[l], l))
		next[l]++
	}
}

type treeDesc struct {
	tree      []ctData
	maxCode   int
	stree     []ctData // nil for the code-length tree
	extra     []int
	extraBase int
	elems     int
	maxLength int
}

type deflater struct {
	in  []byte // input not yet read into the window
	out []byte
	cfg config

	window                  [windowSize]byte
	prev                    [wSize]uint16
	head                    [hashSize]uint16
	insH                    uint
	strstart, lookahead     int
	blockStart              int
	matchStart, prevMatch   int
	matchLength, prevLength int
	matchAvailable          bool
	insert                  int
	symBuf                  []byte
	dynL                    [heapSize]ctData
	dynD                    [2*dCodes + 1]ctData
	blTree                  [2*blCodes + 1]ctData
	lDesc, dDesc, blDesc    treeDesc
	blCount                 [maxBits + 1]uint16
	heap                    [2*lCodes + 1]int
	heapLen, heapMax        int
	depth                   [2*lCodes + 1]uint8
	optLen, staticLen       int64
	bitBuf                  uint64
	bitCount                uint
}

func newDeflater(src []byte, level int) *deflater {
	d := &deflater{in: src, cfg: configs[level]}
	d.symBuf = make([]byte, 0, symEnd)
	d.lDesc = treeDesc{tree: d.dynL[:], stree: staticLTree[:], extra: extraLBits[:], extraBase: 257, elems: lCodes, maxLength: maxBits}
	d.dDesc = treeDesc{tree: d.dynD[:], stree: staticDTree[:], extra: extraDBits[:], extraBase: 0, elems: dCodes, maxLength: maxBits}
	d.blDesc = treeDesc{tree: d.blTree[:], extra: extraBLBits[:], extraBase: 0, elems: blCodes, maxLength: 7}
	d.matchLength, d.prevLength = minMatch-1, minMatch-1
	d.initBlock()
	// Header: CM 8, CINFO 7, FLEVEL from the level, FCHECK.
	hdr := uint16(0x78) << 8
	switch {
	case level < 6:
		hdr |= 1 << 6
	case level == 6:
		hdr |= 2 << 6
	default:
		hdr |= 3 << 6
	}
	hdr += 31 - hdr%31
	d.out = make([]byte, 0, len(src)/2+64)
	d.out = binary.BigEndian.AppendUint16(d.out, hdr)
	return d
}

func (d *deflater) run() {
	adler := adler32.Checksum(d.in)
	d.deflateSlow()
	d.out = binary.BigEndian.AppendUint32(d.out, adler)
}

func (d *deflater) updateHash(c byte) {
	d.insH = (d.insH<<hashShift ^ uint(c)) & hashMask
}

// insertString adds the string at str to its hash chain and returns the
// previous head of that chain.
func (d *deflater) insertString(str int) int {
	d.updateHash(d.window[str+minMatch-1])
	h := d.head[d.insH]
	d.prev[str&wMask] = h
	d.head[d.insH] = uint16(str)
	return int(h)
}

func (d *deflater) fillWindow() {
	for {
		more := windowSize - d.lookahead - d.strstart
		if d.strstart >= wSize+maxDist {
			copy(d.window[:wSize-more], d.window[wSize:])
			d.matchStart -= wSize
			d.strstart -= wSize
			d.blockStart -= wSize
			if d.insert > d.strstart {
				d.insert = d.strstart
			}
			for i := range d.head {
				if m := int(d.head[i]); m >= wSize {
					d.head[i] = uint16(m - wSize)
				} else {
					d.head[i] = nilPos
				}
			}
			for i := range d.prev {
				if m := int(d.prev[i]); m >= wSize {
					d.prev[i] = uint16(m - wSize)
				} else {
					d.prev[i] = nilPos
				}
			}
			more += wSize
		}
		if len(d.in) == 0 {
			break
		}
		n := copy(d.window[d.strstart+d.lookahead:d.strstart+d.lookahead+more], d.in)
		d.in = d.in[n:]
		d.lookahead += n
		if d.lookahead+d.insert >= minMatch {
			str := d.strstart - d.insert
			d.insH = uint(d.window[str])
			d.updateHash(d.window[str+1])
			for d.insert > 0 {
				d.updateHash(d.window[str+minMatch-1])
				d.prev[str&wMask] = d.head[d.insH]
				d.head[d.insH] = uint16(str)
				str++
				d.insert--
				if d.lookahead+d.insert < minMatch {
					break
				}
			}
		}
		if d.lookahead >= minLookahead || len(d.in) == 0 {
			break
		}
	}
	// zlib zeroes the window beyond the data it has read (high_water); the
	// Go array starts zeroed and bytes there never decide a match.
}

func (d *deflater) longestMatch(curMatch int) int {
	chain := d.cfg.chain
	scan := d.strstart
	bestLen := d.prevLength
	nice := d.cfg.nice
	limit := nilPos
	if d.strstart > maxDist {
		limit = d.strstart - maxDist
	}
	strend := d.strstart + maxMatch
	w := &d.window
	scanEnd1 := w[scan+bestLen-1]
	scanEnd := w[scan+bestLen]
	if d.prevLength >= d.cfg.good {
		chain >>= 2
	}
	if nice > d.lookahead {
		nice = d.lookahead
	}
	for {
		m := curMatch
		if w[m+bestLen] == scanEnd && w[m+bestLen-1] == scanEnd1 && w[m] == w[scan] && w[m+1] == w[scan+1] {
			// Byte 2 is not compared: equal hashes imply it is equal.
			s, mm := scan+2, m+2
			for {
				s++
				mm++
				if w[s] != w[mm] || s >= strend {
					break
				}
			}
			// zlib tests scan < strend after every 8 bytes; 256 = 32 × 8,
			// so the per-byte test here stops at the same place.
			l := maxMatch - (strend - s)
			if l > bestLen {
				d.matchStart = curMatch
				bestLen = l
				if l >= nice {
					break
				}
				scanEnd1 = w[scan+bestLen-1]
				scanEnd = w[scan+bestLen]
			}
		}
		curMatch = int(d.prev[curMatch&wMask])
		if curMatch <= limit {
			break
		}
		chain--
		if chain == 0 {
			break
		}
	}
	if bestLen <= d.lookahead {
		return bestLen
	}
	return d.lookahead
}

func (d *deflater) deflateSlow() {
	for {
		if d.lookahead < minLookahead {
			d.fillWindow()
			if d.lookahead == 0 {
				break
			}
		}
		hashHead := nilPos
		if d.lookahead >= minMatch {
			hashHead = d.insertString(d.strstart)
		}
		d.prevLength, d.prevMatch = d.matchLength, d.matchStart
		d.matchLength = minMatch - 1
		if hashHead != nilPos && d.prevLength < d.cfg.lazy && d.strstart-hashHead <= maxDist {
			d.matchLength = d.longestMatch(hashHead)
			if d.matchLength <= 5 && d.matchLength == minMatch && d.strstart-d.matchStart > tooFar {
				d.matchLength = minMatch - 1
			}
		}
		if d.prevLength >= minMatch && d.matchLength <= d.prevLength {
			maxInsert := d.strstart + d.lookahead - minMatch
			full := d.tallyDist(d.strstart-1-d.prevMatch, d.prevLength-minMatch)
			d.lookahead -= d.prevLength - 1
			for n := d.prevLength - 2; n > 0; n-- {
				d.strstart++
				if d.strstart <= maxInsert {
					d.insertString(d.strstart)
				}
			}
			d.prevLength = 0
			d.matchAvailable = false
			d.matchLength = minMatch - 1
			d.strstart++
			if full {
				d.flushBlock(false)
			}
		} else if d.matchAvailable {
			if d.tallyLit(d.window[d.strstart-1]) {
				d.flushBlock(false)
			}
			d.strstart++
			d.lookahead--
		} else {
			d.matchAvailable = true
			d.strstart++
			d.lookahead--
		}
	}
	if d.matchAvailable {
		d.tallyLit(d.window[d.strstart-1])
		d.matchAvailable = false
	}
	d.insert = min(d.strstart, minMatch-1)
	d.flushBlock(true)
}

func (d *deflater) tallyLit(c byte) bool {
	d.symBuf = append(d.symBuf, 0, 0, c)
	d.dynL[c].freq++
	return len(d.symBuf) == symEnd
}

// tallyDist records a match at distance dist of length lc+3.
func (d *deflater) tallyDist(dist, lc int) bool {
	d.symBuf = append(d.symBuf, byte(dist), byte(dist>>8), byte(lc))
	dist--
	d.dynL[int(lengthCode[lc])+257].freq++
	d.dynD[dCode(dist)].freq++
	return len(d.symBuf) == symEnd
}

func (d *deflater) initBlock() {
	for i := 0; i < lCodes; i++ {
		d.dynL[i].freq = 0
	}
	for i := 0; i < dCodes; i++ {
		d.dynD[i].freq = 0
	}
	for i := 0; i < blCodes; i++ {
		d.blTree[i].freq = 0
	}
	d.dynL[endBlock].freq = 1
	d.optLen, d.staticLen = 0, 0
	d.symBuf = d.symBuf[:0]
}

// flushBlock is FLUSH_BLOCK_ONLY: the block from blockStart to strstart.
func (d *deflater) flushBlock(last bool) {
	var buf []byte
	if d.blockStart >= 0 {
		buf = d.window[d.blockStart:d.strstart]
	}
	d.trFlushBlock(buf, d.strstart-d.blockStart, last)
	d.blockStart = d.strstart
}

func (d *deflater) trFlushBlock(buf []byte, storedLen int, last bool) {
	d.buildTree(&d.lDesc)
	d.buildTree(&d.dDesc)
	maxBLIndex := d.buildBLTree()
	optLenB := (d.optLen + 3 + 7) >> 3
	staticLenB := (d.staticLen + 3 + 7) >> 3
	if staticLenB <= optLenB {
		optLenB = staticLenB
	}
	lastBit := uint64(0)
	if last {
		lastBit = 1
	}
	switch {
	case int64(storedLen)+4 <= optLenB && buf != nil:
		d.sendBits(0<<1|lastBit, 3)
		d.alignBits()
		d.out = binary.LittleEndian.AppendUint16(d.out, uint16(storedLen))
		d.out = binary.LittleEndian.AppendUint16(d.out, ^uint16(storedLen))
		d.out = append(d.out, buf...)
	case staticLenB == optLenB:
		d.sendBits(1<<1|lastBit, 3)
		d.compressBlock(staticLTree[:], staticDTree[:])
	default:
		d.sendBits(2<<1|lastBit, 3)
		d.sendAllTrees(d.lDesc.maxCode+1, d.dDesc.maxCode+1, maxBLIndex+1)
		d.compressBlock(d.dynL[:], d.dynD[:])
	}
	d.initBlock()
	if last {
		d.alignBits()
	}
}

func (d *deflater) sendBits(v uint64, n uint) {
	d.bitBuf |= v << d.bitCount
	d.bitCount += n
	for d.bitCount >= 8 {
		d.out = append(d.out, byte(d.bitBuf))
		d.bitBuf >>= 8
		d.bitCount -= 8
	}
}

func (d *deflater) alignBits() {
	if d.bitCount > 0 {
		d.out = append(d.out, byte(d.bitBuf))
	}
	d.bitBuf, d.bitCount = 0, 0
}

func (d *deflater) sendCode(c int, tree []ctData) {
	d.sendBits(uint64(tree[c].code), uint(tree[c].len))
}

func (d *deflater) compressBlock(ltree, dtree []ctData) {
	sb := d.symBuf
	for i := 0; i < len(sb); i += 3 {
		dist := int(sb[i]) | int(sb[i+1])<<8
		lc := int(sb[i+2])
		if dist == 0 {
			d.sendCode(lc, ltree)
			continue
		}
		code := int(lengthCode[lc])
		d.sendCode(code+257, ltree)
		if e := extraLBits[code]; e != 0 {
			d.sendBits(uint64(lc-baseLength[code]), uint(e))
		}
		dist--
		code = dCode(dist)
		d.sendCode(code, dtree)
		if e := extraDBits[code]; e != 0 {
			d.sendBits(uint64(dist-baseDist[code]), uint(e))
		}
	}
	d.sendCode(endBlock, ltree)
}

// smaller is zlib's heap order: by frequency, then by depth.
func (d *deflater) smaller(tree []ctData, n, m int) bool {
	return tree[n].freq < tree[m].freq || (tree[n].freq == tree[m].freq && d.depth[n] <= d.depth[m])
}

func (d *deflater) pqDownHeap(tree []ctData, k int) {
	v := d.heap[k]
	j := k << 1
	for j <= d.heapLen {
		if j < d.heapLen && d.smaller(tree, d.heap[j+1], d.heap[j]) {
			j++
		}
		if d.smaller(tree, v, d.heap[j]) {
			break
		}
		d.heap[k] = d.heap[j]
		k = j
		j <<= 1
	}
	d.heap[k] = v
}

func (d *deflater) buildTree(desc *treeDesc) {
	tree := desc.tree
	maxCode := -1
	d.heapLen, d.heapMax = 0, heapSize
	for n := 0; n < desc.elems; n++ {
		if tree[n].freq != 0 {
			d.heapLen++
			d.heap[d.heapLen] = n
			maxCode = n
			d.depth[n] = 0
		} else {
			tree[n].len = 0
		}
	}
	// At least two codes of non-zero frequency, as zlib forces them.
	for d.heapLen < 2 {
		node := 0
		if maxCode < 2 {
			maxCode++
			node = maxCode
		}
		d.heapLen++
		d.heap[d.heapLen] = node
		tree[node].freq = 1
		d.depth[node] = 0
		d.optLen--
		if desc.stree != nil {
			d.staticLen -= int64(desc.stree[node].len)
		}
	}
	desc.maxCode = maxCode
	for n := d.heapLen / 2; n >= 1; n-- {
		d.pqDownHeap(tree, n)
	}
	node := desc.elems
	for {
		n := d.heap[1]
		d.heap[1] = d.heap[d.heapLen]
		d.heapLen--
		d.pqDownHeap(tree, 1)
		m := d.heap[1]
		d.heapMax--
		d.heap[d.heapMax] = n
		d.heapMax--
		d.heap[d.heapMax] = m
		tree[node].freq = tree[n].freq + tree[m].freq
		d.depth[node] = max(d.depth[n], d.depth[m]) + 1
		tree[n].dad, tree[m].dad = uint16(node), uint16(node)
		d.heap[1] = node
		node++
		d.pqDownHeap(tree, 1)
		if d.heapLen < 2 {
			break
		}
	}
	d.heapMax--
	d.heap[d.heapMax] = d.heap[1]
	d.genBitLen(desc)
	genCodes(tree, maxCode, &d.blCount)
}

func (d *deflater) genBitLen(desc *treeDesc) {
	tree := desc.tree
	maxCode := desc.maxCode
	maxLength := desc.maxLength
	for i := range d.blCount {
		d.blCount[i] = 0
	}
	tree[d.heap[d.heapMax]].len = 0
	overflow := 0
	h := d.heapMax + 1
	for ; h < heapSize; h++ {
		n := d.heap[h]
		bits := int(tree[tree[n].dad].len) + 1
		if bits > maxLength {
			bits = maxLength
			overflow++
		}
		tree[n].len = uint16(bits)
		if n > maxCode {
			continue
		}
		d.blCount[bits]++
		xbits := 0
		if n >= desc.extraBase {
			xbits = desc.extra[n-desc.extraBase]
		}
		f := int64(tree[n].freq)
		d.optLen += f * int64(bits+xbits)
		if desc.stree != nil {
			d.staticLen += f * int64(int(desc.stree[n].len)+xbits)
		}
	}
	if overflow == 0 {
		return
	}
	for overflow > 0 {
		bits := maxLength - 1
		for d.blCount[bits] == 0 {
			bits--
		}
		d.blCount[bits]--
		d.blCount[bits+1] += 2
		d.blCount[maxLength]--
		overflow -= 2
	}
	for bits := maxLength; bits != 0; bits-- {
		n := int(d.blCount[bits])
		for n != 0 {
			h--
			m := d.heap[h]
			if m > maxCode {
				continue
			}
			if int(tree[m].len) != bits {
				d.optLen += int64(bits-int(tree[m].len)) * int64(tree[m].freq)
				tree[m].len = uint16(bits)
			}
			n--
		}
	}
}

// runLengths walks tree[0..maxCode]'s code lengths as zlib's scan_tree and
// send_tree do, calling emit for every code-length code (a length, or 16,
// 17, 18 with their repeat count in extra bits). tree[maxCode+1] is the
// guard, as in zlib.
func runLengths(tree []ctData, maxCode int, emit func(code int, extra uint64, nExtra uint)) {
	prevLen, nextLen := -1, int(tree[0].len)
	count, maxCount, minCount := 0, 7, 4
	if nextLen == 0 {
		maxCount, minCount = 138, 3
	}
	tree[maxCode+1].len = 0xffff
	for n := 0; n <= maxCode; n++ {
		curLen := nextLen
		nextLen = int(tree[n+1].len)
		count++
		if count < maxCount && curLen == nextLen {
			continue
		}
		switch {
		case count < minCount:
			for ; count > 0; count-- {
				emit(curLen, 0, 0)
			}
		case curLen != 0:
			if curLen != prevLen {
				emit(curLen, 0, 0)
				count--
			}
			emit(rep3_6, uint64(count-3), 2)
		case count <= 10:
			emit(repz3_10, uint64(count-3), 3)
		default:
			emit(repz11, uint64(count-11), 7)
		}
		count, prevLen = 0, curLen
		switch {
		case nextLen == 0:
			maxCount, minCount = 138, 3
		case curLen == nextLen:
			maxCount, minCount = 6, 3
		default:
			maxCount, minCount = 7, 4
		}
	}
}

// scanTree counts the code-length codes that sendTree will send.
func (d *deflater) scanTree(tree []ctData, maxCode int) {
	runLengths(tree, maxCode, func(code int, _ uint64, _ uint) { d.blTree[code].freq++ })
}

func (d *deflater) sendTree(tree []ctData, maxCode int) {
	runLengths(tree, maxCode, func(code int, extra uint64, nExtra uint) {
		d.sendCode(code, d.blTree[:])
		if nExtra > 0 {
			d.sendBits(extra, nExtra)
		}
	})
}

func (d *deflater) buildBLTree() int {
	d.scanTree(d.dynL[:], d.lDesc.maxCode)
	d.scanTree(d.dynD[:], d.dDesc.maxCode)
	d.buildTree(&d.blDesc)
	maxBLIndex := blCodes - 1
	for ; maxBLIndex >= 3; maxBLIndex-- {
		if d.blTree[blOrder[maxBLIndex]].len != 0 {
			break
		}
	}
	d.optLen += 3*int64(maxBLIndex+1) + 5 + 5 + 4
	return maxBLIndex
}

func (d *deflater) sendAllTrees(lcodes, dcodes, blcodes int) {
	d.sendBits(uint64(lcodes-257), 5)
	d.sendBits(uint64(dcodes-1), 5)
	d.sendBits(uint64(blcodes-4), 4)
	for rank := 0; rank < blcodes; rank++ {
		d.sendBits(uint64(d.blTree[blOrder[rank]].len), 3)
	}
	d.sendTree(d.dynL[:], lcodes-1)
	d.sendTree(d.dynD[:], dcodes-1)
}
