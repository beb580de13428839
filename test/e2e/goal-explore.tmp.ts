import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from '../../src/index.js';
import { type RecordedRequest, startScriptedModel } from '../../src/testing/index.js';
import { isolatedEnv } from './isolated-env.js';

const root = mkdtempSync(join(tmpdir(), 'goalx-'));
const cwd = join(root, 'work');
mkdirSync(cwd, { recursive: true });
let evaluations = 0;
const model = await startScriptedModel({
  script: (request: RecordedRequest) => {
    const body = JSON.stringify(request.body ?? {});
    if (body.includes('hook_event_name')) {
      evaluations++;
      return {
        text:
          evaluations < 2 ? '{"ok": false, "reason": "not yet there"}' : '{"ok": true, "reason": "it holds"}',
      };
    }
    return { text: `working (${evaluations})` };
  },
});
const env = isolatedEnv(root, { ...model.env(), AGENTD_IDLE_TIMEOUT_MS: '60000' });
const runtime = await createRuntime({ dataDir: join(root, 'data'), env });
const { session } = await runtime.createSession({ prompt: 'hello', cwd });
const wait = async (pred: () => Promise<boolean>) => {
  for (let i = 0; i < 600 && !(await pred()); i++) await new Promise((r) => setTimeout(r, 100));
};
const settled = async (n: number) =>
  wait(
    async () =>
      (await runtime.store.readEvents(session.id, { limit: 10000 })).filter((e) => e.type === 'work.settled')
        .length >= n,
  );
await settled(1);
await runtime.journalAndDispatch(session.id, { text: '/goal the file done.txt exists', command: true });
await settled(2);
await new Promise((r) => setTimeout(r, 3000));
await runtime.journalAndDispatch(session.id, { text: '/goal clear', command: true });
await settled(3);
await new Promise((r) => setTimeout(r, 3000));
for (const e of await runtime.store.readEvents(session.id, { limit: 10000 })) {
  const d = e.data as Record<string, unknown>;
  const raw = JSON.stringify(d.raw ?? d);
  console.log(e.cursor, e.type, (d.subtype as string) ?? '', raw.slice(0, 600));
}
await runtime.stop(session.id);
await new Promise((r) => setTimeout(r, 2000));
await runtime.close();
await model.close();
process.exit(0);
