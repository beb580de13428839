import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { SessionKey, SessionStore, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';
import { jsonEqual } from '../../store/json-equal.js';

type Env = Record<string, string | undefined>;

/** The folder `claude` started with `env` keeps its config and transcripts in. */
export function claudeConfigDir(env: Env): string {
  return env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude');
}

/**
 * The store for the SDK, except that a resume whose transcript `claude` already has on this machine
 * is left to that copy (decision 0175). The SDK resumes from a `SessionStore` by writing the stored
 * transcript, with copies of the user's config, into a new `claude-resume-*` directory that `claude`
 * starts in (0174): tens of milliseconds on each wake. When the session's last `claude` ran here, its
 * own transcript in `configDir` ends as the store's does: `load` then answers nothing, and the SDK
 * starts `claude --resume` on that file, as it would with no store. A transcript that is missing,
 * behind the store (another node's turns) or past it (a turn killed before its entries were
 * mirrored) does not end alike: the store's copy is used, as before.
 */
export function preferLocalTranscript(
  store: SessionStore & Partial<TranscriptTailReader>,
  configDir: string,
): SessionStore {
  return {
    ...store,
    load: async (key) => {
      if (key.subpath !== undefined) return store.load(key);
      const local = localTail(transcriptPath(configDir, key));
      // Only the store's tail is read where it can be: a wake leaves a long transcript unread.
      if (local && store.loadTail) {
        const tail = await store.loadTail(key);
        return tail && endsAlike(local, tail) ? null : store.load(key);
      }
      const entries = await store.load(key);
      return entries?.length && endsAlike(local, entries) ? null : entries;
    },
  };
}

/** A store that can read a transcript's tail alone (`Store.loadTranscriptTail`): agentd's. */
export interface TranscriptTailReader {
  loadTail(key: SessionKey): Promise<SessionStoreEntry[] | null>;
}

/** Where `claude` writes the main transcript of `key` under `configDir`. */
function transcriptPath(configDir: string, key: SessionKey): string {
  return join(configDir, 'projects', key.projectKey, `${key.sessionId}.jsonl`);
}

/**
 * Whether a local transcript's tail is the store's: both from their last entry with a `uuid` (each
 * turn adds new ones; the entries after it, such as `last-prompt`, may repeat word for word).
 */
function endsAlike(local: unknown[] | undefined, stored: SessionStoreEntry[]): boolean {
  const start = stored.findLastIndex(hasUuid);
  if (!local || start < 0 || local.length !== stored.length - start) return false;
  return local.every((entry, index) => jsonEqual(entry, stored[start + index]));
}

function hasUuid(entry: unknown): boolean {
  return typeof (entry as { uuid?: unknown } | null)?.uuid === 'string';
}

const chunkSize = 64 * 1024;

/**
 * The entries of a JSONL file from its last one with a `uuid` to its end, read backwards in a
 * window that doubles until it holds that entry whole; undefined when the file is missing, has no
 * such entry, or a line after it does not parse (a torn write).
 */
function localTail(path: string): unknown[] | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    for (let window = chunkSize; ; window *= 2) {
      const start = Math.max(0, size - window);
      const buffer = Buffer.alloc(size - start);
      readSync(fd, buffer, 0, buffer.length, start);
      let text = buffer.toString('utf8');
      // A window that starts inside the file may start inside a line: that one is left out.
      if (start > 0) text = text.includes('\n') ? text.slice(text.indexOf('\n') + 1) : '';
      const lines = text.split('\n').filter((line) => line.trim() !== '');
      const entries: unknown[] = [];
      for (let index = lines.length - 1; index >= 0; index--) {
        const entry = parseLine(lines[index]!);
        if (entry === undefined) return undefined;
        entries.unshift(entry);
        if (hasUuid(entry)) return entries;
      }
      if (start === 0) return undefined;
    }
  } finally {
    closeSync(fd);
  }
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}
