#!/usr/bin/env bash
# Runs COMMAND on a fresh virtual X display (Xvfb, 1280x1024, 24-bit); exit status 77 (CTest:
# skipped) when Xvfb is not installed.
#   under_xvfb.sh COMMAND [ARGS...]
if ! command -v xvfb-run >/dev/null; then echo "SKIP: xvfb-run is missing (apt install xvfb xauth)"; exit 77; fi
exec xvfb-run -a -s "-screen 0 1280x1024x24" "$@"
