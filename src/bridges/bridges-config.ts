import { z } from 'zod';

const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
  .describe('the environment variable of agentd serve that holds the secret (never the secret itself)');

const retry = z
  .strictObject({
    /** The pause after the first failed attempt to reach the platform; it doubles. @default 1000 */
    initialDelayMs: z.number().int().min(10).optional(),
    /** The longest pause between attempts. @default 60000 */
    maxDelayMs: z.number().int().min(10).optional(),
  })
  .optional();

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
      /**
       * Receive updates by webhook instead of long polling: Telegram posts them to
       * `<publicUrl>/bridges/telegram/webhook`, each with the secret token. @default long polling
       */
      webhook: z
        .strictObject({
          /** The public origin (and path prefix) of this `agentd serve`, such as `https://agentd.example.com`. */
          publicUrl: z.url(),
          /** The variable holding the secret Telegram sends in `X-Telegram-Bot-Api-Secret-Token`. */
          secretTokenEnv: envName,
        })
        .optional(),
      retry,
    })
    .optional(),
  feishu: z
    .strictObject({
      /** The app's App ID (`cli_…`): not a secret. */
      appId: z.string().min(1),
      /** The variable holding the App Secret. */
      appSecretEnv: envName,
      /** `feishu` (open.feishu.cn), `lark` (open.larksuite.com) or another base URL. @default 'feishu' */
      domain: z.union([z.enum(['feishu', 'lark']), z.url()]).optional(),
      /**
       * `webhook`: Feishu posts events and card callbacks to `/bridges/feishu/events` of this
       * server; `websocket`: the SDK's long connection (no public URL). @default 'webhook'
       */
      mode: z.enum(['webhook', 'websocket']).optional(),
      /** The variable holding the Verification Token (required for `webhook`). */
      verificationTokenEnv: envName.optional(),
      /** The variable holding the Encrypt Key: events are then encrypted and signed. */
      encryptKeyEnv: envName.optional(),
      /** Least time between two patches of a streaming card. @default 1000 */
      editIntervalMs: z.number().int().min(0).optional(),
      retry,
    })
    .refine((feishu) => feishu.mode === 'websocket' || feishu.verificationTokenEnv !== undefined, {
      message: 'webhook mode needs verificationTokenEnv (every event is checked against it)',
      path: ['verificationTokenEnv'],
    })
    .optional(),
});

export type BridgesConfig = z.output<typeof bridgesConfigSchema>;
