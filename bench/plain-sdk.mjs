// The baseline for bench/cases/run.ts: the SDK's own query() with a string prompt and default
// options, printing each message as one JSON line, the way an SDK user's script would.
import { query } from '@anthropic-ai/claude-agent-sdk';

const prompt = process.argv[2] ?? 'hi';
for await (const message of query({ prompt, options: { cwd: process.cwd(), env: { ...process.env } } })) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}
