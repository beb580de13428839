import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { AgentEvent } from '../agent-event.js';

/**
 * Where a thread's rollout lines are kept: the store's transcript storage (the one the Claude SDK's
 * session store writes), under a project key of their own, one entry per line, each line verbatim.
 */
export interface ThreadStorage {
  append(key: { projectKey: string; sessionId: string }, entries: Record<string, unknown>[]): Promise<void>;
  load(key: { projectKey: string; sessionId: string }): Promise<Record<string, unknown>[] | null>;
}

/** The transcript project key of Codex rollouts: no Claude project key looks like it. */
export const rolloutProjectKey = 'codex:rollouts';

/** One stored rollout line: kept as codex wrote it, so that what comes back is the same bytes. */
interface RolloutEntry {
  type: 'codex.rollout_line';
  line: string;
}

export interface CodexThreadsOptions {
  /** The store's transcripts. Without one, threads stay in `CODEX_HOME` only. */
  storage?: ThreadStorage;
  /** The environment `codex` runs with: its `CODEX_HOME` (or `HOME`) says where rollouts are. */
  env: Record<string, string | undefined>;
}

/** The cumulative usage codex records in a rollout (`token_count` events). */
export interface ThreadUsage {
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
}

/**
 * A Codex thread lives as a rollout file, `CODEX_HOME/sessions/YYYY/MM/DD/rollout-TS-ID.jsonl`, on
 * the node that wrote it. This keeps a copy of its lines in the store, appended after every turn
 * and at the session's end, and writes them back before a thread is resumed where its file is
 * missing, behind or diverged, so that a session resumes with its conversation on any node sharing
 * the store (0145).
 */
export class CodexThreads {
  private readonly home: string;
  /** Lines of each thread known to be in the store. */
  private readonly stored = new Map<string, number>();
  private readonly paths = new Map<string, string>();
  /** The model each thread's rollout last named (its latest `turn_context`). */
  private readonly models = new Map<string, string>();

  constructor(private readonly options: CodexThreadsOptions) {
    const env = options.env;
    this.home = env.CODEX_HOME?.trim() || join(env.HOME?.trim() || homedir(), '.codex');
  }

  /**
   * Before a thread is resumed: unless this `CODEX_HOME`'s file is the stored lines and maybe more
   * (lines of a turn whose worker died before saving them), the stored lines become the file: there
   * was none, an older one, or one that another node has since continued differently. Returns the
   * usage the thread had so far.
   */
  async restore(threadId: string): Promise<ThreadUsage> {
    const storage = this.options.storage;
    const local = await this.localLines(threadId);
    this.noteModel(threadId, local ?? []);
    if (storage) {
      const entries = (await storage.load(this.key(threadId))) ?? [];
      const lines = entries.flatMap((entry) => (isRolloutEntry(entry) ? [entry.line] : []));
      this.stored.set(threadId, lines.length);
      if (lines.length > 0 && !continuesStored(local, lines)) {
        const path = (await this.findRollout(threadId)) ?? this.restoredPath(threadId, lines[0]);
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, `${lines.join('\n')}\n`);
        this.paths.set(threadId, path);
        this.noteModel(threadId, lines);
        return usageOf(lines);
      }
    }
    return usageOf(local ?? []);
  }

  /** After a turn: the rollout's lines that the store does not have yet are appended to it. */
  async save(threadId: string | null): Promise<void> {
    if (!threadId) return;
    const lines = await this.localLines(threadId);
    if (!lines) return;
    this.noteModel(threadId, lines);
    const storage = this.options.storage;
    if (!storage) return;
    let stored = this.stored.get(threadId);
    if (stored === undefined) {
      const entries = await storage.load(this.key(threadId));
      stored = entries?.filter(isRolloutEntry).length ?? 0;
    }
    if (lines.length > stored) {
      const fresh: RolloutEntry[] = lines.slice(stored).map((line) => ({ type: 'codex.rollout_line', line }));
      await storage.append(this.key(threadId), fresh as unknown as Record<string, unknown>[]);
      stored = lines.length;
    }
    this.stored.set(threadId, stored);
  }

  /**
   * A turn's events, with the thread saved before the turn's last event (completed or failed) is
   * passed on, so that a turn reported over is in the store; saved once more when the turn ends.
   */
  async *saving(
    events: AsyncIterable<AgentEvent>,
    threadId: () => string | null,
  ): AsyncGenerator<AgentEvent> {
    for await (const event of events) {
      if (event.type === 'agent.turn.completed' || event.type === 'agent.error') await this.save(threadId());
      yield event;
    }
    await this.save(threadId());
  }

  /** The model the thread's rollout names (codex's default, when the session named none). */
  model(threadId: string | null): string | null {
    return (threadId && this.models.get(threadId)) || null;
  }

  private noteModel(threadId: string, lines: string[]): void {
    for (let index = lines.length - 1; index >= 0; index--) {
      const line = lines[index]!;
      if (!line.includes('"turn_context"')) continue;
      const entry = parse(line);
      const model = (entry?.payload as { model?: unknown } | undefined)?.model;
      if (entry?.type === 'turn_context' && typeof model === 'string') {
        this.models.set(threadId, model);
        return;
      }
    }
  }

  private key(threadId: string) {
    return { projectKey: rolloutProjectKey, sessionId: threadId };
  }

  /** The rollout's complete lines in this `CODEX_HOME`, or null when it has none. */
  private async localLines(threadId: string): Promise<string[] | null> {
    const path = await this.findRollout(threadId);
    if (!path) return null;
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        this.paths.delete(threadId);
        return null;
      }
      throw error;
    }
    // A line still being written has no newline yet: it is saved with the next turn.
    const complete = text.slice(0, text.lastIndexOf('\n') + 1);
    return complete.split('\n').filter((line) => line.length > 0);
  }

  /** The thread's rollout file under `CODEX_HOME/sessions`, wherever codex put it. */
  private async findRollout(threadId: string): Promise<string | null> {
    const known = this.paths.get(threadId);
    if (known) return known;
    const suffix = `-${threadId}.jsonl`;
    const search = async (dir: string): Promise<string | null> => {
      let entries: import('node:fs').Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return null;
      }
      for (const entry of entries) {
        if (entry.isFile() && entry.name.startsWith('rollout-') && entry.name.endsWith(suffix))
          return join(dir, entry.name);
      }
      // Newest day first: a thread resumed is most likely a recent one.
      const folders = entries
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort()
        .reverse();
      for (const folder of folders) {
        const found = await search(join(dir, folder));
        if (found) return found;
      }
      return null;
    };
    const found = await search(join(this.home, 'sessions'));
    if (found) this.paths.set(threadId, found);
    return found;
  }

  /** Where codex itself would have put the rollout: by the day and time its thread began. */
  private restoredPath(threadId: string, firstLine: string | undefined): string {
    const started = new Date(sessionTimestamp(firstLine) ?? Date.now());
    const iso = started.toISOString();
    const [year, month, day] = [iso.slice(0, 4), iso.slice(5, 7), iso.slice(8, 10)];
    const stamp = iso.slice(0, 19).replaceAll(':', '-');
    return join(this.home, 'sessions', year, month, day, `rollout-${stamp}-${threadId}.jsonl`);
  }
}

/** Whether `local` begins with every line of `stored`. */
function continuesStored(local: string[] | null, stored: string[]): boolean {
  return (
    local !== null && local.length >= stored.length && stored.every((line, index) => local[index] === line)
  );
}

function isRolloutEntry(entry: Record<string, unknown>): entry is Record<string, unknown> & RolloutEntry {
  return entry.type === 'codex.rollout_line' && typeof entry.line === 'string';
}

function parse(line: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(line);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function sessionTimestamp(firstLine: string | undefined): number | null {
  const meta = firstLine ? parse(firstLine) : null;
  const payload = meta?.payload as { timestamp?: unknown } | undefined;
  const time = typeof payload?.timestamp === 'string' ? Date.parse(payload.timestamp) : Number.NaN;
  return Number.isNaN(time) ? null : time;
}

const noUsage: ThreadUsage = { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0 };

/** The thread's usage so far: the last `token_count` event's total (codex's totals are cumulative). */
function usageOf(lines: string[]): ThreadUsage {
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = lines[index]!;
    if (!line.includes('"token_count"')) continue;
    const payload = parse(line)?.payload as
      | { type?: unknown; info?: { total_token_usage?: Partial<ThreadUsage> } | null }
      | undefined;
    const total = payload?.type === 'token_count' ? payload.info?.total_token_usage : undefined;
    if (!total) continue;
    return {
      input_tokens: total.input_tokens ?? 0,
      cached_input_tokens: total.cached_input_tokens ?? 0,
      output_tokens: total.output_tokens ?? 0,
    };
  }
  return noUsage;
}
