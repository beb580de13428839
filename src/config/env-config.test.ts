import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors/index.js';
import { type ClaudeConfig, defaultClaudeConfig } from './claude-config.js';
import { claudeConfigFromEnv, claudeEnvVariables } from './env-config.js';

/** One example per documented variable: the value set and the part of the config it yields. */
const examples: Record<string, { value: string; expected: Partial<ClaudeConfig> }> = {
  CLAUDE_MODEL: { value: ' claude-sonnet-4-5 ', expected: { model: 'claude-sonnet-4-5' } },
  CLAUDE_FALLBACK_MODEL: { value: 'claude-haiku-4-5', expected: { fallbackModel: 'claude-haiku-4-5' } },
  CLAUDE_TOOLS: { value: 'Read, Grep,,Glob', expected: { tools: ['Read', 'Grep', 'Glob'] } },
  CLAUDE_ALLOWED_TOOLS: { value: 'Read,Bash(git *)', expected: { allowedTools: ['Read', 'Bash(git *)'] } },
  CLAUDE_ALLOWED_MCP_TOOLS: {
    value: 'mcp__github__*',
    expected: { allowedTools: ['mcp__github__*'] },
  },
  CLAUDE_DISALLOWED_TOOLS: {
    value: 'WebFetch,WebSearch',
    expected: { disallowedTools: ['WebFetch', 'WebSearch'] },
  },
  CLAUDE_SYSTEM_PROMPT: { value: 'You are terse.', expected: { systemPrompt: 'You are terse.' } },
  CLAUDE_APPEND_SYSTEM_PROMPT: {
    value: 'Answer in French.',
    expected: { systemPrompt: { preset: 'claude_code', append: 'Answer in French.' } },
  },
  CLAUDE_MAX_TURNS: { value: '12', expected: { maxTurns: 12 } },
  CLAUDE_PERMISSION_MODE: { value: 'acceptEdits', expected: { permissionMode: 'acceptEdits' } },
  CLAUDE_MAX_BUDGET_USD: { value: '2.5', expected: { maxBudgetUsd: 2.5 } },
  CLAUDE_EFFORT: { value: 'high', expected: { effort: 'high' } },
  CLAUDE_ADD_DIRS: {
    value: '/data,/srv/shared',
    expected: { additionalDirectories: ['/data', '/srv/shared'] },
  },
  CLAUDE_STRICT_MCP_CONFIG: { value: 'yes', expected: { strictMcpConfig: true } },
  CLAUDE_MCP_SERVERS: {
    value: '{"github":{"type":"http","url":"https://api.example.com/mcp"}}',
    expected: { mcpServers: { github: { type: 'http', url: 'https://api.example.com/mcp' } } },
  },
  CLAUDE_SETTING_SOURCES: { value: 'user,project', expected: { settingSources: ['user', 'project'] } },
  CLAUDE_SKILLS: { value: 'true', expected: { skills: 'all' } },
  CLAUDE_SKILLS_FILTER: { value: 'pdf,xlsx', expected: {} },
  CLAUDE_STREAMING: { value: '1', expected: { includePartialMessages: true } },
  CLAUDE_TIMEOUT: { value: '90', expected: { timeoutSeconds: 90 } },
  CLAUDE_MAX_RETRIES: {
    value: '0',
    expected: { retry: { maxRetries: 0, initialDelayMs: 2000, maxDelayMs: 30_000 } },
  },
  CLAUDE_RETRY_BACKOFF: {
    value: '0.5',
    expected: { retry: { maxRetries: 3, initialDelayMs: 500, maxDelayMs: 30_000 } },
  },
  CLAUDE_RETRY_MAX_DELAY: {
    value: '10',
    expected: { retry: { maxRetries: 3, initialDelayMs: 2000, maxDelayMs: 10_000 } },
  },
  CLAUDE_CWD: { value: '/srv/project', expected: { cwd: '/srv/project' } },
};

describe('claudeConfigFromEnv', () => {
  it('an empty environment gives the defaults', () => {
    expect(claudeConfigFromEnv({})).toEqual(defaultClaudeConfig());
  });

  it('has an example here for every documented variable', () => {
    expect(Object.keys(examples).sort()).toEqual(claudeEnvVariables.map((variable) => variable.name).sort());
  });

  it.each(Object.entries(examples))('%s maps onto the config', (name, { value, expected }) => {
    expect(claudeConfigFromEnv({ [name]: value })).toEqual({ ...defaultClaudeConfig(), ...expected });
  });

  it('CLAUDE_SKILLS_FILTER narrows the skills that CLAUDE_SKILLS enables', () => {
    expect(claudeConfigFromEnv({ CLAUDE_SKILLS: 'true', CLAUDE_SKILLS_FILTER: 'pdf, xlsx' }).skills).toEqual([
      'pdf',
      'xlsx',
    ]);
    expect(
      claudeConfigFromEnv({ CLAUDE_SKILLS: 'false', CLAUDE_SKILLS_FILTER: 'pdf' }).skills,
    ).toBeUndefined();
  });

  it('CLAUDE_ALLOWED_MCP_TOOLS adds to CLAUDE_ALLOWED_TOOLS', () => {
    const config = claudeConfigFromEnv({
      CLAUDE_ALLOWED_TOOLS: 'Read',
      CLAUDE_ALLOWED_MCP_TOOLS: 'mcp__github__get_issue',
    });
    expect(config.allowedTools).toEqual(['Read', 'mcp__github__get_issue']);
  });

  it('empty variables are treated as unset', () => {
    expect(claudeConfigFromEnv({ CLAUDE_MODEL: '', CLAUDE_MAX_TURNS: '' })).toEqual(defaultClaudeConfig());
  });

  it('variables apply over a base config without changing it', () => {
    const base = { ...defaultClaudeConfig(), model: 'base-model', maxTurns: 3 };
    const config = claudeConfigFromEnv({ CLAUDE_MAX_TURNS: '9', CLAUDE_MAX_RETRIES: '1' }, base);
    expect(config).toMatchObject({ model: 'base-model', maxTurns: 9, retry: { maxRetries: 1 } });
    expect(base.maxTurns).toBe(3);
    expect(base.retry.maxRetries).toBe(3);
  });

  it('a boolean accepts true/false, 1/0 and yes/no in any case', () => {
    for (const value of ['true', 'TRUE', '1', 'Yes']) {
      expect(claudeConfigFromEnv({ CLAUDE_STREAMING: value }).includePartialMessages).toBe(true);
    }
    for (const value of ['false', '0', 'No']) {
      expect(claudeConfigFromEnv({ CLAUDE_STREAMING: value }).includePartialMessages).toBe(false);
    }
  });
});

describe('claudeConfigFromEnv: bad values', () => {
  function configError(env: Record<string, string>): ConfigError {
    try {
      claudeConfigFromEnv(env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return error as ConfigError;
    }
    throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
  }

  it.each([
    ['CLAUDE_MAX_TURNS', 'abc', /CLAUDE_MAX_TURNS must be a number, got "abc"/],
    ['CLAUDE_MAX_TURNS', '2.5', /CLAUDE_MAX_TURNS must be a whole number/],
    ['CLAUDE_MAX_TURNS', '0', /CLAUDE_MAX_TURNS must be at least 1/],
    ['CLAUDE_PERMISSION_MODE', 'yolo', /CLAUDE_PERMISSION_MODE must be one of default, acceptEdits/],
    ['CLAUDE_MCP_SERVERS', '{github:', /CLAUDE_MCP_SERVERS is not valid JSON/],
    ['CLAUDE_MCP_SERVERS', '["github"]', /CLAUDE_MCP_SERVERS must be a JSON object/],
    ['CLAUDE_MCP_SERVERS', 'null', /CLAUDE_MCP_SERVERS must be a JSON object/],
    ['CLAUDE_MAX_BUDGET_USD', '-1', /CLAUDE_MAX_BUDGET_USD must be at least 0/],
    ['CLAUDE_EFFORT', 'extreme', /CLAUDE_EFFORT must be one of low, medium, high/],
    ['CLAUDE_STRICT_MCP_CONFIG', 'maybe', /CLAUDE_STRICT_MCP_CONFIG must be true or false/],
    ['CLAUDE_SETTING_SOURCES', 'user,global', /CLAUDE_SETTING_SOURCES must be one of user, project, local/],
    ['CLAUDE_SKILLS', 'on', /CLAUDE_SKILLS must be true or false/],
    ['CLAUDE_STREAMING', 'sometimes', /CLAUDE_STREAMING must be true or false/],
    ['CLAUDE_TIMEOUT', 'ten', /CLAUDE_TIMEOUT must be a number/],
    ['CLAUDE_MAX_RETRIES', '-1', /CLAUDE_MAX_RETRIES must be at least 0/],
    ['CLAUDE_RETRY_BACKOFF', 'fast', /CLAUDE_RETRY_BACKOFF must be a number/],
    ['CLAUDE_RETRY_MAX_DELAY', 'Infinity', /CLAUDE_RETRY_MAX_DELAY must be a number/],
  ])('%s=%s is a ConfigError naming the variable', (name, value, message) => {
    const error = configError({ [name]: value });
    expect(error.message).toMatch(message);
    expect(error.code).toBe('invalid_config');
    expect(error.userError).toBe(true);
    expect(error.details).toEqual({ variable: name });
  });

  it('CLAUDE_APPEND_SYSTEM_PROMPT cannot be combined with CLAUDE_SYSTEM_PROMPT', () => {
    const error = configError({ CLAUDE_SYSTEM_PROMPT: 'a', CLAUDE_APPEND_SYSTEM_PROMPT: 'b' });
    expect(error.message).toContain('CLAUDE_APPEND_SYSTEM_PROMPT');
    expect(error.details).toEqual({ variable: 'CLAUDE_APPEND_SYSTEM_PROMPT' });
  });
});
