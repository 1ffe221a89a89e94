# Shared helpers for the side-by-side benchmark scripts (sourced).
# measure OUTVAR_PREFIX CMD...: runs CMD under /usr/bin/time, sets
# ${prefix}_wall (seconds) and ${prefix}_rss (KB). Dirty pages are flushed
# first (sync), so that the writeback of the previous command's output
# (94 MB for a V0 profile) does not land on this one's time.
measure() {
  local prefix=$1; shift
  local tf w r; tf=$(mktemp)
  sync
  /usr/bin/time -f '%e %M' -o "$tf" "$@" >/dev/null
  read -r w r <"$tf"; rm -f "$tf"
  printf -v "${prefix}_wall" '%s' "$w"
  printf -v "${prefix}_rss" '%s' "$r"
}
# median of numbers on stdin
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "inf"; else printf "%.2f", a / b }'; }
