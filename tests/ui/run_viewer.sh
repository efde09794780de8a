#!/usr/bin/env bash
# One UI test: runs the viewer (CPU path) for a few frames in a window under Xvfb or offscreen
# through EGL, then checks the full-resolution result against the CPU filter and the view
# screenshot for the overlay.
#   run_viewer.sh VIEWER CHECKER WORKDIR window|offscreen IMAGE METHOD SIGMA BORDER TRUNCATE BADGE_RGB [VIEWER ARGS...]
# Exit status 77 (CTest: skipped) when Xvfb is not installed.
set -uo pipefail
if [ $# -lt 10 ]; then
  echo "usage: run_viewer.sh VIEWER CHECKER WORKDIR window|offscreen IMAGE METHOD SIGMA BORDER TRUNCATE BADGE_RGB [ARGS...]" >&2
  exit 2
fi
viewer=$1 checker=$2 work=$3 mode=$4 image=$5 method=$6 sigma=$7 border=$8 truncate=$9 badge=${10}
shift 10

rm -rf "$work" && mkdir -p "$work"
args=("$image" --path cpu --method "$method" --sigma "$sigma" --border "$border" --truncate "$truncate"
      --frames 3 --window 480x360 --screenshot "$work/result.png" --screenshot-view "$work/view.png" "$@")
case $mode in
  window)
    bash "$(dirname "${BASH_SOURCE[0]}")/under_xvfb.sh" "$viewer" "${args[@]}" >"$work/output.txt" 2>&1
    status=$?
    if [ $status -eq 77 ]; then cat "$work/output.txt"; exit 77; fi;;
  offscreen)
    "$viewer" --offscreen "${args[@]}" >"$work/output.txt" 2>&1
    status=$?;;
  *) echo "unknown mode '$mode'" >&2; exit 2;;
esac
cat "$work/output.txt"
if [ $status -ne 0 ]; then echo "FAIL: the viewer exited with status $status"; exit 1; fi
line=$(grep -c '^gausslab: method=' "$work/output.txt")
if [ "$line" -ne 1 ]; then echo "FAIL: expected exactly one summary line, found $line"; exit 1; fi
for field in "^gausslab: method=$method " " path=cpu " " renderer=\"[^\"]+\"" " size=[0-9]+x[0-9]+ " " frame_ms=[0-9.]+ " \
             " filter_cpu=[0-9.]+ " " upload=[0-9.]+ " " draw=[0-9.]+ " " max_error=[0-9.e+-]+ " " max_error_8bit=[0-9.e+-]+ "; do
  if ! grep -Eq -- "$field" "$work/output.txt"; then echo "FAIL: the summary line lacks /$field/"; exit 1; fi
done
# Every stage time is a plausible number of milliseconds (a driver's garbage would be hours).
if ! grep '^gausslab: method=' "$work/output.txt" | tr ' ' '\n' |
     awk -F= '$1 ~ /^(frame_ms|stages_ms|filter_cpu|b_filter_cpu|upload|upload_b|draw|ui)$/ { if ($2 !~ /^[0-9.]+$/ || $2 + 0 > 60000) bad = 1 } END { exit bad }'; then
  echo "FAIL: a stage time in the summary line is not a number of milliseconds below a minute"; exit 1
fi
"$checker" result "$work/result.png" "$image" "$method" "$sigma" "$border" "$truncate" || exit 1
"$checker" badge "$work/view.png" "$badge" 12 || exit 1
echo "PASS"
