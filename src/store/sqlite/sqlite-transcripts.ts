import type { TranscriptStorage } from '../store.js';
import { toTranscriptEntry } from './rows.js';
import type { SqliteConnection } from './sqlite-connection.js';

/**
 * Transcripts for the SDK's SessionStore protocol on SQLite. Subpath '' is the main transcript
 * (the SDK leaves `subpath` undefined for it and never sends '').
 */
export function sqliteTranscripts(connection: SqliteConnection): TranscriptStorage {
  /** Keeps mtimes strictly increasing within this process, so "newest" survives same-millisecond appends. */
  let lastMtime = 0;
  const written = (projectKey: string, sessionId: string, subpath: string) =>
    connection
      .statement('SELECT 1 FROM transcripts WHERE project_key = ? AND session_id = ? AND subpath = ?')
      .get(projectKey, sessionId, subpath) !== undefined;
  return {
    async appendTranscript(key, entries) {
      const subpath = key.subpath ?? '';
      connection.write(() => {
        lastMtime = Math.max(Date.now(), lastMtime + 1);
        connection
          .statement(
            `INSERT INTO transcripts (project_key, session_id, subpath, mtime) VALUES (?, ?, ?, ?)
           ON CONFLICT (project_key, session_id, subpath) DO UPDATE SET mtime = excluded.mtime`,
          )
          .run(key.projectKey, key.sessionId, subpath, lastMtime);
        // An entry's uuid is the SDK's idempotency key: a retried or replayed entry is ignored.
        const insert = connection.statement(
          `INSERT INTO transcript_entries (project_key, session_id, subpath, uuid, entry) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT DO NOTHING`,
        );
        for (const entry of entries) {
          const uuid = typeof entry.uuid === 'string' ? entry.uuid : null;
          insert.run(key.projectKey, key.sessionId, subpath, uuid, JSON.stringify(entry));
        }
      });
    },

    async loadTranscript(key) {
      const subpath = key.subpath ?? '';
      return connection.read(() => {
        const exists = written(key.projectKey, key.sessionId, subpath);
        if (!exists) return null;
        return connection
          .statement(
            `SELECT entry FROM transcript_entries WHERE project_key = ? AND session_id = ? AND subpath = ?
           ORDER BY seq`,
          )
          .all(key.projectKey, key.sessionId, subpath)
          .map(toTranscriptEntry);
      });
    },

    async loadTranscriptTail(key) {
      const subpath = key.subpath ?? '';
      return connection.read(() => {
        const exists = written(key.projectKey, key.sessionId, subpath);
        if (!exists) return null;
        // The index on (key, seq) is walked back from the end to the last entry with a uuid.
        return connection
          .statement(
            `SELECT entry FROM transcript_entries WHERE project_key = @projectKey AND session_id = @sessionId
             AND subpath = @subpath AND seq >= COALESCE((SELECT seq FROM transcript_entries
               WHERE project_key = @projectKey AND session_id = @sessionId AND subpath = @subpath
               AND uuid IS NOT NULL ORDER BY seq DESC LIMIT 1), 0)
             ORDER BY seq`,
          )
          .all({ projectKey: key.projectKey, sessionId: key.sessionId, subpath })
          .map(toTranscriptEntry);
      });
    },

    async listTranscripts(projectKey) {
      return connection.read(() =>
        (
          connection
            .statement(
              `SELECT session_id, mtime FROM transcripts WHERE project_key = ? AND subpath = ''
             ORDER BY mtime DESC, session_id`,
            )
            .all(projectKey) as Array<{ session_id: string; mtime: number }>
        ).map((row) => ({ sessionId: row.session_id, mtime: row.mtime })),
      );
    },

    async deleteTranscript(key) {
      connection.write(() => {
        const all = key.subpath === undefined || key.subpath === '';
        for (const table of ['transcripts', 'transcript_entries']) {
          connection
            .statement(
              `DELETE FROM ${table} WHERE project_key = @projectKey AND session_id = @sessionId
               AND (@all OR subpath = @subpath)`,
            )
            .run({
              projectKey: key.projectKey,
              sessionId: key.sessionId,
              all: all ? 1 : 0,
              subpath: key.subpath ?? '',
            });
        }
      });
    },

    async listTranscriptSubkeys(key) {
      return connection.read(() =>
        (
          connection
            .statement(
              `SELECT subpath FROM transcripts WHERE project_key = ? AND session_id = ? AND subpath <> ''
             ORDER BY subpath`,
            )
            .all(key.projectKey, key.sessionId) as Array<{ subpath: string }>
        ).map((row) => row.subpath),
      );
    },
  };
}
