// Points the wasm-bindgen glue's `__wbindgen_throw` (a freed object, re-entry into a busy
// object) at runtime.js `__sr_misuse`, so those errors are StreamrouteErrors too; makes
// `free()` safe inside a call on the same object, a too-long string result a
// StreamrouteError and a call before `init()` `not_initialized` (below). Exits
// non-zero when the glue does not have exactly the expected shape (a wasm-bindgen upgrade
// must revisit this), never patching silently halfway.
import { readFileSync, writeFileSync } from 'node:fs';

const file = process.argv[2];
let glue = readFileSync(file, 'utf8');
const fail = (why) => {
  console.error(`patch-glue: ${why} in ${file}`);
  process.exit(1);
};

const importLine = /^import \{ ([^}]*) \} from '(\.\/snippets\/[^']+\/src\/wasm\/runtime\.js)';$/m;
const m = glue.match(importLine);
if (!m) fail('no import of runtime.js');
glue = glue.replace(importLine, `import { ${m[1]}, __sr_misuse, __sr_string_error, __sr_not_ready } from '${m[2]}';`);

// Before `init()` the glue's `wasm` is runtime.js `__sr_not_ready`, whose every property
// throws `not_initialized` (in a browser, a class constructed before `await init()`), and
// the init functions test for it instead of `undefined`.
const wasmLet = /^let wasmModule, wasmInstance, wasm;$/m;
if (!wasmLet.test(glue)) fail('no `let wasmModule, wasmInstance, wasm;`');
glue = glue.replace(wasmLet, 'let wasmModule, wasmInstance, wasm = __sr_not_ready;');
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

writeFileSync(file, glue);
