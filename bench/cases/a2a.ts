import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Message, Role } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { startServer } from '../../src/server/serve.js';
import { startScriptedModel } from '../../src/testing/index.js';
import type { BenchCase } from '../lib/bench-case.js';
import { ms, summarize } from '../lib/stats.js';

function message(text: string, contextId: string): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId: '',
    role: Role.ROLE_USER,
    parts: [
      { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' },
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

const spread = (values: number[]) => {
  const summary = summarize(values);
  return `${ms(summary.median)} (${Math.round(summary.min)}–${Math.round(summary.max)})`;
};

/**
 * A2A SendStreamingMessage (JSON-RPC, the @a2a-js/sdk client) on a live session against the same
 * turn through the library: `runtime.send()` and `runtime.events({ follow })`. Both measure to the
 * first event the caller sees and to the end of the turn.
 */
export const a2aCase: BenchCase = {
  name: 'a2a',
  description:
    'A2A streaming send (JSON-RPC, @a2a-js/sdk client) against a direct runtime call, one live session each',
  async run({ runs, log }) {
    const root = mkdtempSync(join(tmpdir(), 'agentd-bench-a2a-'));
    const cwd = join(root, 'work');
    mkdirSync(cwd);
    const model = await startScriptedModel({ script: () => ({ text: 'pong' }) });
    const server = await startServer({
      port: 0,
      dataDir: join(root, 'data'),
      env: { ...process.env, ...model.env(), CLAUDE_CWD: cwd, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
    });
    const sessions: string[] = [];
    try {
      const client = await new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ['JSONRPC'] }),
      ).createFromUrl(server.url);
      const contextId = randomUUID();
      const a2aFirst: number[] = [];
      const a2aOutput: number[] = [];
      const a2aEnd: number[] = [];
      const streamTurn = async (text: string) => {
        const started = performance.now();
        let first: number | undefined;
        let firstOutput: number | undefined;
        for await (const event of client.sendMessageStream({
          tenant: '',
          message: message(text, contextId),
          configuration: undefined,
          metadata: undefined,
        })) {
          first ??= performance.now() - started;
          // The model's answer reaches an A2A client as an artifact or an agent message.
          const kind = event.payload?.$case;
          if (kind === 'artifactUpdate' || kind === 'message') firstOutput ??= performance.now() - started;
        }
        return {
          first: first ?? Number.NaN,
          output: firstOutput ?? Number.NaN,
          end: performance.now() - started,
        };
      };
      await streamTurn('warm up');

      const { session } = await server.runtime.createSession({ cwd, prompt: 'warm up' });
      sessions.push(session.id);
      let cursor = 0;
      const follow = async (untilSettled: boolean) => {
        const controller = new AbortController();
        const started = performance.now();
        let first: number | undefined;
        let output: number | undefined;
        for await (const event of server.runtime.events(session.id, {
          after: cursor,
          follow: true,
          signal: controller.signal,
        })) {
          cursor = event.cursor;
          if (event.type !== 'input.accepted') first ??= performance.now() - started;
          if (event.type === 'agent.message') output ??= performance.now() - started;
          if (event.type === 'work.settled' && untilSettled) break;
        }
        controller.abort();
        return { first: first ?? Number.NaN, output: output ?? Number.NaN, end: performance.now() - started };
      };
      await follow(true);
      const directFirst: number[] = [];
      const directOutput: number[] = [];
      const directEnd: number[] = [];
      for (let run = 0; run < runs; run++) {
        const viaA2a = await streamTurn(`ping ${run}`);
        a2aFirst.push(viaA2a.first);
        a2aOutput.push(viaA2a.output);
        a2aEnd.push(viaA2a.end);
        const started = performance.now();
        const followed = follow(true);
        await server.runtime.send(session.id, { text: `ping ${run}` });
        const direct = await followed;
        directFirst.push(direct.first);
        directOutput.push(direct.output);
        directEnd.push(performance.now() - started);
        log(
          `  run ${run + 1}: a2a ${Math.round(viaA2a.first)}/${Math.round(viaA2a.end)} ms, direct ${Math.round(direct.first)}/${Math.round(directEnd.at(-1)!)} ms`,
        );
      }
      const ratio = (a: number[], b: number[]) => (summarize(a).median / summarize(b).median).toFixed(2);
      const markdown = [
        '| measured (median, min–max) | A2A streaming send | direct runtime call | A2A / direct |',
        '| --- | --- | --- | --- |',
        `| to the first streamed event | ${spread(a2aFirst)} | ${spread(directFirst)} | ${ratio(a2aFirst, directFirst)} |`,
        `| to the model's answer | ${spread(a2aOutput)} | ${spread(directOutput)} | ${ratio(a2aOutput, directOutput)} |`,
        `| to the end of the turn | ${spread(a2aEnd)} | ${spread(directEnd)} | ${ratio(a2aEnd, directEnd)} |`,
        '',
        "The first streamed event is A2A's task snapshot (sent once the message is journaled) and the journal's first event after `input.accepted` on the direct path; the answer is A2A's artifact and the journal's `agent.message`.",
      ].join('\n');
      return { markdown, data: { runs, a2aFirst, a2aOutput, a2aEnd, directFirst, directOutput, directEnd } };
    } finally {
      for (const id of sessions) await server.runtime.stop(id).catch(() => null);
      for (const listed of await server.runtime.listSessions())
        await server.runtime.stop(listed.id).catch(() => null);
      await server.close();
      await model.close();
      rmSync(root, { recursive: true, force: true });
    }
  },
};
