// Points the wasm-bindgen glue's `__wbindgen_throw` (a freed object, re-entry into a busy
// object) at runtime.js `__sr_misuse`, so those errors are StreamrouteErrors too; makes
// `free()` safe inside a call on the same object, a too-long string result a
// StreamrouteError, a call before `init()` `not_initialized` and a trapped instance one that
// is replaced (below). Exits
// non-zero when the glue does not have exactly the expected shape (a wasm-bindgen upgrade
// must revisit this), never patching silently halfway.
import { readFileSync, writeFileSync } from 'node:fs';

const file = process.argv[2];
let glue = readFileSync(file, 'utf8');
const fail = (why) => {
  console.error(`patch-glue: ${why} in ${file}`);
  process.exit(1);
};

// The instance's life (pkg/entry/wasm-imports.js says why), added after the glue's `wasm`. Every
// export of an instance is called through a wrapper of `__sr_own`: a trap loses the instance
// (runtime.js `__sr_string_error` counts a generation more) and the call throws
// `memory_limit_exceeded`; from then on a call of the lost instance does nothing (the `finally`
// blocks still to run), and one that was running when it was lost throws `instance_lost`. The
// streaming handles' feed path (`feed`, `finish`, `fromUnits`, `inPtr`) calls the
// export itself (`.raw`, no wrapper on the hot path; an entry without such handles has no
// `.raw`): boundary.js reaches it only through a live object, and passes what it throws
// through `__sr_string_error` too. `__sr_enter` begins every constructor and exported
// function: a fresh instance of the same compiled module when the last was lost (never while a
// call of it is still running), the cap of `init({ maxMemoryBytes })`, and room to begin
// (`memory_limit_exceeded` before anything is done; crates/heap `__sr_heap_enter`).
// `__sr_memory` (boundary.js asks it after a constructor) and `__streamroute_start` do
// without. A handle's finalizer frees its memory only in the instance it was made in.
const LIFE = `let __sr_depth = 0, __sr_inst = 0;
function __sr_own(exports) {
    const own = {}, g = __sr_inst = __sr_gen;
    for (const k in exports) {
        const f = exports[k];
        own[k] = !f.call ? f : Object.assign((...a) => {
            if (g !== __sr_gen) return;
            __sr_depth++;
            try {
                const r = f(...a);
                if (g === __sr_gen) return r;
            } catch (e) {
                if (g === __sr_gen) throw __sr_string_error(e);
            } finally {
                __sr_depth--;
            }
            throw __sr_lost();
        }, { raw: f });
    }
    return own;
}
function __sr_enter() {
    if (__sr_inst !== __sr_gen) {
        if (__sr_depth) throw __sr_lost();
        try {
            __wbg_finalize_init(new WebAssembly.Instance(wasmModule, __wbg_get_imports()), wasmModule);
        } catch {
            throw __sr_oom();
        }
    }
    if (!wasm.__sr_heap_enter(__sr_max_bytes)) throw __sr_oom();
}`;

const importLine = /^import \{ ([^}]*) \} from '(\.\/snippets\/[^']+\/pkg\/entry\/wasm-imports\.js)';$/m;
const m = glue.match(importLine);
if (!m) fail('no import of wasm-imports.js');
glue = glue.replace(
  importLine,
  `import { ${m[1]}, __sr_misuse, __sr_string_error, __sr_not_ready, __sr_gen, __sr_lost, __sr_oom, __sr_max_bytes } from '${m[2]}';`,
);

// Before `init()` the glue's `wasm` is runtime.js `__sr_not_ready`, whose every property
// throws `not_initialized` (in a browser, a class constructed before `await init()`), and
// the init functions test for it instead of `undefined`.
const wasmLet = /^let wasmModule, wasmInstance, wasm;$/m;
if (!wasmLet.test(glue)) fail('no `let wasmModule, wasmInstance, wasm;`');
glue = glue.replace(wasmLet, () => `let wasmModule, wasmInstance, wasm = __sr_not_ready;\n${LIFE}`);
const loadedTest = /if \(wasm !== undefined\) return wasm;/g;
if ((glue.match(loadedTest)?.length ?? 0) !== 2) fail('not two `if (wasm !== undefined) return wasm;`');
glue = glue.replace(loadedTest, 'if (wasm !== __sr_not_ready) return wasm;');

const thrower = /(__wbg___wbindgen_throw_[0-9a-f]+: function\(arg0, arg1\) \{\s*)throw new Error\(getStringFromWasm0\(arg0, arg1\)\);/g;
const hits = glue.match(thrower)?.length ?? 0;
if (hits !== 1) fail(`${hits} __wbindgen_throw imports (expected 1)`);
glue = glue.replace(thrower, '$1throw __sr_misuse(getStringFromWasm0(arg0, arg1));');

// `free()` while the object is in a call (a callback of its own, a getter of an argument
// calling free) would otherwise throw from wasm after the JS side had already let go of the
// object: a zombie that JS calls freed and wasm never frees. With wasm-bindgen's delayed free
// (what its FinalizationRegistry uses) the call in progress finishes and the object is freed
// when it returns; every later call is `invalid_state` (freed).
const free = /(free\(\) \{\s*const ptr = this\.__destroy_into_raw\(\);\s*wasm\.__wbg_[a-z0-9_]+_free\(ptr, )0(\);)/g;
const frees = glue.match(free)?.length ?? 0;
if (frees === 0) fail('no free() methods');
glue = glue.replace(free, '$11$2');
if (/_free\(ptr, 0\)/.test(glue)) fail('a free(ptr, 0) call outside the free() methods');

// A string result too long for the JS engine: `memory_limit_exceeded` (runtime.js
// `__sr_string_error`), not the engine's plain Error.
const getString = /(function getStringFromWasm0\(ptr, len\) \{\s*)return (decodeText\(ptr >>> 0, len\));/;
if (!getString.test(glue)) fail('no getStringFromWasm0 of the expected shape');
glue = glue.replace(getString, '$1try {\n        return $2;\n    } catch (e) {\n        throw __sr_string_error(e);\n    }');

const finalize = /(function __wbg_finalize_init\(instance, module\) \{\s*wasmInstance = instance;\s*)wasm = instance\.exports;/;
if (!finalize.test(glue)) fail('no __wbg_finalize_init of the expected shape');
glue = glue.replace(finalize, '$1wasm = __sr_own(instance.exports);');
const hot = /^( {4}(?:feed|finish|fromUnits|inPtr)\([^)]*\) \{\n {8}const ret = wasm\.\w+)\(/gm;
if (hot.test(glue)) glue = glue.replace(hot, '$1.raw(');
else glue = glue.replace('Object.assign((...a) => {', '((...a) => {').replace('}, { raw: f });', '});');
const entries = /^(export function (\w+)\([^)]*\) \{| {4}constructor\([^)]*\) \{)$/gm;
let entered = 0;
glue = glue.replace(entries, (line, _, name) => {
  if (name?.startsWith('__s')) return line; // __sr_memory, __streamroute_start
  entered++;
  return `${line}\n    __sr_enter();`;
});
if (entered < 2) fail(`${entered} constructors and functions to begin with __sr_enter`);
const registry = /new FinalizationRegistry\(ptr => (wasm\.\w+)\(ptr, 1\)\)/g;
const registers = /(Finalization\.register\(this, )this\.__wbg_ptr(, this\);)/g;
const registries = glue.match(registry)?.length ?? 0;
if (registries === 0 || registries !== (glue.match(registers)?.length ?? 0) || /\.register\(obj/.test(glue)) {
  fail('finalizers not of the expected shape');
}
glue = glue.replace(registry, 'new FinalizationRegistry(([ptr, gen]) => gen === __sr_gen && $1(ptr, 1))');
glue = glue.replace(registers, '$1[this.__wbg_ptr, __sr_gen]$2');

writeFileSync(file, glue);
