package main

import (
	"bytes"
	"os"
	"testing"
)

const checkedIn = "../../../rules/llvm_releases.bzl"

// TestUpToDate fails while the checked-in Starlark table differs from the
// Go one.
func TestUpToDate(t *testing.T) {
	got, err := os.ReadFile(checkedIn)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, bzl()) {
		t.Errorf("%s is stale: run `go generate ./internal/llvmrelease`", checkedIn)
	}
}
