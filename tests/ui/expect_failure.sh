#!/usr/bin/env bash
# Runs a command that must fail cleanly: exit status STATUS (not a crash: no signal, no abort) and
# output matching REGEX (extended grep), naming the problem.
#   expect_failure.sh STATUS REGEX COMMAND [ARGS...]
# A command may use the placeholder @EXISTING@: a file that exists (created in a temporary folder).
set -uo pipefail
expected=$1 regex=$2
shift 2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
: >"$scratch/existing.png"
args=()
for a in "$@"; do args+=("${a//@EXISTING@/$scratch/existing.png}"); done
output=$("${args[@]}" 2>&1)
status=$?
printf '%s\n' "$output"
if [ $status -ge 128 ]; then echo "FAIL: the command crashed (status $status)"; exit 1; fi
if [ $status -ne "$expected" ]; then echo "FAIL: exit status $status, expected $expected"; exit 1; fi
# A here-string, not a pipe: under pipefail, grep -q closing early would fail printf with SIGPIPE.
if ! grep -Eq -- "$regex" <<<"$output"; then echo "FAIL: the message does not match /$regex/"; exit 1; fi
if [ -f "$scratch/existing.png" ] && [ -s "$scratch/existing.png" ]; then echo "FAIL: the existing file was overwritten"; exit 1; fi
echo "PASS"
