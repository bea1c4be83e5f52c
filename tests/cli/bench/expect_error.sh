# Sourced by the memhier-bench CLI tests: expect_error <what the line must say> <args...> runs
# "$bench" with the args and fails (fail, from the caller) unless it exits 2 with exactly one line
# on stderr that says it. Needs $bench and $work.
expect_error() {
  local want=$1; shift
  "$bench" "$@" > "$work/out" 2> "$work/err"
  local rc=$?
  [ "$rc" = 2 ] || fail "'$*' exited $rc, expected 2"
  [ "$(wc -l < "$work/err")" = 1 ] || { cat "$work/err"; fail "'$*' printed more than one line on stderr"; }
  grep -Eq "^memhier-bench: .*$want" "$work/err" || { cat "$work/err"; fail "'$*' does not say '$want'"; }
}
