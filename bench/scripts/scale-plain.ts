/**
 * The plain side of bench/scripts/scale.ts: SDK `query()` sessions in this one process, each with a
 * streaming input that stays open (one `claude` each), as an application without agentd would hold
 * them. On `grow N` (stdin) it starts sessions up to N, each warmed up with one turn, and prints a
 * JSON line (the parent measures memory and idle CPU then); on `turns` it takes the same steady
 * turns as the agentd side and prints their latencies as a JSON line.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { query, type SDKMessage, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';

const rounds = Number(process.env.BENCH_SCALE_ROUNDS);
const periodMs = Number(process.env.BENCH_SCALE_PERIOD_MS);
const minFreeMib = Number(process.env.BENCH_SCALE_MIN_FREE_MIB);
const batch = 10;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const round1 = (value: number) => Math.round(value * 10) / 10;

function availableMib(): number {
  const meminfo = readFileSync('/proc/meminfo', 'utf8');
  return Number(/^MemAvailable:\s+(\d+) kB/m.exec(meminfo)?.[1] ?? 0) / 1024;
}

function percentiles(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
  return { p50: round1(at(50)), p95: round1(at(95)), p99: round1(at(99)), n: sorted.length };
}

/** One open `query()`: push a prompt, read its messages. */
class PlainSession {
  private readonly pending: SDKUserMessage[] = [];
  private wakeInput: (() => void) | undefined;
  private listener: ((message: SDKMessage) => void) | undefined;

  constructor() {
    const self = this;
    async function* prompts(): AsyncGenerator<SDKUserMessage> {
      for (;;) {
        while (self.pending.length > 0) yield self.pending.shift()!;
        await new Promise<void>((resolve) => {
          self.wakeInput = resolve;
        });
      }
    }
    const messages = query({
      prompt: prompts(),
      options: { cwd: process.env.BENCH_CWD!, env: { ...process.env } },
    });
    void (async () => {
      for await (const message of messages) this.listener?.(message);
    })();
  }

  async turn(text: string): Promise<{ firstEventMs: number; endMs: number }> {
    const started = performance.now();
    let firstEventMs = Number.NaN;
    const ended = new Promise<void>((resolve) => {
      this.listener = (message) => {
        if (Number.isNaN(firstEventMs) && message.type === 'assistant')
          firstEventMs = performance.now() - started;
        if (message.type === 'result') resolve();
      };
    });
    this.pending.push({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null });
    this.wakeInput?.();
    await ended;
    return { firstEventMs, endMs: performance.now() - started };
  }
}

const sessions: PlainSession[] = [];
const commands = createInterface({ input: process.stdin });
for await (const command of commands) {
  if (command.startsWith('grow ')) {
    const count = Number(command.slice('grow '.length));
    let stoppedGrowingAt: number | null = null;
    const warmStarted = performance.now();
    while (sessions.length < count) {
      if (availableMib() < minFreeMib) {
        stoppedGrowingAt = sessions.length;
        process.stderr.write(
          `plain: stopped growing at ${sessions.length}: under ${minFreeMib} MiB available\n`,
        );
        break;
      }
      const wave = Array.from({ length: Math.min(batch, count - sessions.length) }, () => new PlainSession());
      sessions.push(...wave);
      await Promise.all(wave.map((session) => session.turn('warm up')));
      process.stderr.write(`plain: ${sessions.length}/${count} sessions live\n`);
    }
    const warmUpS = round1((performance.now() - warmStarted) / 1000);
    process.stdout.write(`${JSON.stringify({ sessions: sessions.length, stoppedGrowingAt, warmUpS })}\n`);
  } else if (command === 'turns') {
    const times: Array<{ firstEventMs: number; endMs: number }> = [];
    let late = 0;
    const startedAt = performance.now();
    await Promise.all(
      sessions.map(async (session, index) => {
        for (let round = 0; round < rounds; round++) {
          const wait =
            startedAt + round * periodMs + (index / sessions.length) * periodMs - performance.now();
          if (wait > 0) await sleep(wait);
          else late++;
          times.push(await session.turn(`turn ${round} of ${index}`));
        }
      }),
    );
    process.stdout.write(
      `${JSON.stringify({
        sendToFirstEventMs: percentiles(times.map((each) => each.firstEventMs)),
        sendToEndOfTurnMs: percentiles(times.map((each) => each.endMs)),
        turnsStartedLate: late,
        turnsPerSecond: round1(sessions.length / (periodMs / 1000)),
      })}\n`,
    );
  }
}
process.exit(0);
