/** What one benchmark module reports back to the runner. */
export interface BenchReport {
  /** A markdown table (or several lines of markdown) for the console and BENCHMARKS.md. */
  markdown: string;
  /** Everything measured, written to bench/results/<case>.json. */
  data: Record<string, unknown>;
}

export interface BenchContext {
  /** Repetitions asked for with BENCH_RUNS. @default 10 */
  runs: number;
  /** Repository root. */
  root: string;
  log(line: string): void;
}

/** One benchmark: add a module under bench/cases/ and list it in bench/cases/index.ts. */
export interface BenchCase {
  name: string;
  description: string;
  run(context: BenchContext): Promise<BenchReport>;
}
