import type { BenchCase } from '../lib/bench-case.js';
import { a2aCase } from './a2a.js';
import { postgresCase } from './postgres.js';
import { runCase } from './run.js';
import { runtimeCase } from './runtime.js';
import { scaleCase } from './scale.js';
import { sendCase } from './send.js';
import { sseCase } from './sse.js';
import { storeCase } from './store.js';
import { wakeCase } from './wake.js';
import { warmCase } from './warm.js';
import { workerCase } from './worker.js';

/** Every benchmark `npm run bench` knows; add new modules here. */
export const benchCases: BenchCase[] = [
  runCase,
  storeCase,
  postgresCase,
  runtimeCase,
  sseCase,
  a2aCase,
  scaleCase,
  wakeCase,
  warmCase,
  sendCase,
  workerCase,
];
