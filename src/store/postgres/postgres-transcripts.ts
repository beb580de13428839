import { toTranscriptEntry } from '../sqlite/rows.js';
import type { TranscriptKey, TranscriptStorage } from '../store.js';
import type { PostgresConnection } from './postgres-connection.js';

/**
 * Transcripts for the SDK's SessionStore protocol on PostgreSQL, so any node can resume any
 * session. Subpath '' is the main transcript (the SDK leaves `subpath` undefined for it).
 */
export function postgresTranscripts(connection: PostgresConnection): TranscriptStorage {
  /** A written transcript's entries chosen by `query` (parameters: key, session, subpath); null if never written. */
  const loadEntries = (key: TranscriptKey, query: string) => {
    const params = [key.projectKey, key.sessionId, key.subpath ?? ''];
    return connection.read(async (executor) => {
      const written = await executor.row(
        'SELECT 1 FROM transcripts WHERE project_key = $1 AND session_id = $2 AND subpath = $3',
        params,
      );
      if (written === undefined) return null;
      return (await executor.rows(query, params)).map(toTranscriptEntry);
    });
  };
  return {
    async appendTranscript(key, entries) {
      const subpath = key.subpath ?? '';
      await connection.write(async (executor) => {
        // The mtime grows strictly per key, across nodes: the row lock of the upsert orders appends,
        // and "newest" survives two appends within one millisecond.
        await executor.run(
          `INSERT INTO transcripts (project_key, session_id, subpath, mtime)
           VALUES ($1, $2, $3, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint)
           ON CONFLICT (project_key, session_id, subpath) DO UPDATE
             SET mtime = GREATEST(excluded.mtime, transcripts.mtime + 1)`,
          [key.projectKey, key.sessionId, subpath],
        );
        if (entries.length === 0) {
          return;
        }
        // An entry's uuid is the SDK's idempotency key: a retried or replayed entry is ignored.
        await executor.run(
          `INSERT INTO transcript_entries (project_key, session_id, subpath, uuid, entry)
           SELECT $1, $2, $3, uuid, entry FROM unnest($4::text[], $5::text[]) WITH ORDINALITY AS e(uuid, entry, n)
           ORDER BY n
           ON CONFLICT DO NOTHING`,
          [
            key.projectKey,
            key.sessionId,
            subpath,
            entries.map((entry) => (typeof entry.uuid === 'string' ? entry.uuid : null)),
            entries.map((entry) => JSON.stringify(entry)),
          ],
        );
      });
    },

    async loadTranscript(key) {
      return loadEntries(
        key,
        `SELECT entry FROM transcript_entries WHERE project_key = $1 AND session_id = $2 AND subpath = $3
         ORDER BY seq`,
      );
    },

    async loadTranscriptTail(key) {
      // The index on (key, seq) is walked back from the end to the last entry with a uuid.
      return loadEntries(
        key,
        `SELECT entry FROM transcript_entries WHERE project_key = $1 AND session_id = $2 AND subpath = $3
         AND seq >= COALESCE((SELECT seq FROM transcript_entries
           WHERE project_key = $1 AND session_id = $2 AND subpath = $3 AND uuid IS NOT NULL
           ORDER BY seq DESC LIMIT 1), 0)
         ORDER BY seq`,
      );
    },

    async listTranscripts(projectKey) {
      return connection.read(async (executor) =>
        (
          await executor.rows(
            `SELECT session_id, mtime FROM transcripts WHERE project_key = $1 AND subpath = ''
             ORDER BY mtime DESC, session_id`,
            [projectKey],
          )
        ).map((row) => ({ sessionId: String(row.session_id), mtime: Number(row.mtime) })),
      );
    },

    async deleteTranscript(key) {
      const all = key.subpath === undefined || key.subpath === '';
      await connection.write(async (executor) => {
        for (const table of ['transcripts', 'transcript_entries']) {
          await executor.run(
            `DELETE FROM ${table} WHERE project_key = $1 AND session_id = $2 AND ($3::boolean OR subpath = $4)`,
            [key.projectKey, key.sessionId, all, key.subpath ?? ''],
          );
        }
      });
    },

    async listTranscriptSubkeys(key) {
      return connection.read(async (executor) =>
        (
          await executor.rows(
            `SELECT subpath FROM transcripts WHERE project_key = $1 AND session_id = $2 AND subpath <> ''
             ORDER BY subpath`,
            [key.projectKey, key.sessionId],
          )
        ).map((row) => String(row.subpath)),
      );
    },
  };
}
