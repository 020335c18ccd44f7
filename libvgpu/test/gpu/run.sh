#!/usr/bin/env bash
# GPU checks of libvgpu (design study §7.5): G1 memory virtualisation, G2 enforcement, G4 sharing
# across processes, G5 SM limit, G6 overhead, G7 version-keyed lookups. Needs an NVIDIA GPU and
# driver, not the CUDA toolkit. Takes about 3 minutes
# (G5_SECONDS per compute run, default 20). Writes the results table to $OUT/results.md when OUT
# is set. Exit status: 0 all passed, 1 a check failed, 2 no GPU here.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

G5_SECONDS=${G5_SECONDS:-20}
OUT_DIR=${OUT:-}

have_driver() {
  ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' && return 0
  local d
  for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/nvidia/lib64 /usr/lib/wsl/lib; do
    [ -e "$d/libcuda.so.1" ] && return 0
  done
  return 1
}
if ! have_driver || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no NVIDIA GPU here (libcuda.so.1 or nvidia-smi missing): the GPU checks need a GPU machine" >&2
  exit 2
fi
nvidia-smi -L

make -s build/libvgpu.so || { echo "build of libvgpu failed" >&2; exit 1; }
gcc -std=gnu11 -O2 -Wall -Iinclude test/gpu/gpu_check.c -ldl -lpthread -o build/gpu_check ||
  { echo "build of gpu_check failed" >&2; exit 1; }
LIB=$PWD/build/libvgpu.so
W=$(mktemp -d /tmp/vgpu-gpu.XXXXXX)
trap 'rm -rf "$W"' EXIT
export LIBCUDA_LOG_LEVEL=${LIBCUDA_LOG_LEVEL:-1}

# run NAME [VAR=VALUE...] -- ARGS...: one gpu_check process under the library, own cache file
run() {
  local name=$1; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  env CUDA_DEVICE_MEMORY_SHARED_CACHE="$W/$name.cache" LD_PRELOAD="$LIB" "${envs[@]}" \
    build/gpu_check "$@" >"$W/$name.txt" 2>"$W/$name.err"
  echo "--- $name: $(tr '\n' ' ' <"$W/$name.txt")" >&2
}
bare() { # without the library
  local name=$1; shift
  build/gpu_check "$@" >"$W/$name.txt" 2>"$W/$name.err"
  echo "--- $name: $(tr '\n' ' ' <"$W/$name.txt")" >&2
}
kv() { sed -n "s/^$2=//p" "$W/$1.txt" | head -1; }

ROWS=()
FAILED=0
row() { # check, measured, criterion, verdict(0/1)
  local v=PASS
  [ "$4" = 1 ] || { v=FAIL; FAILED=1; }
  ROWS+=("| $1 | $2 | $3 | $v |")
}
# awk-evaluated condition -> 1/0
cond() { awk "BEGIN { print (($*) ? 1 : 0) }"; }

GIB4=4294967296
MIB=1048576

# hardware facts
bare facts facts
SMS=$(kv facts sms); TPS=$(kv facts tps); CC=$(kv facts cc)
row "facts" "SMs $SMS, threads/SM $TPS, cc $CC, driver $(kv facts driver), total $(( $(kv facts total_bytes) / MIB )) MiB" \
  "132 / 2048 / 9.0 (H200)" "$(cond "\"$SMS\" == \"132\" && \"$TPS\" == \"2048\" && \"$CC\" == \"9.0\"")"

# G1 + G2: limit 4g, fresh cache, twice
run g1a CUDA_DEVICE_MEMORY_LIMIT=4g -- mem
run g1b CUDA_DEVICE_MEMORY_LIMIT=4g -- mem
T1=$(kv g1a meminfo_total); T2=$(kv g1a device_total); T3=$(kv g1a nvml_total)
CTX=$(kv g1a ctx_bytes); CTX2=$(kv g1b ctx_bytes); F0=$(kv g1a meminfo_free)
row "G1 totals" "cuMemGetInfo $T1, cuDeviceTotalMem $T2, NVML $T3" "all = $GIB4" \
  "$(cond "\"$T1\" == \"$GIB4\" && \"$T2\" == \"$GIB4\" && \"$T3\" == \"$GIB4\"")"
row "G1 free" "free $F0, context charge $(( ${CTX:-0} / MIB )) MiB (second run $(( ${CTX2:-0} / MIB )) MiB)" \
  "free = 4 GiB - charge ±2 MiB; charge stable ±2 MiB" \
  "$(cond "${F0:-0} - ($GIB4 - ${CTX:-0}) <= 2*$MIB && ($GIB4 - ${CTX:-0}) - ${F0:-0} <= 2*$MIB && ${CTX:-0} - ${CTX2:-0} <= 2*$MIB && ${CTX2:-0} - ${CTX:-0} <= 2*$MIB")"
N=$(kv g1a allocs_256m); E=$(kv g1a alloc_error); PU=$(kv g1a nvml_proc_used); FA=$(kv g1a free_after)
EXP=$(( (GIB4 - ${CTX:-0}) / (256 * MIB) ))
row "G2 enforcement" "$N x 256 MiB, then error $E" "error 2 after $EXP" "$(cond "\"$E\" == \"2\" && ${N:-0} == $EXP")"
row "G2 real usage" "NVML per-process $(( ${PU:-0} / MIB )) MiB" "<= 4160 MiB" "$(cond "${PU:-0} > 0 && ${PU:-0} <= $GIB4 + 64*$MIB")"
row "G2 free after" "free $FA vs $F0" "±2 MiB" "$(cond "${FA:-0} - ${F0:-0} <= 2*$MIB && ${F0:-0} - ${FA:-0} <= 2*$MIB")"

# G4: two holders and a third request on one cache; the third fits after one holder is killed.
# Holdings are sized from the measured context charge so that exactly two fit in 4 GiB.
HOLD=$(( (4096 - 2 * ${CTX:-0} / MIB) / 2 - 64 ))
G4ENV=(CUDA_DEVICE_MEMORY_SHARED_CACHE="$W/g4.cache" CUDA_DEVICE_MEMORY_LIMIT=4g LD_PRELOAD="$LIB")
g4() { env "${G4ENV[@]}" build/gpu_check "$@"; }
# started directly (env execs gpu_check), so that $! is the holder itself
env "${G4ENV[@]}" build/gpu_check hold "$HOLD" >"$W/g4a.txt" 2>&1 &
HA=$!
env "${G4ENV[@]}" build/gpu_check hold "$HOLD" >"$W/g4b.txt" 2>&1 &
HB=$!
for _ in $(seq 300); do
  grep -qE 'ready|failed' "$W/g4a.txt" 2>/dev/null && grep -qE 'ready|failed' "$W/g4b.txt" 2>/dev/null && break
  sleep 0.1
done
g4 try "$HOLD" 0 >"$W/g4c.txt" 2>&1
kill -9 "$HA" 2>/dev/null; wait "$HA" 2>/dev/null
g4 try "$HOLD" 1000 >"$W/g4d.txt" 2>&1
kill -9 "$HB" 2>/dev/null; wait "$HB" 2>/dev/null
echo "--- g4: $(cat "$W"/g4?.txt | tr '\n' ' ')" >&2
HOLDS=$(grep -c '^ready' "$W/g4a.txt" "$W/g4b.txt" | awk -F: '{s += $2} END {print s}')
C3=$(kv g4c try_rc); C4=$(kv g4d try_rc); C4MS=$(kv g4d try_ms)
row "G4 sharing" "2 holders of $HOLD MiB: $HOLDS held; third request error $C3; after SIGKILL of one: rc $C4 in ${C4MS} ms" \
  "both hold, third fails with 2, retry succeeds within 1 s" \
  "$(cond "${HOLDS:-0} == 2 && \"$C3\" == \"2\" && \"$C4\" == \"0\" && ${C4MS:-9999} <= 1000")"

# G5: SM limit, FORCE policy
run g5u -- sm "$G5_SECONDS"
IT="VGPU_CHECK_ITERS=$(kv g5u iters)" # the same kernel (about 1 ms) in every run
run g5a CUDA_DEVICE_SM_LIMIT=30 GPU_CORE_UTILIZATION_POLICY=force "$IT" -- sm "$G5_SECONDS"
run g5b CUDA_DEVICE_SM_LIMIT=70 GPU_CORE_UTILIZATION_POLICY=force "$IT" -- sm "$G5_SECONDS"
run g5f CUDA_DEVICE_SM_LIMIT=30 GPU_CORE_UTILIZATION_POLICY=force VGPU_CHECK_SET_HOSTPID=1 "$IT" -- sm "$G5_SECONDS"
run g5p30 CUDA_DEVICE_SM_LIMIT=30 GPU_CORE_UTILIZATION_POLICY=force "$IT" -- sm "$G5_SECONDS" &
P1=$!
run g5p70 CUDA_DEVICE_SM_LIMIT=70 GPU_CORE_UTILIZATION_POLICY=force "$IT" -- sm "$G5_SECONDS" &
P2=$!
wait $P1 $P2
UU=$(kv g5u util_mean); UK=$(kv g5u kernels_per_s)
U30=$(kv g5a util_mean); K30=$(kv g5a kernels_per_s)
U70=$(kv g5b util_mean); K70=$(kv g5b kernels_per_s)
UF=$(kv g5f util_mean); KF=$(kv g5f kernels_per_s)
KA=$(kv g5p30 kernels_per_s); KB=$(kv g5p70 kernels_per_s)
row "G5 unlimited" "util $UU %, $UK kernels/s ($(kv g5u iters) iters)" "≈ 100 %" "$(cond "${UU:-0} >= 90")"
row "G5 limit 30" "util $U30 %, throughput ratio $(awk "BEGIN{printf \"%.2f\", ${K30:-0}/(${UK:-1}+1e-9)}")" \
  "util 20..40, ratio 0.20..0.45" "$(cond "${U30:-0} >= 20 && ${U30:-0} <= 40 && ${K30:-0}/(${UK:-1}+1e-9) >= 0.2 && ${K30:-0}/(${UK:-1}+1e-9) <= 0.45")"
row "G5 limit 70" "util $U70 %, throughput ratio $(awk "BEGIN{printf \"%.2f\", ${K70:-0}/(${UK:-1}+1e-9)}")" \
  "util 60..80" "$(cond "${U70:-0} >= 60 && ${U70:-0} <= 80")"
row "G5 limit 30, NVML feedback" "util $UF %, throughput ratio $(awk "BEGIN{printf \"%.2f\", ${KF:-0}/(${UK:-1}+1e-9)}")" \
  "util 20..40" "$(cond "${UF:-0} >= 20 && ${UF:-0} <= 40")"
SHARE=$(awk "BEGIN{printf \"%.2f\", ${KA:-0}/(${KA:-0}+${KB:-0}+1e-9)}")
row "G5 two processes 30/70" "$KA vs $KB kernels/s, share of the first $SHARE" "0.20..0.40" \
  "$(cond "$SHARE >= 0.2 && $SHARE <= 0.4")"

# G6: overhead, no limits, with and without the library
bare g6bare overhead
run g6hook -- overhead
LB=$(kv g6bare launch_ns); LH=$(kv g6hook launch_ns); AB=$(kv g6bare alloc_free_ns); AH=$(kv g6hook alloc_free_ns)
row "G6 launch" "$LB ns bare, $LH ns hooked, +$(awk "BEGIN{printf \"%.1f\", ${LH:-0}-${LB:-0}}") ns" "< 500 ns added" \
  "$(cond "${LH:-1e9} - ${LB:-0} < 500")"
row "G6 alloc+free 2 MiB" "$AB ns bare, $AH ns hooked" "< 5000 ns added" "$(cond "${AH:-1e9} - ${AB:-0} < 5000")"

# G7: cuCtxCreate by version, cuLaunchKernel with the per-thread default stream flag
run g7 -- cuda13
DRV=$(kv facts driver)
row "G7 lookups" "cuCtxCreate@12000 rc $(kv g7 ctx_v2), @13000 rc $(kv g7 ctx_v4), launch flag 2 rc $(kv g7 launch_ptsz), hooked $(kv g7 hooked), driver $DRV" \
  "v2 and (on 13.x) v4 work, _ptsz launch works through the hook" \
  "$(cond "\"$(kv g7 ctx_v2)\" == \"0\" && \"$(kv g7 launch_ptsz)\" == \"0\" && \"$(kv g7 sync)\" == \"0\" && \"$(kv g7 hooked)\" == \"1\" && (${DRV:-0} < 13000 || \"$(kv g7 ctx_v4)\" == \"0\")")"

TABLE=$(printf '| check | measured | criterion | result |\n|---|---|---|---|\n'; printf '%s\n' "${ROWS[@]}")
echo
echo "$TABLE"
if [ -n "$OUT_DIR" ]; then
  mkdir -p "$OUT_DIR" && echo "$TABLE" >"$OUT_DIR/results.md"
  cp "$W"/*.txt "$W"/*.err "$OUT_DIR"/ 2>/dev/null || true
fi
exit $FAILED
