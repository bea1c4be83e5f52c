#!/usr/bin/env bash
# Builds memhier and runs the whole test suite (`cmake --workflow --preset ci`). No GPU needed:
# GPU tests skip. Installs missing Debian packages first when it can (root and apt-get present):
# the build tools and libraries, clang for the fuzz test, chromium for the site test, slurm-wlm
# and munge for the Slurm test.
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # the header above
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v ninja >/dev/null 2>&1 || need+=(ninja-build)
command -v g++ >/dev/null 2>&1 || need+=(g++)
python3 -c 'import matplotlib' 2>/dev/null || /usr/bin/python3 -c 'import matplotlib' 2>/dev/null || need+=(python3-matplotlib)
if command -v dpkg-query >/dev/null 2>&1; then
  for p in libbenchmark-dev libgtest-dev nlohmann-json3-dev; do
    have_pkg "$p" || need+=("$p")
  done
  # the browser test of the results site (tests/site: Playwright drives Debian's Chromium) and the
  # single-node Slurm of the fleet test (tests/cli/slurm); each skips, saying why, without them
  for p in chromium slurm-wlm munge; do
    have_pkg "$p" || need+=("$p")
  done
  command -v npm >/dev/null 2>&1 || need+=(npm)
  # the fuzz smoke test (tests/fuzz): clang with libFuzzer; it skips without them
  command -v clang++ >/dev/null 2>&1 || need+=(clang)
  if command -v clang++ >/dev/null 2>&1; then
    v=$(clang++ -dumpversion 2>/dev/null | cut -d. -f1)
    [ -n "$v" ] && ! have_pkg "libclang-rt-$v-dev" && apt-cache show "libclang-rt-$v-dev" >/dev/null 2>&1 && need+=("libclang-rt-$v-dev")
  fi
fi
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test.sh: installing ${need[*]}"
    apt-get update -qq || true
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null 2>&1; then
      # one package the mirror cannot resolve (npm's dependencies at times) must not keep the others out
      for p in "${need[@]}"; do
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$p" >/dev/null 2>&1 \
          || echo "test.sh: could not install $p; the tests that need it skip, saying why" >&2
      done
    fi
  else
    echo "test.sh: missing packages (${need[*]}); continuing, CMake will say what it cannot find" >&2
  fi
fi
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
export CUDACXX=${CUDACXX:-$(command -v nvcc || true)}

cmake --workflow --preset ci
