import { describe, expect, it } from 'vitest';
import type { TranscriptKey } from '../store.js';
import type { ContractContext } from './contract-context.js';

const main: TranscriptKey = { projectKey: 'project-a', sessionId: 'native-1' };
const subagent: TranscriptKey = { ...main, subpath: 'subagents/agent-42' };

function entry(uuid: string | undefined, text: string): Record<string, unknown> {
  return uuid === undefined
    ? { type: 'custom-title', text }
    : { type: 'user', uuid, timestamp: '2026-11-30T10:00:00.000Z', message: { content: text } };
}

export function describeTranscriptContract(context: ContractContext): void {
  describe('transcripts', () => {
    it('loadTranscript: a key never written returns null', async () => {
      expect(await context.store().loadTranscript(main)).toBeNull();
    });

    it('loadTranscriptTail: a key never written returns null', async () => {
      expect(await context.store().loadTranscriptTail(main)).toBeNull();
    });

    it('loadTranscriptTail: the entries from the last one with a uuid on, of that key only', async () => {
      const store = context.store();
      await store.appendTranscript(main, [entry('u1', 'one'), entry('u2', 'two')]);
      await store.appendTranscript(main, [entry(undefined, 'title'), entry(undefined, 'mode')]);
      await store.appendTranscript(subagent, [entry('s1', 'sub'), entry(undefined, 'sub title')]);
      expect(await store.loadTranscriptTail(main)).toEqual([
        entry('u2', 'two'),
        entry(undefined, 'title'),
        entry(undefined, 'mode'),
      ]);
      await store.appendTranscript(main, [entry('u3', 'three')]);
      expect(await store.loadTranscriptTail(main)).toEqual([entry('u3', 'three')]);
      expect(await store.loadTranscriptTail(subagent)).toEqual([
        entry('s1', 'sub'),
        entry(undefined, 'sub title'),
      ]);
    });

    it('loadTranscriptTail: every entry when none has a uuid', async () => {
      const store = context.store();
      await store.appendTranscript(main, [entry(undefined, 'title'), entry(undefined, 'mode')]);
      expect(await store.loadTranscriptTail(main)).toEqual([
        entry(undefined, 'title'),
        entry(undefined, 'mode'),
      ]);
    });

    it('appendTranscript: entries come back in append order across batches', async () => {
      const store = context.store();
      await store.appendTranscript(main, [entry('u1', 'one'), entry('u2', 'two')]);
      await store.appendTranscript(main, [entry(undefined, 'title'), entry('u3', 'three')]);
      expect(await store.loadTranscript(main)).toEqual([
        entry('u1', 'one'),
        entry('u2', 'two'),
        entry(undefined, 'title'),
        entry('u3', 'three'),
      ]);
    });

    it('appendTranscript: an entry whose uuid is already stored is ignored', async () => {
      const store = context.store();
      await store.appendTranscript(main, [entry('u1', 'one'), entry('u2', 'two')]);
      // A retried batch, and a duplicate inside one batch.
      await store.appendTranscript(main, [
        entry('u1', 'one'),
        entry('u2', 'two'),
        entry('u3', 'x'),
        entry('u3', 'x'),
      ]);
      expect((await store.loadTranscript(main))?.map((stored) => stored.uuid)).toEqual(['u1', 'u2', 'u3']);
    });

    it('appendTranscript: entries without uuid are always appended', async () => {
      const store = context.store();
      await store.appendTranscript(main, [entry(undefined, 'mode')]);
      await store.appendTranscript(main, [entry(undefined, 'mode')]);
      expect(await store.loadTranscript(main)).toEqual([entry(undefined, 'mode'), entry(undefined, 'mode')]);
    });

    it('appendTranscript: the same uuid under another key is another entry', async () => {
      const store = context.store();
      const other: TranscriptKey = { projectKey: 'project-b', sessionId: 'native-1' };
      await store.appendTranscript(main, [entry('u1', 'one')]);
      await store.appendTranscript(subagent, [entry('u1', 'one')]);
      await store.appendTranscript(other, [entry('u1', 'one')]);
      for (const key of [main, subagent, other]) {
        expect(await store.loadTranscript(key)).toEqual([entry('u1', 'one')]);
      }
    });

    it('appendTranscript: a Codex rollout, one verbatim line per entry, comes back byte for byte and in order', async () => {
      // How codex-threads.ts keeps a thread: its rollout's lines as strings, appended turn by turn.
      const store = context.store();
      const key: TranscriptKey = {
        projectKey: 'codex:rollouts',
        sessionId: '01a2347d-7a25-7122-8913-81a44afcd7a5',
      };
      const lines = [
        JSON.stringify({ type: 'session_meta', payload: { text: 'x'.repeat(200_000) } }),
        '{"type":"event_msg","payload":{"n":1.0e21,"big":18446744073709551615}}',
        JSON.stringify({ type: 'response_item', text: 'ünïcödé \u2028 "quoted" \\ back\nslash' }),
      ];
      const entries = lines.map((line) => ({ type: 'codex.rollout_line', line }));
      await store.appendTranscript(key, entries.slice(0, 1));
      await store.appendTranscript(key, entries.slice(1));
      expect((await store.loadTranscript(key))?.map((stored) => stored.line)).toEqual(lines);
      expect(await store.listTranscripts('project-a')).toEqual([]);
    });

    it('appendTranscript: an empty batch makes the key exist with no entries', async () => {
      const store = context.store();
      await store.appendTranscript(main, []);
      expect(await store.loadTranscript(main)).toEqual([]);
    });

    it('listTranscripts: main transcripts of the project with integer mtimes that advance', async () => {
      const store = context.store();
      const before = Date.now();
      await store.appendTranscript(main, [entry('u1', 'one')]);
      await store.appendTranscript(subagent, [entry('s1', 'sub')]);
      await store.appendTranscript({ projectKey: 'project-a', sessionId: 'native-2' }, [entry('u1', 'x')]);
      await store.appendTranscript({ projectKey: 'project-b', sessionId: 'native-3' }, [entry('u1', 'x')]);
      const listed = await store.listTranscripts('project-a');
      expect(listed.map((item) => item.sessionId).sort()).toEqual(['native-1', 'native-2']);
      for (const item of listed) {
        expect(Number.isInteger(item.mtime)).toBe(true);
        expect(item.mtime).toBeGreaterThanOrEqual(before);
      }
      const firstMtime = listed.find((item) => item.sessionId === 'native-1')!.mtime;
      await new Promise((resolve) => setTimeout(resolve, 5));
      await store.appendTranscript(main, [entry('u2', 'two')]);
      const again = await store.listTranscripts('project-a');
      expect(again.find((item) => item.sessionId === 'native-1')!.mtime).toBeGreaterThan(firstMtime);
      expect(await store.listTranscripts('project-none')).toEqual([]);
    });

    it('listTranscriptSubkeys: the subpaths under a session, not the main transcript', async () => {
      const store = context.store();
      await store.appendTranscript(main, [entry('u1', 'one')]);
      await store.appendTranscript(subagent, [entry('s1', 'sub')]);
      await store.appendTranscript({ ...main, subpath: 'subagents/agent-7' }, [entry('s2', 'sub')]);
      await store.appendTranscript(
        { projectKey: 'project-a', sessionId: 'native-2', subpath: 'subagents/x' },
        [],
      );
      expect((await store.listTranscriptSubkeys(main)).sort()).toEqual([
        'subagents/agent-42',
        'subagents/agent-7',
      ]);
      expect(await store.loadTranscript(subagent)).toEqual([entry('s1', 'sub')]);
      expect(await store.listTranscriptSubkeys({ projectKey: 'project-a', sessionId: 'nothing' })).toEqual(
        [],
      );
    });

    it('deleteTranscript: a subpath deletes only that transcript', async () => {
      const store = context.store();
      await store.appendTranscript(main, [entry('u1', 'one')]);
      await store.appendTranscript(subagent, [entry('s1', 'sub')]);
      await store.deleteTranscript(subagent);
      expect(await store.loadTranscript(subagent)).toBeNull();
      expect(await store.loadTranscript(main)).toEqual([entry('u1', 'one')]);
      expect(await store.listTranscriptSubkeys(main)).toEqual([]);
    });

    it('deleteTranscript: the main key deletes the session with its subagent transcripts', async () => {
      const store = context.store();
      const other: TranscriptKey = { projectKey: 'project-a', sessionId: 'native-2' };
      await store.appendTranscript(main, [entry('u1', 'one')]);
      await store.appendTranscript(subagent, [entry('s1', 'sub')]);
      await store.appendTranscript(other, [entry('u1', 'one')]);
      await store.deleteTranscript(main);
      expect(await store.loadTranscript(main)).toBeNull();
      expect(await store.loadTranscript(subagent)).toBeNull();
      expect(await store.listTranscriptSubkeys(main)).toEqual([]);
      expect((await store.listTranscripts('project-a')).map((item) => item.sessionId)).toEqual(['native-2']);
      // A deleted key can be written again, and its old uuids no longer count as duplicates.
      await store.appendTranscript(main, [entry('u1', 'one')]);
      expect(await store.loadTranscript(main)).toEqual([entry('u1', 'one')]);
    });
  });
}
