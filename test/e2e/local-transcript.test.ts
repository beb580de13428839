/**
 * Where a woken session's conversation comes from (decision 0175): `claude`'s own transcript on this
 * machine when it ends where agentd's store does, else the store's copy (written by the SDK into a
 * `claude-resume-*` directory, removed with its `claude`, 0174). Whichever is used, the model is
 * given the whole conversation: a copy that is behind the store or missing is never resumed from.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { preferLocalTranscript } from '../../src/backends/claude/local-transcript.js';
import { toSdkSessionStore } from '../../src/store/session-store-adapter.js';
import { requestText } from '../../src/testing/index.js';
import {
  checkGuarantees,
  createHarness,
  type Harness,
  hibernated,
  isEvent,
  readJournal,
  readUntil,
  timesSent,
} from './helpers.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

/** `claude`'s own transcript of a native session under the harness's CLAUDE_CONFIG_DIR. */
function localTranscript(h: Harness, nativeSessionId: string): string {
  const projects = join(h.env.CLAUDE_CONFIG_DIR!, 'projects');
  for (const project of readdirSync(projects)) {
    const path = join(projects, project, `${nativeSessionId}.jsonl`);
    if (existsSync(path)) return path;
  }
  throw new Error(`no local transcript of ${nativeSessionId}`);
}

/** Sends `text` to the hibernated session and waits for the turn it wakes to settle. */
async function wake(h: Harness, sessionId: string, text: string, messageId: string): Promise<string> {
  const after = (await readJournal(h.runtime, sessionId)).length;
  await h.runtime.send(sessionId, { text, messageId });
  await readUntil(h.runtime, sessionId, isEvent('work.settled'), { after });
  const request = h.model.conversationRequests().find((each) => requestText(each).includes(text));
  expect(timesSent(h.model, text)).toBe(1);
  return requestText(request!);
}

const resumeDirs = (h: Harness) =>
  readdirSync(h.env.TMPDIR!).filter((name) => name.startsWith('claude-resume-'));

describe('a woken session resumes from the freshest transcript', () => {
  it("claude's own copy when it ends where the store does; the store's when it is behind or missing", {
    timeout: 180_000,
  }, async () => {
    harness = await createHarness({
      script: [
        { text: 'first answer' },
        { text: 'second answer' },
        { text: 'third answer' },
        { text: 'fourth' },
      ],
      env: { AGENTD_IDLE_TIMEOUT_MS: '1000' },
    });
    const h = harness;
    const { session } = await h.runtime.createSession({
      prompt: 'remember plum',
      cwd: h.cwd,
      messageId: 'm-1',
    });
    await hibernated(h.runtime, session.id);
    const native = (await h.runtime.getSession(session.id)).session.nativeSessionId!;
    const local = localTranscript(h, native);
    const afterFirst = readFileSync(local, 'utf8');

    // Usually fresh: claude resumed its own file and wrote the new turn there. A worker that left
    // before its last lines were mirrored (a loaded machine) leaves it past the store: the store's copy.
    const projectKey = basename(dirname(local));
    const fresh =
      (await preferLocalTranscript(toSdkSessionStore(h.runtime.store), h.env.CLAUDE_CONFIG_DIR!).load({
        projectKey,
        sessionId: native,
      })) === null;
    const second = await wake(h, session.id, 'which word?', 'm-2');
    expect(second).toContain('remember plum');
    expect(second).toContain('first answer');
    expect(readFileSync(local, 'utf8').includes('which word?'), 'resumed from the copy the check chose').toBe(
      fresh,
    );
    await hibernated(h.runtime, session.id);
    expect(resumeDirs(h)).toEqual([]);

    // Behind the store (as another node's turns would leave it): the store's conversation is given,
    // through a resume copy that leaves with its claude.
    writeFileSync(local, afterFirst);
    const third = await wake(h, session.id, 'and the colour?', 'm-3');
    expect(third).toContain('which word?');
    expect(third).toContain('second answer');
    expect(readFileSync(local, 'utf8')).not.toContain('and the colour?');
    await hibernated(h.runtime, session.id);
    expect(resumeDirs(h)).toEqual([]);

    // Missing (this machine never ran it): the store's again.
    rmSync(local);
    const fourth = await wake(h, session.id, 'and the size?', 'm-4');
    expect(fourth).toContain('and the colour?');
    expect(fourth).toContain('third answer');
    expect(existsSync(local)).toBe(false);
    await hibernated(h.runtime, session.id);
    expect(resumeDirs(h)).toEqual([]);
    expect((await h.runtime.getSession(session.id)).session.nativeSessionId).toBe(native);
    await checkGuarantees(h.runtime, session.id, {
      acknowledged: ['m-1', 'm-2', 'm-3', 'm-4'],
      model: h.model,
    });
  });
});
