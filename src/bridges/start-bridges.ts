import { ConfigError } from '../errors/index.js';
import type { Runtime } from '../runtime/runtime.js';
import type { BridgesConfig } from './bridges-config.js';
import { ChatBridge } from './chat-bridge.js';
import { TelegramAdapter } from './telegram/telegram-adapter.js';

export interface StartBridgesOptions {
  runtime: Runtime;
  config: BridgesConfig | undefined;
  /** Where the secrets named in the config are read. */
  env: Record<string, string | undefined>;
  log?: (line: string) => void;
}

export interface RunningBridges {
  /** The platforms served, for the start-up notice. */
  readonly platforms: string[];
  stop(): Promise<void>;
}

function secret(env: Record<string, string | undefined>, name: string, what: string): string {
  const value = env[name];
  // The variable's name is told, never its value.
  if (!value) throw new ConfigError(`${what}: environment variable ${name} is not set`, { env: name });
  return value;
}

/** Starts the chat bridges the config names (`agentd serve`); a missing secret is `invalid_config`. */
export async function startBridges(options: StartBridgesOptions): Promise<RunningBridges> {
  const bridges: ChatBridge[] = [];
  const log = options.log ?? (() => {});
  const telegram = options.config?.telegram;
  try {
    if (telegram) {
      const adapter = new TelegramAdapter({
        token: secret(options.env, telegram.tokenEnv, 'bridges.telegram.tokenEnv'),
        ...(telegram.apiRoot ? { apiRoot: telegram.apiRoot } : {}),
        ...(telegram.pollTimeoutSeconds !== undefined
          ? { pollTimeoutSeconds: telegram.pollTimeoutSeconds }
          : {}),
        log,
      });
      const bridge = new ChatBridge({
        runtime: options.runtime,
        adapter,
        ...(telegram.editIntervalMs !== undefined ? { editIntervalMs: telegram.editIntervalMs } : {}),
        log,
      });
      await bridge.start();
      bridges.push(bridge);
    }
  } catch (error) {
    await Promise.allSettled(bridges.map((bridge) => bridge.stop()));
    throw error;
  }
  return {
    platforms: bridges.map((bridge) => bridge.platform),
    stop: async () => {
      await Promise.allSettled(bridges.map((bridge) => bridge.stop()));
    },
  };
}
