#!/bin/sh
# Runs a plainly built test binary (named inside the .preload file given as
# $1, found beside it) with fthr preloaded. The binary itself checks that the
# preload took effect (the "interposed" test of every suite).
set -eu
t=$1
dir=$(dirname "$t")
bin=$(cat "$t")
test -n "${FTHR_LIB:-}" || { echo "FTHR_LIB is not set" >&2; exit 99; }
test -f "$FTHR_LIB" || { echo "no $FTHR_LIB" >&2; exit 99; }
LD_PRELOAD=$FTHR_LIB exec "$dir/$bin"
