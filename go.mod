module github.com/rules-pgo/rules_pgo

go 1.26.0

require (
	github.com/google/pprof v0.0.0-20261105003125-4bf881d7fb0b
	github.com/ianlancetaylor/demangle v0.0.0-20260724033716-83e58baca724
	github.com/klauspost/compress v1.20.4
	go.starlark.net v0.0.0-20260908191801-89a6a09411d5
	golang.org/x/arch v0.32.0
	golang.org/x/sys v0.42.0
	gopkg.in/yaml.v3 v3.0.1
	lukechampine.com/blake3 v1.4.1
)

require github.com/klauspost/cpuid/v2 v2.0.9 // indirect
