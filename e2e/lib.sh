# Shared setup of rules_pgo's Bazel scripts (sourced by .ci/e2e-* and examples/memprof/demo.sh).
#
# Bazel 4.2.3 (Debian's bazel-bootstrap) builds offline only with stand-ins for the
# repositories its default WORKSPACE suffix fetches from the network: rules_cc and rules_java
# (Debian's bazel-bootstrap-source ships native-wrapper copies under mock_repos/) and
# remote_coverage_tools (for `bazel test`; a stub written here). Nothing third-party is
# committed: everything is materialized under $PGO_OUT at run time.
#
# Provides: PGO_ROOT, PGO_OUT, pgo_bazel (bazel with the offline overrides, a shared output
# root and disk cache), pgo_tools_source_key.

PGO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PGO_OUT=${PGO_OUT:-$PGO_ROOT/out/bazel}
export PATH=/usr/local/go/bin:$PATH

_pgo_die() { echo "error: $*" >&2; exit 1; }

pgo_setup_offline() {
  local mock=/usr/src/bazel-bootstrap/mock_repos
  command -v bazel > /dev/null || _pgo_die "bazel not found: apt-get install bazel-bootstrap (bash .ci/install)"
  [ -d "$mock/rules_cc" ] || _pgo_die "$mock missing: apt-get install bazel-bootstrap-source (bash .ci/install)"
  mkdir -p "$PGO_OUT/standins/remote_coverage_tools" "$PGO_OUT/home"
  local cov=$PGO_OUT/standins/remote_coverage_tools
  cat > "$cov/WORKSPACE" <<'EOW'
workspace(name = "remote_coverage_tools")
EOW
  cat > "$cov/BUILD" <<'EOB'
# Stand-in for Bazel's coverage tools (offline `bazel test`); coverage is not supported.
package(default_visibility = ["//visibility:public"])
sh_binary(name = "coverage_report_generator", srcs = ["fail.sh"])
sh_binary(name = "lcov_merger", srcs = ["fail.sh"])
filegroup(name = "coverage_output_generator", srcs = ["fail.sh"])
EOB
  printf '#!/bin/sh\necho "coverage is not available offline" >&2\nexit 1\n' > "$cov/fail.sh"
  chmod +x "$cov/fail.sh"
  # Go settings for pgo_tools_repository(mode = "source"), captured before HOME changes.
  local gocache gomodcache
  gocache=$(go env GOCACHE) gomodcache=$(go env GOMODCACHE)
  {
    for cmd in build test run aquery cquery query fetch info sync; do
      echo "$cmd --override_repository=rules_cc=$mock/rules_cc"
      echo "$cmd --override_repository=rules_java=$mock/rules_java"
      echo "$cmd --override_repository=remote_coverage_tools=$cov"
      # Debian's skylib (apt-get install bazel-skylib): only //rules/tests needs it.
      if [ -f /usr/share/bazel/tools/skylib/WORKSPACE ]; then
        echo "$cmd --override_repository=bazel_skylib=/usr/share/bazel/tools/skylib"
      fi
    done
    for cmd in build test run aquery cquery fetch info sync; do
      echo "$cmd --repo_env=GOCACHE=$gocache --repo_env=GOMODCACHE=$gomodcache --repo_env=GOPROXY=off"
      echo "$cmd --repo_env=PGO_TOOLS_SOURCE_KEY=$(pgo_tools_source_key)"
      if [ -n "${RULES_PGO_TOOLS_DIR:-}" ]; then
        echo "$cmd --repo_env=RULES_PGO_TOOLS_DIR=$RULES_PGO_TOOLS_DIR"
      fi
    done
    echo "build --nosandbox_debug"
  } > "$PGO_OUT/offline.bazelrc"
}

# A digest of the Go sources of the tools: a new value re-runs pgo_tools_repository.
pgo_tools_source_key() {
  (cd "$PGO_ROOT" && find tools internal go.mod go.sum -type f \( -name '*.go' -o -name 'go.*' \) \
    -print0 2>/dev/null | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
}

# bazel with a private HOME and output root under $PGO_OUT; extra startup options first via
# PGO_BAZEL_STARTUP (array-free: a string of options without spaces inside values).
pgo_bazel() {
  # shellcheck disable=SC2086
  HOME=$PGO_OUT/home bazel --output_user_root="${PGO_OUTPUT_USER_ROOT:-$PGO_OUT/root}" --bazelrc="$PGO_OUT/offline.bazelrc" \
    ${PGO_BAZEL_STARTUP:-} "$@"
}

# pgo_tools_archive: builds the tools of this checkout (or copies $RULES_PGO_TOOLS_DIR's) into
# $PGO_OUT/tools and packs them like a release archive; sets PGO_TOOLS, PGO_ARCHIVE and
# PGO_ARCHIVE_SHA (for rules_pgo_register_toolchains(tools = "prebuilt") via file://).
pgo_tools_archive() {
  PGO_TOOLS=$PGO_OUT/tools
  rm -rf "$PGO_TOOLS" && mkdir -p "$PGO_TOOLS"
  if [ -n "${RULES_PGO_TOOLS_DIR:-}" ]; then
    echo "NOTE: RULES_PGO_TOOLS_DIR=$RULES_PGO_TOOLS_DIR: archiving those tools instead of ./tools" >&2
    cp -L "$RULES_PGO_TOOLS_DIR/merge" "$RULES_PGO_TOOLS_DIR/symbolize" "$RULES_PGO_TOOLS_DIR/profgen" "$PGO_TOOLS/"
  else
    (cd "$PGO_ROOT" && CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags=-buildid= -o "$PGO_TOOLS/" \
      ./tools/merge ./tools/symbolize ./tools/profgen)
  fi
  PGO_ARCHIVE=$PGO_OUT/rules_pgo_tools-linux_amd64.tar.gz
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$PGO_TOOLS" -cf - merge profgen symbolize |
    gzip -n > "$PGO_ARCHIVE"
  PGO_ARCHIVE_SHA=$(sha256sum "$PGO_ARCHIVE" | cut -d' ' -f1)
  echo "archive $PGO_ARCHIVE sha256 $PGO_ARCHIVE_SHA"
}

# pgo_e2e_workspace DIR NAME: a WORKSPACE in DIR using rules_pgo from this checkout, the
# archive of pgo_tools_archive as a prebuilt toolchain and the clang-19 cc toolchain.
pgo_e2e_workspace() {
  cat > "$1/WORKSPACE" << EOW
workspace(name = "$2")

local_repository(
    name = "rules_pgo",
    path = "$PGO_ROOT",
)

load("@rules_pgo//toolchain:repositories.bzl", "rules_pgo_dependencies", "rules_pgo_register_cc_toolchain", "rules_pgo_register_toolchains")

rules_pgo_dependencies()

rules_pgo_register_toolchains(
    llvm_version = "19",
    sha256 = {"linux_amd64": "$PGO_ARCHIVE_SHA"},
    tools = "prebuilt",
    urls = {"linux_amd64": ["file://$PGO_ARCHIVE"]},
)

rules_pgo_register_cc_toolchain(
    name = "pgo_cc",
    clang = "clang-19",
)
EOW
}

# expect_fail NAME REGEX CMD...: CMD must fail and its output match REGEX.
expect_fail() {
  local name=$1 re=$2 out
  shift 2
  if out=$("$@" 2>&1); then
    echo "FAIL: $name: expected a failure, the build succeeded" >&2
    exit 1
  fi
  if ! grep -qE -- "$re" <<< "$out"; then
    echo "FAIL: $name: output does not match /$re/:" >&2
    grep -E "ERROR|rror" <<< "$out" | head -20 >&2
    exit 1
  fi
  echo "ok: $name fails with: $(grep -oE -- "$re" <<< "$out" | head -1)"
}

# pgo_lbr_trace: the lbr-trace recorder of the shared tools (../shared/tools next to the
# checkout, else $RULES_PGO_SHARED/tools); $PGO_LBR_TRACE overrides.
pgo_lbr_trace() {
  local t=${PGO_LBR_TRACE:-$(cd "$PGO_ROOT/.." && pwd)/shared/tools/lbr-trace}
  [ -x "$t" ] || t=${RULES_PGO_SHARED:-/work/shared}/tools/lbr-trace
  [ -x "$t" ] || _pgo_die "lbr-trace not found (../shared/tools/lbr-trace or \$RULES_PGO_SHARED/tools; set PGO_LBR_TRACE)"
  echo "$t"
}

# pgo_perfdata_from_script TRACE OUT: the perf.data perf would have printed TRACE (a perf script
# text of LBR samples, as lbr-trace writes it) from, written by the tests' generator
# (internal/perfdata/perfdatatest, test code only: run through its TestWriteFromScript, the
# test binary built once into $PGO_OUT).
pgo_perfdata_from_script() {
  local t=$PGO_OUT/perfdatatest.test
  if [ ! -x "$t" ] || [ -n "$(cd "$PGO_ROOT" && find internal/perfdata -name '*.go' -newer "$t" | head -1)" ]; then
    (cd "$PGO_ROOT" && go test -c -o "$t.tmp" ./internal/perfdata/perfdatatest) && mv "$t.tmp" "$t" ||
      _pgo_die "could not build the perf.data generator (internal/perfdata/perfdatatest)"
  fi
  PERFDATATEST_TRACE=$1 PERFDATATEST_OUT=$2 "$t" -test.run '^TestWriteFromScript$' > /dev/null ||
    _pgo_die "could not write $2 from $1"
  [ -s "$2" ] || _pgo_die "no perf.data written to $2"
}
