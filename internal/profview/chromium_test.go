package profview_test

import (
	"bytes"
	"os/exec"
	"testing"
)

// headless runs Chromium (at chromium) on the page file offline (no
// network: a dead proxy, no name resolution, no background fetches) with
// args added, and returns what it prints (the DOM for --dump-dom).
func headless(t *testing.T, chromium, page string, args ...string) string {
	t.Helper()
	args = append([]string{"--headless", "--disable-gpu", "--no-sandbox", "--user-data-dir=" + t.TempDir(),
		"--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND", "--no-first-run",
		"--disable-background-networking", "--disable-component-update"}, args...)
	cmd := exec.Command(chromium, append(args, "file://"+page)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %q: %v\n%s", args, err, stderr.String())
	}
	return string(out)
}
