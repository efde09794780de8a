#!/usr/bin/env bash
# Without a display the viewer's window cannot open: its message must give a command that works.
# Runs the viewer with no DISPLAY (nor WAYLAND_DISPLAY), takes the command after "e.g." from the
# message and runs it (with this build's binary for "gausslab"): it must finish with status 0.
#   offscreen_hint.sh VIEWER
set -uo pipefail
viewer=$1
output=$(env -u DISPLAY -u WAYLAND_DISPLAY "$viewer" --window 200x150 2>&1)
status=$?
printf '%s\n' "$output"
if [ $status -ge 128 ]; then echo "FAIL: the viewer crashed (status $status)"; exit 1; fi
if [ $status -eq 0 ]; then echo "FAIL: the window opened without a display"; exit 1; fi
hint=$(sed -n 's/.*e\.g\. \(gausslab [^(]*\).*/\1/p' <<<"$output" | head -1)
if [ -z "$hint" ]; then echo "FAIL: the message gives no command (e.g. gausslab ...)"; exit 1; fi
read -r -a words <<<"$hint"
words[0]=$viewer
echo "running the hinted command: ${words[*]} --window 200x150 --path cpu"
# --window and --path cpu only keep the run small and off the GPU; the hint itself must suffice.
if ! "${words[@]}" --window 200x150 --path cpu; then echo "FAIL: the hinted command failed"; exit 1; fi
echo "PASS"
