# The batch engine on the GPU machine (issues 12 and 17): sourced by scripts/gpu-check.sh, whose
# helpers (stage, $OUT) it uses. About 6-8 minutes on an H100; run it alone in one call:
#   bash scripts/gpu-check.sh batch
# What proves what (each stage's log is in $OUT/logs/, the tables in $OUT/batch-results.tar.gz):
#   batch-mpi            `mpirun --version` (Open MPI carried as Debian packages, unpacked privately)
#                        and one image over 2 ranks sharing the GPU
#   batch-workload       the original workload, every single-process configuration: the table, and
#                        "Checks: ... ≥ 3: yes ... ≤ 1.3: yes" (pipelined vs pageable baseline, and
#                        the pipelined run against its slowest stage); bandwidths and codec rates
#   batch-workload-mpiN  the same under mpirun -np N (ranks sharing the H100): the scaling curve
#   batch-bands-gpu      every GPU method x every border x sigma 2 and 12, in 37 bands (thinner than
#                        the radius at sigma 12) and over 3 ranks: "same" against the single pass for
#                        the methods that promise it (MethodInfo::same_bytes_in_bands); the others
#                        (fft, the recursive filters, multires, separable_mma, auto): the largest
#                        difference, at most 2 levels
#   batch-faults         injected out-of-memory and launch failures: those files fail with their
#                        reason, the others are written, an image whose whole allocation failed goes
#                        through in bands byte-identical
#   batch-huge           32768x32768 RGBA8 (4 GiB): single pass on the GPU, --max-device-memory 1GiB,
#                        and 4 ranks: "cmp: identical", with each run's peak host and device memory;
#                        fft, whose padded planes (48 GiB) exceed its 8 GiB budget: refused with the
#                        reason, nothing written (the batch does not cut a refused image into bands)
# The summary at the end repeats the lines that matter.
B=${GAUSSLAB_BATCH_WORK:-/tmp/gausslab-batch}
rm -rf "$B"
mkdir -p "$B" "$OUT/batch-results"
# shellcheck source=scripts/gpu-stages/mpi-kit.sh
source scripts/gpu-stages/mpi-kit.sh
# The carried binaries' libraries (as .gpu/run.sh sets them, without its GL set-up for each call).
export LD_LIBRARY_PATH=$root/.gpu/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
export B F=$root/.gpu/bin/gausslab-filter BENCH=$root/.gpu/bin/gausslab-bench R=$OUT/batch-results

stage batch-mpi 60 bash -c 'mpirun --version && nvidia-smi -L &&
  mpirun -np 2 $F tests/data/coffee.png -o $B/hello.png --sigma 2 --share-gpus'

stage batch-workload 200 $BENCH --batch --batch-dir "$B/workload" --out "$R"

# The largest difference between two images in 8-bit levels (BMP or TGA; OpenCV or a TGA memmap).
cat > "$B/maxdiff.py" <<'PY'
import sys
import numpy as np
def load(path):
    if path.endswith(".tga"):
        with open(path, "rb") as f:
            header = f.read(18)
        width, height = int.from_bytes(header[12:14], "little"), int.from_bytes(header[14:16], "little")
        return np.memmap(path, np.uint8, "r", 18 + header[0], (height, width, header[16] // 8))
    if path.endswith(".bmp"):  # uncompressed 24- or 32-bit rows, bottom-up or top-down
        with open(path, "rb") as f:
            header = f.read(54)
        offset = int.from_bytes(header[10:14], "little")
        width = int.from_bytes(header[18:22], "little", signed=True)
        height = abs(int.from_bytes(header[22:26], "little", signed=True))
        channels = int.from_bytes(header[28:30], "little") // 8
        stride = (width * channels + 3) // 4 * 4
        rows = np.memmap(path, np.uint8, "r", offset, (height, stride))
        return rows[:, :width * channels].reshape(height, width, channels)
    import cv2
    return cv2.imread(path, cv2.IMREAD_UNCHANGED)
a, b = load(sys.argv[1]), load(sys.argv[2])
worst = 0
for y in range(0, a.shape[0], 1024):
    worst = max(worst, int(np.abs(a[y:y + 1024].astype(np.int16) - b[y:y + 1024].astype(np.int16)).max()))
print(worst)
PY

batch_bands_gpu() {
  local d=$B/bands bad=0 m b s
  mkdir -p "$d"
  $BENCH --make-image 1531x977 "$d/in.bmp" || return 1
  local methods
  methods=$($F --list-methods | awk -F'\t' '$2 == "cuda" {print $1}')
  for m in $methods; do
    for b in reflect mirror nearest constant wrap; do
      for s in 2 12; do
        local p=(--method "$m" --sigma "$s" --border "$b" --quiet)
        $F "$d/in.bmp" -o "$d/$m-$b-$s.bmp" "${p[@]}" 2> "$d/single.log"
        case $? in
          0) ;;
          2) echo "refused    $m $b sigma $s: $(head -c 160 "$d/single.log")"; continue ;;  # the method's limits
          *) cat "$d/single.log"; echo "FAILED single pass $m $b $s"; bad=1; continue ;;
        esac
        # Without --quiet the engine's notes say when a method does not promise the same bytes in
        # bands (MethodInfo::same_bytes_in_bands); such a method must stay within 2 levels.
        $F "$d/in.bmp" -o "$d/$m-$b-$s-bands.bmp" --method "$m" --sigma "$s" --border "$b" --bands 37 \
          > "$d/bands.log" 2>&1 || { cat "$d/bands.log"; echo "FAILED bands $m $b $s"; bad=1; continue; }
        if cmp -s "$d/$m-$b-$s.bmp" "$d/$m-$b-$s-bands.bmp"; then
          echo "same       37 bands  $m $b sigma $s"
        elif grep -q "not byte for byte" "$d/bands.log"; then
          local worst
          worst=$(python3 "$B/maxdiff.py" "$d/$m-$b-$s.bmp" "$d/$m-$b-$s-bands.bmp")
          echo "within     37 bands  $m $b sigma $s: largest difference $worst level(s) (promised: within its bound)"
          [ "$worst" -le 2 ] || { echo "TOO FAR    37 bands  $m $b sigma $s"; bad=1; }
        else
          echo "DIFFERENT  37 bands  $m $b sigma $s (it promises the single pass's bytes)"; bad=1
        fi
        rm -f "$d/$m-$b-$s-bands.bmp"
      done
    done
  done
  for m in separable_fused separable_shared separable_texture naive_2d shared_2d; do
    for b in reflect mirror nearest constant wrap; do
      mpirun -np 3 $F "$d/in.bmp" -o "$d/$m-$b-ranks.bmp" --method "$m" --sigma 12 --border "$b" --quiet --share-gpus --bands 5
      if cmp -s "$d/$m-$b-12.bmp" "$d/$m-$b-ranks.bmp"; then echo "same       3 ranks   $m $b sigma 12"
      else echo "DIFFERENT  3 ranks   $m $b sigma 12"; bad=1; fi
    done
  done
  return $bad
}

batch_faults() {
  local d=$B/faults bad=0 i
  mkdir -p "$d/in"
  for i in 1 2 3 4 5 6; do $BENCH --make-image 640x480 "$d/in/f$i.png" >/dev/null || return 1; done
  $F "$d/in" --out-dir "$d/clean" --method separable_shared --sigma 2 --quiet || bad=1
  GAUSSLAB_BATCH_FAULT="device-oom:f2,launch:f4,device-oom-once:f6" \
    $F "$d/in" --out-dir "$d/out" --method separable_shared --sigma 2 > "$d/log" 2>&1
  local status=$?
  cat "$d/log"
  echo "exit status $status (expected 1); written: $(cd "$d/out" && ls | tr '\n' ' ')(expected f1 f3 f5 f6)"
  [ $status -eq 1 ] || bad=1
  [ "$(cd "$d/out" && ls | tr '\n' ' ')" = "f1.png f3.png f5.png f6.png " ] || bad=1
  grep -q "f2.png': out of device memory" "$d/log" || bad=1
  grep -q "f4.png': the GPU failed" "$d/log" || bad=1
  for i in 1 3 5 6; do cmp "$d/clean/f$i.png" "$d/out/f$i.png" || bad=1; done
  [ $bad -eq 0 ] && echo "faults: as expected; f6 (whole allocation failed, then bands) is byte-identical to the clean run"
  return $bad
}

batch_huge() {
  local d=$B/huge bad=0
  mkdir -p "$d"
  local common=(--method separable_fused --sigma 2 --border mirror)
  $BENCH --make-image 32768x32768 "$d/in.tga" || return 1
  echo "--- single pass: the whole image on one GPU"
  $F "$d/in.tga" -o "$d/single.tga" "${common[@]}" || return 1
  echo "--- through one GPU with --max-device-memory 1GiB"
  $F "$d/in.tga" -o "$d/banded.tga" "${common[@]}" --max-device-memory 1GiB || bad=1
  if cmp "$d/single.tga" "$d/banded.tga"; then echo "cmp: identical (1 GiB of device memory, bands)"; else bad=1; fi
  rm -f "$d/banded.tga"
  echo "--- over 4 ranks (sharing the GPU), each with --max-device-memory 1GiB"
  mpirun -np 4 $F "$d/in.tga" -o "$d/ranks.tga" "${common[@]}" --max-device-memory 1GiB --share-gpus || bad=1
  if cmp "$d/single.tga" "$d/ranks.tga"; then echo "cmp: identical (4 ranks)"; else bad=1; fi
  rm -f "$d/ranks.tga"
  echo "--- fft: its padded planes need about 48 GiB, more than its 8 GiB budget: refused with the reason (exit 1)"
  $F "$d/in.tga" -o "$d/fft.tga" --method fft --sigma 2 --border mirror 2> "$d/fft.log"
  local status=$?
  cat "$d/fft.log"
  if [ $status -ne 0 ] && grep -q "budget" "$d/fft.log" && [ ! -e "$d/fft.tga" ]; then
    echo "fft: refused with its reason, exit $status, nothing written"
  else
    echo "fft: expected a refusal naming its budget"; bad=1
  fi
  return $bad
}
export -f batch_bands_gpu batch_faults batch_huge

# The must-show items first: the call stops at gpu-check's deadline (560 s by default).
stage batch-huge 300 bash -c batch_huge
stage batch-faults 60 bash -c batch_faults
stage batch-bands-gpu 240 bash -c batch_bands_gpu
for n in 2 4 8; do
  stage "batch-workload-mpi$n" 100 mpirun -np "$n" "$BENCH" --batch --batch-dir "$B/workload" --out "$R"
done

echo "=== batch: summary"
for f in "$R"/batch*.md; do
  [ -f "$f" ] || continue
  echo "--- $(basename "$f")"
  grep -E '^\| (configuration|cpu|gpu|mpi)|^Checks|^- host↔device|^- one core' "$f"
done
grep -hE "^(same|within|DIFFERENT)" "$OUT/logs/batch-bands-gpu.log" | awk '{print $1}' | sort | uniq -c
grep -hE "cmp:|largest difference|files? done in|memory: peak|did not fit|^---" "$OUT/logs/batch-huge.log"
tar -czf "$OUT/batch-results.tar.gz" -C "$OUT" batch-results && rm -rf "$OUT/batch-results"
rm -rf "$B"
