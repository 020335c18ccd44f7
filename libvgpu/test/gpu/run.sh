#!/usr/bin/env bash
# GPU checks of libvgpu (design study §7.5): G1 memory virtualisation, G2 enforcement, G4 sharing
# across processes, G5 SM limit, G6 overhead, G7 version-keyed lookups, G8 the monitor's
# utilization switch, G9 the monitor's priority hold, G10 PyTorch under a limit (when installed);
# P0 checks the region_poke helper that plays the monitor in G8 and G9. Needs an NVIDIA GPU and driver, not the CUDA toolkit. Takes about 4.5
# minutes (G5_SECONDS per compute run, default 20; G9_SECONDS, default 16). Writes the results table
# to $OUT/results.md when OUT is set. Exit status: 0 all passed, 1 a check failed, 2 no GPU here
# (or a bad argument).
#
# --self-test runs P0, the unlimited G5 run, G8 and G9 against the CPU suite's fake driver
# (build/fake, simulated 1 ms kernels) instead: it checks the script's plumbing and figures without
# a GPU, in about a minute; it proves nothing about the real driver.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2

MODE=gpu
case "${1:-}" in
  "") ;;
  --self-test) MODE=fake ;;
  *) echo "usage: $0 [--self-test]" >&2; exit 2 ;;
esac
if [ "$MODE" = fake ]; then G5_SECONDS=${G5_SECONDS:-8}; else G5_SECONDS=${G5_SECONDS:-20}; fi
G9_SECONDS=${G9_SECONDS:-16}
OUT_DIR=${OUT:-}

have_driver() {
  ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' && return 0
  local d
  for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/nvidia/lib64 /usr/lib/wsl/lib; do
    [ -e "$d/libcuda.so.1" ] && return 0
  done
  return 1
}
if [ "$MODE" = gpu ]; then
  if ! have_driver || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "no NVIDIA GPU here (libcuda.so.1 or nvidia-smi missing): the GPU checks need a GPU machine" >&2
    exit 2
  fi
  nvidia-smi -L
  make -s build/libvgpu.so || { echo "build of libvgpu failed" >&2; exit 1; }
else
  make -s build/libvgpu.so fake || { echo "build of libvgpu or the fake driver failed" >&2; exit 1; }
fi
gcc -std=gnu11 -O2 -Wall -Iinclude test/gpu/gpu_check.c -ldl -lpthread -o build/gpu_check ||
  { echo "build of gpu_check failed" >&2; exit 1; }
gcc -std=gnu11 -O2 -Wall -Iinclude test/gpu/region_poke.c -o build/region_poke ||
  { echo "build of region_poke failed" >&2; exit 1; }
LIB=$PWD/build/libvgpu.so
W=$(mktemp -d /tmp/vgpu-gpu.XXXXXX)
trap 'rm -rf "$W"' EXIT
export LIBCUDA_LOG_LEVEL=${LIBCUDA_LOG_LEVEL:-1}
# the driver: the real one, or the fake one with one shared device state for every process
DRV_ENV=()
[ "$MODE" = fake ] && DRV_ENV=(LD_LIBRARY_PATH="$PWD/build/fake" FAKE_STATE="$W/fake.state" FAKE_KERNEL_NS=1000000)
poke() { build/region_poke "$@"; }

# run NAME [VAR=VALUE...] -- ARGS...: one gpu_check process under the library, own cache file
run() {
  local name=$1; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  env "${DRV_ENV[@]}" CUDA_DEVICE_MEMORY_SHARED_CACHE="$W/$name.cache" LD_PRELOAD="$LIB" "${envs[@]}" \
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

now_ms() { date +%s%3N; }
# ratio A B with two decimals (B = 0 reads as a tiny number)
ratio() { awk "BEGIN{printf \"%.2f\", ${1:-0}/(${2:-0}+1e-9)}"; }
# wait_region FILE: until a process under the library has launched through FILE's region (its
# last_kernel_time is set on every launch); 30 s at most
wait_region() {
  local _
  for _ in $(seq 300); do
    [ "$(poke "$1" get64 last_kernel_time 2>/dev/null || echo 0)" != 0 ] && return 0
    sleep 0.1
  done
  return 1
}

# P0: region_poke writes exactly the bytes of the field it names, into a region the library made
check_poke() {
  run p0 -- facts
  local r=$W/p0.cache got changed bad1 bad2 bad3
  head -c 256 "$r" >"$W/p0.before" 2>/dev/null
  poke "$r" set32 utilization_switch 0 >/dev/null && poke "$r" set32 48 -1 >/dev/null
  head -c 256 "$r" >"$W/p0.after" 2>/dev/null
  # the four i32 at 40 (priority, utilization_switch, recent_kernel, core_policy), little-endian
  got=$(od -A n -t d4 -j 40 -N 16 "$r" 2>/dev/null | xargs)
  # byte numbers (1-based) that changed: the switch's low byte (1 -> 0) and recent_kernel's four
  changed=$(cmp -l "$W/p0.before" "$W/p0.after" 2>/dev/null | awk '{print $1}' | xargs)
  poke "$r" set32 128 0 >/dev/null 2>&1; bad1=$?    # the lock (128..191) is never written
  poke "$r" set32 46 0 >/dev/null 2>&1; bad2=$?     # misaligned
  poke "$W/p0.txt" get32 priority >/dev/null 2>&1; bad3=$? # not a region
  row "P0 region_poke" "i32 at 40..55: $got; bytes changed: $changed; refusals rc $bad1/$bad2/$bad3" \
    "switch 0, recent_kernel -1, only bytes 45 49 50 51 52 changed; rc 2/2/1" \
    "$(cond "\"$(echo "$got" | awk '{print $2, $3}')\" == \"0 -1\" && \"$changed\" == \"45 49 50 51 52\" && \"$bad1 $bad2 $bad3\" == \"2 2 1\"")"
}

# g8 NAME SWITCH VAR=VALUE...: an sm run like G5's on a fresh region; with SWITCH 0 the monitor's
# utilization_switch is written 0 as soon as the process launches, long before sm's measuring window
# (which opens 5 s in). Leaves the switch and core_policy read back after the run in NAME.region.
g8() {
  local name=$1 sw=$2; shift 2
  run "$name" "$@" "$IT" -- sm "$G5_SECONDS" &
  local pid=$!
  if [ "$sw" = 0 ]; then
    wait_region "$W/$name.cache" && poke "$W/$name.cache" set32 utilization_switch 0 >/dev/null
  fi
  wait "$pid"
  echo "$(poke "$W/$name.cache" get32 utilization_switch 2>/dev/null) $(poke "$W/$name.cache" get32 core_policy 2>/dev/null)" \
    >"$W/$name.region"
}

# G8: SM limit 30 under the default policy follows the monitor's switch; force ignores it
check_g8() {
  local note="" sw0 sw0p swf swfp
  # LIBVGPU_LIMITS_FILE is honoured only when the agent's /etc/vgpu/limits does not exist
  [ -e /etc/vgpu/limits ] && note=" (/etc/vgpu/limits exists: the limits file below is not read)"
  printf 'version=1\nsm_limit=30\ncore_policy=force\n' >"$W/force.limits"
  g8 g8on 1 CUDA_DEVICE_SM_LIMIT=30 GPU_CORE_UTILIZATION_POLICY=default
  g8 g8off 0 CUDA_DEVICE_SM_LIMIT=30 GPU_CORE_UTILIZATION_POLICY=default
  g8 g8force 0 LIBVGPU_LIMITS_FILE="$W/force.limits"
  local U1 K1 U0 K0 UF KF
  U1=$(kv g8on util_mean); K1=$(kv g8on kernels_per_s)
  U0=$(kv g8off util_mean); K0=$(kv g8off kernels_per_s)
  UF=$(kv g8force util_mean); KF=$(kv g8force kernels_per_s)
  read -r sw0 sw0p <"$W/g8off.region"; read -r swf swfp <"$W/g8force.region"
  row "G8 limit 30, switch 1" "util $U1 %, throughput ratio $(ratio "$K1" "$UK")" \
    "util 20..40, ratio 0.20..0.45" \
    "$(cond "${U1:-0} >= 20 && ${U1:-0} <= 40 && $(ratio "$K1" "$UK") >= 0.2 && $(ratio "$K1" "$UK") <= 0.45")"
  row "G8 limit 30, switch 0" "util $U0 % (unlimited $UU %), throughput ratio $(ratio "$K0" "$UK"), switch read back ${sw0:-?}, region core_policy ${sw0p:-?}" \
    "util >= 0.6 x unlimited, ratio >= 0.6, switch 0, core_policy 0" \
    "$(cond "${U0:-0} >= 0.6 * ${UU:-100} && $(ratio "$K0" "$UK") >= 0.6 && \"${sw0:-} ${sw0p:-}\" == \"0 0\"")"
  row "G8 force (limits file), switch 0" "util $UF %, throughput ratio $(ratio "$KF" "$UK"), switch ${swf:-?}, region core_policy ${swfp:-?}$note" \
    "util 20..40, ratio 0.20..0.45, switch 0, core_policy 1" \
    "$(cond "${UF:-0} >= 20 && ${UF:-0} <= 40 && $(ratio "$KF" "$UK") >= 0.2 && $(ratio "$KF" "$UK") <= 0.45 && \"${swf:-}\" == \"0\" && \"${swfp:-}\" == \"1\"")"
}

# phases FILE T_ON T_OFF: from a rate run's counts, "pre held stop_ms resume_ms post": kernels/s
# before the hold (from 1 s after the start), during the hold (from 1 s after T_ON), after it (from
# 2 s after T_OFF, without the last bucket); the end of the last non-empty bucket after T_ON that
# ends by T_OFF, less T_ON (a bucket holding T_OFF may hold launches after the release); the start of the first non-empty bucket ending after T_OFF less T_OFF
# (0 when it contains T_OFF, -1 when none)
phases() {
  awk -F= -v on="$2" -v off="$3" '
    $1 == "started_ms" { s = $2 } $1 == "bucket_ms" { b = $2 } $1 == "counts" { c = $2 }
    function rate(lo, hi,   i, n, k, t) {
      for (i = 1; i < nc; i++) { t = s + (i - 1) * b; if (t >= lo && t + b <= hi) { n += v[i]; k++ } }
      return k ? n * 1000 / (k * b) : -1
    }
    END {
      nc = split(c, v, ","); end = s + nc * b; stop = 0; resume = -1
      for (i = 1; i <= nc; i++) {
        t = s + (i - 1) * b
        if (v[i] > 0 && t + b > on && t + b <= off && t + b - on > stop) stop = t + b - on
        if (v[i] > 0 && t + b > off && resume < 0) resume = t > off ? t - off : 0
      }
      printf "%.1f %.1f %d %d %.1f\n", rate(s + 1000, on), rate(on + 1000, off), stop, resume, rate(off + 2000, end)
    }' "$1"
}

# G9: two unlimited processes, each with its own region and limits file (priority 0 and 1); the
# monitor's hold (recent_kernel -1 in the low one's region) stops its launches, and 0 lets them go
check_g9() {
  local note="" t_on t_off
  [ -e /etc/vgpu/limits ] && note=" (/etc/vgpu/limits exists: the limits files below are not read)"
  printf 'version=1\npriority=0\n' >"$W/high.limits"
  printf 'version=1\npriority=1\n' >"$W/low.limits"
  run g9high LIBVGPU_LIMITS_FILE="$W/high.limits" "$IT" -- rate "$G9_SECONDS" 100 &
  local ph=$!
  run g9low LIBVGPU_LIMITS_FILE="$W/low.limits" "$IT" -- rate "$G9_SECONDS" 100 &
  local pl=$!
  for _ in $(seq 600); do
    grep -q '^started_ms=' "$W/g9high.txt" 2>/dev/null && grep -q '^started_ms=' "$W/g9low.txt" 2>/dev/null && break
    sleep 0.1
  done
  sleep 4
  # play the monitor: the low-priority region is the one whose priority field says 1
  local PH PL
  PH=$(poke "$W/g9high.cache" get32 priority 2>/dev/null); PL=$(poke "$W/g9low.cache" get32 priority 2>/dev/null)
  poke "$W/g9low.cache" set32 recent_kernel -1 >/dev/null
  t_on=$(now_ms)
  sleep 5
  poke "$W/g9low.cache" set32 recent_kernel 0 >/dev/null
  t_off=$(now_ms)
  wait "$ph" "$pl"
  local LP LH LS LR LA HP HH
  read -r LP LH LS LR LA <<<"$(phases "$W/g9low.txt" "$t_on" "$t_off")"
  read -r HP HH _ _ _ <<<"$(phases "$W/g9high.txt" "$t_on" "$t_off")"
  row "G9 priority hold" "priorities $PH/$PL; low: $LP kernels/s before, $LH held (last launch ${LS} ms after the hold), resumed after ${LR} ms, $LA after; high: $HP, then $HH while the low one is held$note" \
    "priorities 0/1; held <= 2 % of before, last launch <= 1100 ms, resumed <= 2000 ms, after >= 0.5 x before" \
    "$(cond "\"$PH $PL\" == \"0 1\" && ${LP:-0} > 0 && ${LH:--1} >= 0 && ${LH:-1e9} <= 0.02 * ${LP:-0} && ${LS:-1e9} <= 1100 && ${LR:--1} >= 0 && ${LR:-1e9} <= 2000 && ${LA:-0} >= 0.5 * ${LP:-0}")"
}

# G10: PyTorch (when the machine has it) under a 4 GiB limit, through cudart's cuGetProcAddress
check_g10() {
  local py=${PYTHON:-python3}
  if ! "$py" -c 'import torch' >/dev/null 2>&1; then
    ROWS+=("| G10 PyTorch | torch not installed | - | SKIPPED |")
    return
  fi
  env CUDA_DEVICE_MEMORY_SHARED_CACHE="$W/g10.cache" CUDA_DEVICE_MEMORY_LIMIT=4g LD_PRELOAD="$LIB" \
    "$py" test/gpu/torch_check.py >"$W/g10.txt" 2>"$W/g10.err"
  echo "--- g10: $(tr '\n' ' ' <"$W/g10.txt")" >&2
  local T F
  local R
  T=$(kv g10 total); F=$(kv g10 free); R=$(kv g10 free_after_release)
  row "G10 PyTorch $(kv g10 torch)" "total $T, free $F; 3 GiB fits $(kv g10 fits_3g); 2 GiB more OOM $(kv g10 oom_2g_more); free after release $R, 3 GiB again $(kv g10 refits_3g); matmul $(kv g10 matmul_ok)" \
    "total = 4 GiB, 3 GiB fits, OOM error beyond, free back to ±64 MiB, 3 GiB fits again" \
    "$(cond "\"$T\" == \"$GIB4\" && \"$(kv g10 fits_3g)\" == \"1\" && \"$(kv g10 oom_2g_more)\" == \"1\" && \"$(kv g10 refits_3g)\" == \"1\" && ${R:-0} - ${F:-0} <= 64*$MIB && ${F:-0} - ${R:-0} <= 64*$MIB && \"$(kv g10 matmul_ok)\" == \"1\"")"
}

finish() {
  TABLE=$(printf '| check | measured | criterion | result |\n|---|---|---|---|\n'; printf '%s\n' "${ROWS[@]}")
  echo
  [ "$MODE" = fake ] && echo "fake driver (--self-test): the script's plumbing only, not the real driver"
  echo "$TABLE"
  if [ -n "$OUT_DIR" ]; then
    mkdir -p "$OUT_DIR" && echo "$TABLE" >"$OUT_DIR/results.md"
    cp "$W"/*.txt "$W"/*.err "$OUT_DIR"/ 2>/dev/null || true
  fi
  exit $FAILED
}

if [ "$MODE" = fake ]; then
  check_poke
  run g5u -- sm "$G5_SECONDS"
  IT="VGPU_CHECK_ITERS=$(kv g5u iters)"
  UU=$(kv g5u util_mean); UK=$(kv g5u kernels_per_s)
  row "G5 unlimited (baseline)" "util $UU %, $UK kernels/s" "util >= 80" "$(cond "${UU:-0} >= 80")"
  check_g8
  check_g9
  finish
fi

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

check_poke
check_g8
check_g9
check_g10
finish
