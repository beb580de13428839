import { z } from 'zod';

const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
  .describe('the environment variable of agentd serve that holds the secret (never the secret itself)');

/** The `bridges` key of `agentd serve --config`: which chat platforms to serve. Secrets by env only. */
export const bridgesConfigSchema = z.strictObject({
  telegram: z
    .strictObject({
      /** The variable holding the bot token from @BotFather. */
      tokenEnv: envName,
      /** Another Bot API server. @default 'https://api.telegram.org' */
      apiRoot: z.url().optional(),
      /** Least time between two edits of a streaming reply. @default 1000 */
      editIntervalMs: z.number().int().min(0).optional(),
      /** Seconds a long poll waits. @default 30 */
      pollTimeoutSeconds: z.number().int().min(0).max(50).optional(),
    })
    .optional(),
});

export type BridgesConfig = z.output<typeof bridgesConfigSchema>;
