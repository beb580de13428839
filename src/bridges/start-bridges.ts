import { ConfigError } from '../errors/index.js';
import type { Runtime } from '../runtime/runtime.js';
import type { BridgesConfig } from './bridges-config.js';
import type { ChatAdapter } from './chat-adapter.js';
import { type BridgeStatus, ChatBridge, type RetryOptions } from './chat-bridge.js';
import { FeishuAdapter } from './feishu/feishu-adapter.js';
import { TelegramAdapter } from './telegram/telegram-adapter.js';
import type { WebhookRoutes } from './webhooks.js';

export interface StartBridgesOptions {
  runtime: Runtime;
  config: BridgesConfig | undefined;
  /** Where the secrets named in the config are read. */
  env: Record<string, string | undefined>;
  /** Where webhook endpoints are added (the server's `/bridges/` routes). @default none: webhook modes are refused */
  webhooks?: WebhookRoutes;
  log?: (line: string) => void;
}

export interface RunningBridges {
  /** The platforms served, for the start-up notice. */
  readonly platforms: string[];
  /** Each bridge's state, for `/health`. */
  status(): BridgeStatus[];
  stop(): Promise<void>;
}

function secret(env: Record<string, string | undefined>, name: string, what: string): string {
  const value = env[name];
  // The variable's name is told, never its value.
  if (!value) throw new ConfigError(`${what}: environment variable ${name} is not set`, { env: name });
  return value;
}

interface Planned {
  adapter: ChatAdapter;
  secrets: string[];
  editIntervalMs: number | undefined;
  retry: RetryOptions | undefined;
}

/** The adapters the config names, every secret read first: a missing one is `invalid_config`. */
function plan(
  config: BridgesConfig | undefined,
  env: StartBridgesOptions['env'],
  log: (line: string) => void,
) {
  const planned: Planned[] = [];
  const telegram = config?.telegram;
  if (telegram) {
    const token = secret(env, telegram.tokenEnv, 'bridges.telegram.tokenEnv');
    const secretToken = telegram.webhook
      ? secret(env, telegram.webhook.secretTokenEnv, 'bridges.telegram.webhook.secretTokenEnv')
      : undefined;
    const adapter = new TelegramAdapter({
      token,
      ...(telegram.apiRoot ? { apiRoot: telegram.apiRoot } : {}),
      ...(telegram.pollTimeoutSeconds !== undefined
        ? { pollTimeoutSeconds: telegram.pollTimeoutSeconds }
        : {}),
      ...(telegram.webhook && secretToken
        ? { webhook: { publicUrl: telegram.webhook.publicUrl, secretToken } }
        : {}),
      log,
    });
    planned.push({
      adapter,
      secrets: [token, ...(secretToken ? [secretToken] : [])],
      editIntervalMs: telegram.editIntervalMs,
      retry: telegram.retry,
    });
  }
  const feishu = config?.feishu;
  if (feishu) {
    const appSecret = secret(env, feishu.appSecretEnv, 'bridges.feishu.appSecretEnv');
    const verificationToken = feishu.verificationTokenEnv
      ? secret(env, feishu.verificationTokenEnv, 'bridges.feishu.verificationTokenEnv')
      : undefined;
    const encryptKey = feishu.encryptKeyEnv
      ? secret(env, feishu.encryptKeyEnv, 'bridges.feishu.encryptKeyEnv')
      : undefined;
    const adapter = new FeishuAdapter({
      appId: feishu.appId,
      appSecret,
      ...(feishu.domain ? { domain: feishu.domain } : {}),
      ...(feishu.mode ? { mode: feishu.mode } : {}),
      ...(verificationToken ? { verificationToken } : {}),
      ...(encryptKey ? { encryptKey } : {}),
      log,
    });
    planned.push({
      adapter,
      secrets: [
        appSecret,
        ...(verificationToken ? [verificationToken] : []),
        ...(encryptKey ? [encryptKey] : []),
      ],
      editIntervalMs: feishu.editIntervalMs,
      retry: feishu.retry,
    });
  }
  return planned;
}

/**
 * Starts the chat bridges the config names (`agentd serve`). A missing secret is `invalid_config`
 * before anything starts; a platform that cannot be reached is not an error: its bridge keeps
 * trying in the background, and `status()` says so.
 */
export async function startBridges(options: StartBridgesOptions): Promise<RunningBridges> {
  const log = options.log ?? (() => {});
  const planned = plan(options.config, options.env, log);
  const bridges: ChatBridge[] = [];
  for (const { adapter, secrets, editIntervalMs, retry } of planned) {
    if (adapter.webhook) {
      if (!options.webhooks)
        throw new ConfigError(`bridges.${adapter.platform}: webhook mode needs agentd serve's HTTP server`);
      options.webhooks.add(adapter.webhook.path, adapter.webhook.handle);
    }
    const bridge = new ChatBridge({
      runtime: options.runtime,
      adapter,
      ...(editIntervalMs !== undefined ? { editIntervalMs } : {}),
      secrets,
      log,
    });
    bridge.run(retry ?? {});
    bridges.push(bridge);
  }
  return {
    platforms: bridges.map((bridge) => bridge.platform),
    status: () => bridges.map((bridge) => bridge.status()),
    stop: async () => {
      for (const { adapter } of planned) if (adapter.webhook) options.webhooks?.remove(adapter.webhook.path);
      await Promise.allSettled(bridges.map((bridge) => bridge.stop()));
    },
  };
}
