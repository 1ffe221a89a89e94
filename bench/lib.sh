# Shared helpers for the side-by-side benchmark scripts (sourced).
# measure OUTVAR_PREFIX CMD...: runs CMD under /usr/bin/time, sets
# ${prefix}_wall (seconds), ${prefix}_rss (KB) and ${prefix}_cpu (user +
# sys seconds). Dirty pages are flushed
# first (sync), so that the writeback of the previous command's output
# (94 MB for a V0 profile) does not land on this one's time.
measure() {
  local prefix=$1; shift
  local tf w r u s; tf=$(mktemp)
  sync
  /usr/bin/time -f '%e %M %U %S' -o "$tf" "$@" >/dev/null
  read -r w r u s <"$tf"; rm -f "$tf"
  printf -v "${prefix}_wall" '%s' "$w"
  printf -v "${prefix}_rss" '%s' "$r"
  printf -v "${prefix}_cpu" '%s' "$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')"
}
# median of numbers on stdin
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "inf"; else printf "%.2f", a / b }'; }
