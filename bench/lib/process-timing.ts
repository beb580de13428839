import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

export interface ProcessTiming {
  /** Spawn to the first complete line on stdout. */
  firstLineMs: number;
  /** Spawn to the first line that `isAnswer` accepts. */
  firstAnswerMs: number;
  /** Spawn to process exit. */
  exitMs: number;
  exitCode: number | null;
  lines: number;
}

export interface TimeProcessOptions {
  command: string;
  args: string[];
  env: Record<string, string | undefined>;
  cwd: string;
  isAnswer: (line: string) => boolean;
}

/** Runs a process to its end, timing its first line, its first answer line and its exit. */
export function timeProcess(options: TimeProcessOptions): Promise<ProcessTiming> {
  return new Promise((resolve, reject) => {
    const startedAt = performance.now();
    const child = spawn(options.command, options.args, { cwd: options.cwd, env: options.env });
    let firstLineMs = Number.NaN;
    let firstAnswerMs = Number.NaN;
    let lines = 0;
    let buffer = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        const now = performance.now() - startedAt;
        lines++;
        if (Number.isNaN(firstLineMs)) firstLineMs = now;
        if (Number.isNaN(firstAnswerMs) && options.isAnswer(line)) firstAnswerMs = now;
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (exitCode) => {
      const exitMs = performance.now() - startedAt;
      if (exitCode !== 0) {
        reject(
          new Error(`${options.command} ${options.args.join(' ')} exited ${exitCode}: ${stderr.trim()}`),
        );
        return;
      }
      resolve({ firstLineMs, firstAnswerMs, exitMs, exitCode, lines });
    });
  });
}
