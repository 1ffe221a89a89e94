//go:build !race

package testenv

// Race is true when the tests run under the race detector, which
// multiplies the memory of a process (a test binary standing in for a
// tool included): memory bounds do not hold there.
const Race = false
