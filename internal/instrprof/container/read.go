package container

import "github.com/rules-pgo/rules_pgo/internal/decode"

// TableHeader reads NumBuckets and NumEntries of an on-disk hash table and
// checks that the bucket array fits.
func TableHeader(c *decode.Cursor) (numBuckets, numEntries uint64) {
	at := c.Off()
	numBuckets = c.U64()
	numEntries = c.U64()
	if c.Err() != nil {
		return 0, 0
	}
	if numBuckets == 0 || numBuckets&(numBuckets-1) != 0 {
		c.FailAt(int64(at), decode.ErrMalformed, "bucket count %d is not a power of two", numBuckets)
		return 0, 0
	}
	if numBuckets > uint64(c.Remaining()/8) {
		c.FailAt(int64(at), decode.ErrTruncated, "truncated bucket array (need %d buckets, have room for %d)", numBuckets, c.Remaining()/8)
		return 0, 0
	}
	return numBuckets, numEntries
}

// Entry is one decoded hash-table item.
type Entry struct {
	Off  int // absolute offset of the item's hash
	Hash uint64
	Key  []byte
	Data []byte
}

// ReadTable decodes every item of the on-disk hash table whose bucket array
// is at tableOff, in bucket order. Items must lie in [payload, tableOff).
// keyLen says whether the trait writes a key length (the call-stack table
// writes only the data length and an 8-byte key).
func ReadTable(name string, data []byte, section string, payload, tableOff uint64, keyLen bool) ([]Entry, error) {
	c := decode.NewCursor("instrprof", name, section, data, 0)
	c.Seek(tableOff)
	nb, ne := TableHeader(&c)
	if c.Err() != nil {
		return nil, c.Err()
	}
	if payload > tableOff {
		c.Fail(decode.ErrMalformed, "payload offset %#x is after the table at %#x", payload, tableOff)
		return nil, c.Err()
	}
	// Each item needs at least 2+8+8+8 bytes of payload.
	if ne > (tableOff-payload)/18 {
		c.FailAt(int64(c.Off()-8), decode.ErrMalformed, "entry count %d does not fit in a %d-byte payload", ne, tableOff-payload)
		return nil, c.Err()
	}
	entries := make([]Entry, 0, ne)
	p := decode.NewCursor("instrprof", name, section, data[:tableOff], 0)
	for range nb {
		at := c.Off()
		o := c.U64()
		if c.Err() != nil {
			return nil, c.Err()
		}
		if o == 0 {
			continue
		}
		if o < payload || o >= tableOff {
			c.FailAt(int64(at), decode.ErrMalformed, "bucket offset %#x outside the payload [%#x, %#x)", o, payload, tableOff)
			return nil, c.Err()
		}
		p.Seek(o)
		n := p.U16()
		for range n {
			e := Entry{Off: p.Off()}
			e.Hash = p.U64()
			kl := uint64(8)
			if keyLen {
				kl = p.U64()
			}
			dl := p.U64()
			e.Key = p.Bytes(kl)
			e.Data = p.Bytes(dl)
			if p.Err() != nil {
				return nil, p.Err()
			}
			if uint64(len(entries)) >= ne {
				p.FailAt(int64(e.Off), decode.ErrMalformed, "more items than the table's entry count %d", ne)
				return nil, p.Err()
			}
			entries = append(entries, e)
		}
	}
	if uint64(len(entries)) != ne {
		c.Fail(decode.ErrMalformed, "table holds %d items, header says %d", len(entries), ne)
		return nil, c.Err()
	}
	return entries, nil
}
