import type { Message } from '@a2a-js/sdk';
import { InvalidInputError } from '../../errors/index.js';
import { type IfBusy, parseIfBusy } from '../../runtime/double-texting.js';

/**
 * The message metadata key that names the role a message is for: `{"agentd.role": "reviewer"}`,
 * a flat key like the `agentd.*` keys of a task's metadata.
 */
export const roleMetadataKey = 'agentd.role';

/**
 * The role a message names, if any. Anything but a non-empty string there is refused
 * (`invalid_input`): a role the client meant to pick is never silently dropped.
 */
export function requestedRole(message: Pick<Message, 'metadata'>): string | undefined {
  const value: unknown = message.metadata?.[roleMetadataKey];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '')
    throw new InvalidInputError(`message metadata "${roleMetadataKey}" must be a role name (a string)`, {
      field: `metadata.${roleMetadataKey}`,
    });
  return value;
}

/** The message metadata key that says what a message does if its context's session is mid-turn. */
export const ifBusyMetadataKey = 'agentd.ifBusy';

/** The double-texting strategy a message names (`enqueue`, `reject`, `interrupt`, `rollback`), if any. */
export function requestedIfBusy(message: Pick<Message, 'metadata'>): IfBusy | undefined {
  return parseIfBusy(message.metadata?.[ifBusyMetadataKey], `metadata.${ifBusyMetadataKey}`);
}
