// Module loader hooks (run on the loader's thread): every ES module a process loads, one URL a line.
import { appendFileSync } from 'node:fs';

const file = process.env.BENCH_MODULE_LIST;

export async function load(url, context, next) {
  if (file) appendFileSync(file, `${url}\n`);
  return next(url, context);
}
