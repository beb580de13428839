import type { ChatMessageKind, ChatMessageRecord, ChatMessageStorage } from '../chat-message-storage.js';
import type { SqliteConnection } from './sqlite-connection.js';

type Row = Record<string, unknown>;

/** A `chat_messages` row of either store (SQLite keeps `done` as 0/1, PostgreSQL as a boolean). */
export function toChatMessageRecord(row: Row): ChatMessageRecord {
  return {
    sessionId: String(row.session_id),
    kind: String(row.kind) as ChatMessageKind,
    ref: String(row.ref),
    channelKey: String(row.channel_key),
    messageId: String(row.message_id),
    cursor: Number(row.cursor),
    done: row.done === true || row.done === 1,
    updatedAt: Number(row.updated_at),
  };
}

/** LIKE's wildcards in a prefix taken literally. */
export function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/** Where chat bridges show replies and cards, on SQLite. */
export function sqliteChatMessages(connection: SqliteConnection): ChatMessageStorage {
  const find = (key: { sessionId: string; kind: string; ref: string }) => {
    const row = connection
      .statement('SELECT * FROM chat_messages WHERE session_id = ? AND kind = ? AND ref = ?')
      .get(key.sessionId, key.kind, key.ref) as Row | undefined;
    return row ? toChatMessageRecord(row) : null;
  };
  return {
    async saveChatMessage(message) {
      return connection.write(() => {
        connection
          .statement(
            `INSERT INTO chat_messages (session_id, kind, ref, channel_key, message_id, cursor, done, updated_at)
             VALUES (@sessionId, @kind, @ref, @channelKey, @messageId, @cursor, @done, @now)
             ON CONFLICT (session_id, kind, ref) DO UPDATE SET channel_key = excluded.channel_key,
               message_id = excluded.message_id, cursor = excluded.cursor, done = excluded.done,
               updated_at = excluded.updated_at`,
          )
          .run({ ...message, done: message.done ? 1 : 0 });
        return find(message)!;
      });
    },

    async getChatMessage(key) {
      return connection.read(() => find(key));
    },

    async listOpenChatMessages(options) {
      return connection.read(() =>
        (
          connection
            .statement(
              `SELECT * FROM chat_messages WHERE done = 0 AND channel_key LIKE ? ESCAPE '\\' ORDER BY seq`,
            )
            .all(likePrefix(options.channelPrefix)) as Row[]
        ).map(toChatMessageRecord),
      );
    },
  };
}
