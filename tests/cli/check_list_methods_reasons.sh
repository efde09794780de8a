#!/usr/bin/env bash
# gausslab-filter --list-methods writes a reason shared by several methods once (without a CUDA
# device, the same long sentence for every GPU method); the others say "the reason given for ID",
# ID a method listed above with that reason in full.
#   check_list_methods_reasons.sh FILTER
set -uo pipefail
out=$("$1" --list-methods) || { echo "FAIL: --list-methods failed"; exit 1; }
printf '%s\n' "$out"
reasons=$(awk -F'\tunavailable: ' 'NF > 1 && $2 !~ /^the reason given for / {print $2}' <<<"$out")
repeated=$(sort <<<"$reasons" | uniq -d)
if [ -n "$repeated" ]; then echo "FAIL: a reason is written more than once: $repeated"; exit 1; fi
while read -r id; do
  [ -z "$id" ] && continue
  if ! awk -F'\t' -v id="$id" '$1 == id && $4 ~ /^unavailable: / && $4 !~ /the reason given for/ {found = 1} END {exit !found}' <<<"$out"; then
    echo "FAIL: 'the reason given for $id' names a method whose reason is not written"; exit 1
  fi
done < <(sed -n 's/.*unavailable: the reason given for \([a-z0-9_]*\).*/\1/p' <<<"$out" | sort -u)
echo "PASS ($(grep -c 'the reason given for' <<<"$out") methods refer to a reason written once)"
