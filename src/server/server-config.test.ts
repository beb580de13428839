import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors/index.js';
import { baseClaudeConfig, configuredTokens, parseServerConfig } from './server-config.js';

describe('server config', () => {
  it('parseServerConfig: accepts every documented key', () => {
    const config = parseServerConfig({
      tokens: ['a'],
      maxLiveWorkers: 4,
      bodyLimitBytes: 4096,
      corsOrigins: ['https://app.example'],
      heartbeatSeconds: 5,
      claude: { model: 'claude-sonnet-4-5', allowedTools: ['Read'], retry: { maxRetries: 1 } },
      agentCard: { name: 'agent' },
    });
    expect(config.maxLiveWorkers).toBe(4);
  });

  it('parseServerConfig: an unknown or mistyped key is a config error naming it', () => {
    expect(() => parseServerConfig({ token: ['a'] })).toThrow(ConfigError);
    expect(() => parseServerConfig({ claude: { env: { ANTHROPIC_API_KEY: 'x' } } })).toThrow(/claude/);
    expect(() => parseServerConfig({ maxLiveWorkers: 0 })).toThrow(/maxLiveWorkers/);
  });

  it('configuredTokens: joins flags, the file and AGENTD_TOKENS without duplicates', () => {
    expect(configuredTokens({ tokens: ['b', 'c'] }, { AGENTD_TOKENS: ' c, d ,' }, ['a'])).toEqual([
      'a',
      'b',
      'c',
      'd',
    ]);
    expect(configuredTokens({}, {})).toEqual([]);
  });

  it('baseClaudeConfig: the file wins over CLAUDE_* variables, which fill the rest', () => {
    const config = baseClaudeConfig(
      { claude: { model: 'from-file', retry: { maxRetries: 1 } } },
      { CLAUDE_MODEL: 'from-env', CLAUDE_MAX_TURNS: '7' },
    );
    expect(config).toMatchObject({
      model: 'from-file',
      maxTurns: 7,
      retry: { maxRetries: 1, initialDelayMs: 2000 },
    });
  });
});
