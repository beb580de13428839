import type { BenchCase } from '../lib/bench-case.js';
import { runCase } from './run.js';
import { sseCase } from './sse.js';

/** Every benchmark `npm run bench` knows; add new modules here. */
export const benchCases: BenchCase[] = [runCase, sseCase];
