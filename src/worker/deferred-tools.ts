import { randomUUID } from 'node:crypto';
import type { InteractionRecord, Store, TranscriptKey } from '../store/store.js';

/**
 * Claude keys a transcript by its working directory with every character that is not a letter
 * or digit replaced by '-' (`/tmp/work` → `-tmp-work`), the same key it hands the SessionStore.
 */
export function projectKeyOf(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, '-');
}

type Entry = Record<string, unknown>;

function contentBlocks(entry: Entry): Array<Record<string, unknown>> {
  const message = entry.message as { content?: unknown } | undefined;
  return Array.isArray(message?.content) ? (message.content as Array<Record<string, unknown>>) : [];
}

function findToolUse(entries: Entry[], toolUseId: string): Entry | undefined {
  return entries.find(
    (entry) =>
      entry.type === 'assistant' &&
      contentBlocks(entry).some((block) => block.type === 'tool_use' && block.id === toolUseId),
  );
}

function hasResult(entries: Entry[], toolUseId: string): boolean {
  return entries.some(
    (entry) =>
      entry.type === 'user' &&
      contentBlocks(entry).some((block) => block.type === 'tool_result' && block.tool_use_id === toolUseId),
  );
}

function isDeferred(entries: Entry[], toolUseId: string): boolean {
  return entries.some((entry) => {
    const attachment = entry.attachment as { type?: unknown; toolUseID?: unknown } | undefined;
    return (
      entry.type === 'attachment' &&
      attachment?.type === 'hook_deferred_tool' &&
      attachment.toolUseID === toolUseId
    );
  });
}

/** Whether the transcript mirrored into the store already holds this tool use. */
export async function transcriptHasToolUse(
  store: Store,
  key: TranscriptKey,
  toolUseId: string,
): Promise<boolean> {
  const entries = (await store.loadTranscript(key)) ?? [];
  return findToolUse(entries, toolUseId) !== undefined;
}

/**
 * A worker that died while a person was being asked leaves a tool use with no result: resumed
 * as it is, Claude would drop it. Marking it as a deferred tool use (what a PreToolUse hook's
 * `defer` records) makes Claude ask again on resume, and agentd then answers from the persisted
 * interaction. Returns the tool uses it marked.
 */
export async function markInterruptedToolUses(options: {
  store: Store;
  key: TranscriptKey;
  interactions: InteractionRecord[];
}): Promise<string[]> {
  const { store, key } = options;
  const entries = (await store.loadTranscript(key)) ?? [];
  const marked: string[] = [];
  for (const interaction of options.interactions) {
    const toolUseId = interaction.toolUseId;
    if (!toolUseId || hasResult(entries, toolUseId) || isDeferred(entries, toolUseId)) continue;
    const toolUse = findToolUse(entries, toolUseId);
    if (!toolUse || typeof toolUse.uuid !== 'string') continue;
    const entry: Entry = {
      parentUuid: toolUse.uuid,
      isSidechain: false,
      attachment: {
        type: 'hook_deferred_tool',
        toolUseID: toolUseId,
        toolName: interaction.toolName,
        toolInput: interaction.request.input ?? {},
        hookName: 'agentd',
        hookEvent: 'PreToolUse',
        permissionMode: 'default',
      },
      type: 'attachment',
      uuid: randomUUID(),
      timestamp: new Date().toISOString(),
      userType: 'external',
      entrypoint: toolUse.entrypoint ?? 'sdk-ts',
      cwd: toolUse.cwd,
      sessionId: key.sessionId,
      version: toolUse.version,
    };
    await store.appendTranscript(key, [entry]);
    entries.push(entry);
    marked.push(toolUseId);
  }
  return marked;
}
