import { AgentCard } from '@a2a-js/sdk';
import { z } from 'zod';
import { ConfigError } from '../../errors/index.js';
import { version as agentdVersion } from '../../version.js';

const skillSchema = z.strictObject({
  id: z.string().min(1),
  name: z.string().min(1),
  description: z.string().default(''),
  tags: z.array(z.string()).default([]),
  examples: z.array(z.string()).default([]),
});

/** The agent card's settings (`agentCard` in `agentd serve --config`); the rest is agentd's to say. */
export const agentCardConfigSchema = z.strictObject({
  /** @default 'agentd' */
  name: z.string().min(1).default('agentd'),
  /** @default 'A Claude agent run by agentd' */
  description: z.string().default('A Claude agent run by agentd'),
  /** @default agentd's version */
  version: z.string().min(1).default(agentdVersion),
  /** @default one general skill */
  skills: z.array(skillSchema).default([
    {
      id: 'claude',
      name: 'Claude agent',
      description: 'Works on tasks with Claude and its tools',
      tags: ['claude', 'agent'],
      examples: [],
    },
  ]),
  /** @default ['text'] */
  defaultInputModes: z.array(z.string()).default(['text']),
  /** @default ['text'] */
  defaultOutputModes: z.array(z.string()).default(['text']),
  provider: z.strictObject({ organization: z.string(), url: z.string() }).optional(),
  documentationUrl: z.string().optional(),
  iconUrl: z.string().optional(),
});

export type AgentCardConfig = z.input<typeof agentCardConfigSchema>;

export function parseAgentCardConfig(value: unknown): z.output<typeof agentCardConfigSchema> {
  const parsed = agentCardConfigSchema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  throw new ConfigError(`agentCard is invalid: ${issues.join('; ')}`, { issues });
}

/** Where the transports are, relative to the server's base URL. */
export const a2aPaths = { jsonRpc: '/', jsonRpcAlias: '/a2a', rest: '/a2a/v1' } as const;

/**
 * The v1.0 agent card: JSON-RPC (1.0, and 0.3 for kagent and older clients) and HTTP+JSON (1.0),
 * streaming and push notifications, and a bearer scheme when the server requires tokens.
 */
export function buildAgentCard(
  config: z.output<typeof agentCardConfigSchema>,
  options: { baseUrl: string; bearer?: boolean },
): AgentCard {
  const base = options.baseUrl.replace(/\/+$/, '');
  const jsonRpcUrl = `${base}${a2aPaths.jsonRpc}`;
  return {
    name: config.name,
    description: config.description,
    version: config.version,
    supportedInterfaces: [
      { url: jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
      { url: `${base}${a2aPaths.rest}`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: '' },
      { url: jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: '' },
    ],
    provider: config.provider,
    ...(config.documentationUrl ? { documentationUrl: config.documentationUrl } : {}),
    ...(config.iconUrl ? { iconUrl: config.iconUrl } : {}),
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: false },
    securitySchemes: options.bearer
      ? {
          bearer: {
            scheme: {
              $case: 'httpAuthSecurityScheme',
              value: { scheme: 'bearer', description: 'agentd bearer token', bearerFormat: '' },
            },
          },
        }
      : {},
    securityRequirements: options.bearer ? [{ schemes: { bearer: { list: [] } } }] : [],
    defaultInputModes: config.defaultInputModes,
    defaultOutputModes: config.defaultOutputModes,
    skills: config.skills.map((skill) => ({
      ...skill,
      inputModes: [],
      outputModes: [],
      securityRequirements: [],
    })),
    signatures: [],
  };
}

/** The card as v1.0 JSON. */
export function agentCardJson(card: AgentCard): Record<string, unknown> {
  return AgentCard.toJSON(card) as Record<string, unknown>;
}

/**
 * The card for a v0.3 client (no `A2A-Version`, or 0.x): the v0.3 fields (`url`, `protocolVersion`,
 * `preferredTransport` …) with the v1.0 interfaces kept beside them, as the SDK's compat layer
 * serves it, so one document works for kagent's controller and for v1.0 clients alike.
 */
export function legacyAgentCardJson(card: AgentCard): Record<string, unknown> {
  const v1 = agentCardJson(card);
  const legacy = card.supportedInterfaces.find((entry) => entry.protocolVersion.startsWith('0.'));
  const bearer = card.securityRequirements.length > 0;
  return {
    protocolVersion: legacy?.protocolVersion ?? '0.3',
    name: card.name,
    description: card.description,
    version: card.version,
    url: legacy?.url ?? card.supportedInterfaces[0]?.url,
    preferredTransport: 'JSONRPC',
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map((skill) => ({
      id: skill.id,
      name: skill.name,
      description: skill.description,
      tags: skill.tags,
      ...(skill.examples.length > 0 ? { examples: skill.examples } : {}),
    })),
    ...(card.provider ? { provider: card.provider } : {}),
    ...(card.documentationUrl ? { documentationUrl: card.documentationUrl } : {}),
    ...(card.iconUrl ? { iconUrl: card.iconUrl } : {}),
    ...(bearer
      ? {
          securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'agentd bearer token' } },
          security: [{ bearer: [] }],
        }
      : {}),
    supportedInterfaces: v1.supportedInterfaces,
  };
}
