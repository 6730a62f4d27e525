# Shared setup for the scripts: installs what the build and tests need, idempotently.
# Sourced, not run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WASM_BINDGEN_VERSION="0.2.129"
export PATH="$HOME/.cargo/bin:$PATH"

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

apt_install() {
  # apt_install PKG...: installs the Debian packages that are missing.
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "apt-get install ${missing[*]}"
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

ensure_wasm_toolchain() {
  if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    log "rustup target add wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
  fi
  if ! wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION"; then
    log "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION (takes a few minutes, once)"
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --locked
  fi
}

npm_ci() {
  # npm_ci DIR: installs DIR's locked npm dependencies when they changed.
  local dir="$1"
  local stamp="$dir/node_modules/.streamroute-lock"
  if [ -f "$stamp" ] && cmp -s "$dir/package-lock.json" "$stamp"; then return 0; fi
  log "npm ci in ${dir#$ROOT/}"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$dir/package-lock.json" "$stamp"
}

build_wasm() {
  # build_wasm DIST [CARGO_ARGS...]: the release .wasm (size-optimised) and its ESM glue as
  # DIST/streamroute_bg.wasm and DIST/streamroute.js: cargo (wasm32), wasm-bindgen, the glue
  # patch, wasm-opt -Oz, short import and export names. CARGO_ARGS pick the features;
  # CARGO_TARGET_DIR and SR_INLINE_THRESHOLD are honoured.
  local dist="$1"; shift
  local target="${CARGO_TARGET_DIR:-$ROOT/target}"
  log "cargo build --release --target wasm32-unknown-unknown $*"
  # Size: LLVM's inline threshold at 50 instead of 225 (opt-level 2, Cargo.toml) makes the
  # gzipped .wasm smaller at no speed cost (bench/README "Size"). Lower thresholds, a lower
  # threshold for #[inline] functions, or no loop unrolling slow the router or SSE
  # (bench/README.md, "Measurements behind design choices"); an
  # entry may set its own (scripts/entries.json `inline`, passed as SR_INLINE_THRESHOLD) where
  # its bench says it costs no speed.
  local inline="${SR_INLINE_THRESHOLD:-50}"
  local size_flags="-C llvm-args=-inline-threshold=$inline"
  # Other flags rebuild every dependency: such builds get their own directory, so that the
  # others stay cached.
  [ "$inline" != 50 ] && target="$target/inline-$inline"
  (cd "$ROOT" && CARGO_TARGET_DIR="$target" RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+simd128 $size_flags" \
    cargo build --release --target wasm32-unknown-unknown --lib --quiet "$@")

  rm -rf "$dist"
  wasm-bindgen --target web --out-dir "$dist" --out-name streamroute \
    "$target/wasm32-unknown-unknown/release/streamroute.wasm"

  # wasm-bindgen's own checks (a freed object, re-entry) throw a plain Error from the glue's
  # `__wbindgen_throw`; make it a StreamrouteError like every other error (runtime.js
  # `__sr_misuse`). Fails the build if the pinned wasm-bindgen's glue ever reads differently.
  node "$ROOT/scripts/patch-glue.mjs" "$dist/streamroute.js"

  # --low-memory-unused: rustc's wasm32 layout puts the stack first and data above 1 MiB, so
  # the low 1 KiB is never addressed; wasm-opt may then fold address arithmetic into load and
  # store offsets (bench/README "Size"; bench/README.md, "Measurements behind design choices").
  log "wasm-opt -Oz"
  "$ROOT/scripts/node_modules/.bin/wasm-opt" -Oz --low-memory-unused --enable-bulk-memory --enable-sign-ext \
    --enable-mutable-globals --enable-nontrapping-float-to-int --enable-reference-types \
    --enable-multivalue --enable-simd --strip-debug --strip-producers \
    "$dist/streamroute_bg.wasm" -o "$dist/streamroute_bg.wasm"

  # Short import and export names (`a`, `b`, ...) in the .wasm, and the same in the glue
  # (scripts/minify-names.mjs): wasm-bindgen's names and their hash suffixes do not compress
  # (bench/README.md, "Measurements behind design choices").
  log "wasm-opt: short import and export names"
  "$ROOT/scripts/node_modules/.bin/wasm-opt" --minify-imports-and-exports-and-modules \
    --enable-bulk-memory --enable-sign-ext --enable-mutable-globals --enable-nontrapping-float-to-int \
    --enable-reference-types --enable-multivalue --enable-simd \
    "$dist/streamroute_bg.wasm" -o "$dist/streamroute_bg.wasm" > "$dist/names.json"
  node "$ROOT/scripts/minify-names.mjs" "$dist/names.json" "$dist/streamroute.js"
}
