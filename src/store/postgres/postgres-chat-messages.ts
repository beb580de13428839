import type { ChatMessageStorage } from '../chat-message-storage.js';
import { likePrefix, toChatMessageRecord } from '../sqlite/sqlite-chat-messages.js';
import type { PostgresConnection } from './postgres-connection.js';

/** Where chat bridges show replies and cards, on PostgreSQL. */
export function postgresChatMessages(connection: PostgresConnection): ChatMessageStorage {
  return {
    async saveChatMessage(message) {
      return connection.write(async (executor) => {
        const row = await executor.row(
          `INSERT INTO chat_messages (session_id, kind, ref, channel_key, message_id, cursor, done, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
           ON CONFLICT (session_id, kind, ref) DO UPDATE SET channel_key = excluded.channel_key,
             message_id = excluded.message_id, cursor = excluded.cursor, done = excluded.done,
             updated_at = excluded.updated_at
           RETURNING *`,
          [
            message.sessionId,
            message.kind,
            message.ref,
            message.channelKey,
            message.messageId,
            message.cursor,
            message.done,
            message.now,
          ],
        );
        return toChatMessageRecord(row!);
      });
    },

    async getChatMessage(key) {
      return connection.read(async (executor) => {
        const row = await executor.row(
          'SELECT * FROM chat_messages WHERE session_id = $1 AND kind = $2 AND ref = $3',
          [key.sessionId, key.kind, key.ref],
        );
        return row ? toChatMessageRecord(row) : null;
      });
    },

    async listOpenChatMessages(options) {
      return connection.read(async (executor) =>
        (
          await executor.rows(
            `SELECT * FROM chat_messages WHERE NOT done AND channel_key LIKE $1 ESCAPE '\\' ORDER BY seq`,
            [likePrefix(options.channelPrefix)],
          )
        ).map(toChatMessageRecord),
      );
    },
  };
}
