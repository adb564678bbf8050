# SPDX-License-Identifier: MIT
# What every command-line test script shares, sourced after `set -u` and the
# check of its environment (WEFT, WEFT_SRCDIR, ... set by make check): a
# scratch directory $tmp removed at exit, the failure count $fails, and
#   ok NAME / bad NAME             print a result line (bad counts a failure)
#   expect CODE NAME PATTERN -- CMD...
#                                  run CMD (stdout to $tmp/out, stderr to
#                                  $tmp/err); it must exit with CODE and, when
#                                  PATTERN is not empty, its stderr must match
#                                  the extended regular expression PATTERN
#   finish NAME                    print the failure count; exit 0 if none
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { printf 'ok   %s\n' "$1"; }
bad() { printf 'FAIL %s\n' "$1"; fails=$((fails + 1)); }

expect() {
    code=$1 name=$2 pattern=$3
    shift 4
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne "$code" ]; then
        bad "$name: exit $rc, expected $code"; sed 's/^/     /' "$tmp/err"; return
    fi
    if [ -n "$pattern" ] && ! grep -Eq -e "$pattern" "$tmp/err"; then
        bad "$name: stderr does not match /$pattern/"; sed 's/^/     /' "$tmp/err"; return
    fi
    ok "$name"
}

finish() {
    echo "$1: $fails failure(s)"
    [ "$fails" -eq 0 ]
}
