// Type-checks a TypeScript consumer of the installed package under `tsc --strict`: writes
// `source` as FILE (ok.mts unless named) in tests/js/.tmp/consumer/NAME (where `streamroute` resolves to the packed
// package) and returns tsc's exit status and output.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JS_DIR } from './runtimes.mjs';

export function typecheck(name, source, file = 'ok.mts') {
  const dir = join(JS_DIR, '.tmp', 'consumer', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        lib: ['es2022', 'dom', 'esnext.disposable'],
        skipLibCheck: false,
        types: [],
      },
      files: [file],
    }),
  );
  writeFileSync(join(dir, file), source);
  const tsc = join(JS_DIR, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' });
  return { status: r.status, output: r.stdout + r.stderr };
}
