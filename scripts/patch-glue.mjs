// Points the wasm-bindgen glue's `__wbindgen_throw` (a freed object, re-entry into a busy
// object) at runtime.js `__sr_misuse`, so those errors are StreamrouteErrors too. Exits
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
glue = glue.replace(importLine, `import { ${m[1]}, __sr_misuse } from '${m[2]}';`);

const thrower = /(__wbg___wbindgen_throw_[0-9a-f]+: function\(arg0, arg1\) \{\s*)throw new Error\(getStringFromWasm0\(arg0, arg1\)\);/g;
const hits = glue.match(thrower)?.length ?? 0;
if (hits !== 1) fail(`${hits} __wbindgen_throw imports (expected 1)`);
glue = glue.replace(thrower, '$1throw __sr_misuse(getStringFromWasm0(arg0, arg1));');

writeFileSync(file, glue);
