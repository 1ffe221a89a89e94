// Command gen writes the sample-profile benchmark's inputs: N text
// profiles of about SIZE bytes each, plain (AutoFDO-like, nested inlinees)
// or CS (CSSPGO-like contexts), over a shared pool of function names so
// that the inputs overlap as profiles of one binary's runs do.
//
//	gen -kind plain|cs -n 50 -size 500000 -o DIR
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"math/rand"
	"os"
	"path/filepath"
)

func main() {
	kind := flag.String("kind", "plain", "plain or cs")
	n := flag.Int("n", 50, "number of profiles")
	size := flag.Int("size", 500000, "approximate bytes per profile")
	dir := flag.String("o", ".", "output directory")
	flag.Parse()
	names := make([]string, 4000)
	for i := range names {
		names[i] = fmt.Sprintf("_ZN4bench%dfunc%dEv", i%97, i)
	}
	for f := range *n {
		r := rand.New(rand.NewSource(int64(f)))
		name := func() string { return names[int(r.ExpFloat64()*600)%len(names)] }
		path := filepath.Join(*dir, fmt.Sprintf("%s%03d.txt", *kind, f))
		out, err := os.Create(path)
		if err != nil {
			log.Fatal(err)
		}
		w := bufio.NewWriter(out)
		var body func(ind string, depth int)
		body = func(ind string, depth int) {
			for l := range 2 + r.Intn(12) {
				fmt.Fprintf(w, "%s%d: %d", ind, l+r.Intn(3), r.Intn(100000))
				if r.Intn(4) == 0 {
					fmt.Fprintf(w, " %s:%d", name(), r.Intn(5000))
				}
				w.WriteByte('\n')
			}
			if *kind == "plain" && depth < 3 {
				for range r.Intn(3) {
					fmt.Fprintf(w, "%s%d: %s:%d\n", ind, 20+r.Intn(40), name(), r.Intn(50000))
					body(ind+" ", depth+1)
				}
			}
		}
		seen := map[string]bool{}
		for written := 0; written < *size; written = w.Buffered() + int(must(out.Seek(0, 1))) {
			head := name()
			if *kind == "cs" {
				head = fmt.Sprintf("[%s:%d @ %s:%d @ %s]", name(), r.Intn(50), name(), r.Intn(50), name())
			}
			if seen[head] {
				continue
			}
			seen[head] = true
			fmt.Fprintf(w, "%s:%d:%d\n", head, r.Intn(1000000), r.Intn(1000))
			body(" ", 0)
		}
		if err := w.Flush(); err != nil {
			log.Fatal(err)
		}
		out.Close()
	}
}

func must(n int64, err error) int64 {
	if err != nil {
		log.Fatal(err)
	}
	return n
}
