// `node --import bench/lib/module-list.mjs ...`: writes to $BENCH_MODULE_LIST every ES module the
// process loads (by its loader hooks) and, when it exits, every CommonJS module in require's cache
// (lines starting `cjs:`). What a benchmark counts to see what a process loads.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

register(new URL('./module-list-hooks.mjs', import.meta.url));
const require = createRequire(import.meta.url);
process.on('exit', () => {
  const file = process.env.BENCH_MODULE_LIST;
  if (!file) return;
  appendFileSync(
    file,
    Object.keys(require.cache)
      .map((path) => `cjs:${path}\n`)
      .join(''),
  );
});
