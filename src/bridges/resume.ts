import type { Runtime } from '../runtime/runtime.js';

/**
 * The inputs of a session whose turn has not ended, read from the journal: accepted, and named by
 * no `agent.turn.completed` since, not left uncertain by a dead worker, in a session not archived. This is
 * what a bridge restarting has to keep streaming; nothing else is kept for it.
 */
export async function inFlightInputs(
  runtime: Runtime,
  sessionId: string,
): Promise<Array<{ inputId: string; messageId: string }>> {
  const open: string[] = [];
  const messageIds = new Map<string, string>();
  for await (const record of runtime.events(sessionId)) {
    if (record.type === 'input.accepted') {
      open.push(record.data.inputId);
      messageIds.set(record.data.inputId, record.data.messageId);
    } else if (record.type === 'agent.turn.completed') {
      for (const id of record.data.inputIds) {
        const index = open.indexOf(id);
        if (index >= 0) open.splice(index, 1);
      }
    } else if (record.type === 'execution.failed') {
      // Inputs it had not dispatched go on with the next worker; the uncertain ones are not resent.
      for (const id of record.data.uncertainInputIds) {
        const index = open.indexOf(id);
        if (index >= 0) open.splice(index, 1);
      }
    } else if (record.type === 'session.archived') open.length = 0;
  }
  return open.map((inputId) => ({ inputId, messageId: messageIds.get(inputId) ?? '' }));
}
