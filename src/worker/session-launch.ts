import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { claudeConfigDir } from '../backends/claude/local-transcript.js';
import type { ClaudeConfig } from '../config/claude-config.js';
import { providerEnvFor } from '../config/provider-env.js';
import type { DataPaths } from '../journal/data-dir.js';
import { FileSkillStore } from '../skills/file-skill-store.js';
import { materializeSkillPlugin } from '../skills/skill-plugin.js';
import type { ProviderStorage, RoleStorage } from '../store/org-storage.js';
import type { SessionRecord } from '../store/store.js';

type Env = Record<string, string | undefined>;

/**
 * What an execution adds to its session's stored config when it starts: the environment for the
 * session's provider (its secret included: never stored) and the config the worker makes itself
 * (its role's skills as a plugin).
 */
export interface SessionLaunch {
  env: Record<string, string>;
  config: Partial<ClaudeConfig>;
}

export interface SessionEnvOptions {
  store: Pick<ProviderStorage, 'getProvider'>;
  session: Pick<SessionRecord, 'provider'>;
  /** The environment that starts workers (the runtime's, or the worker process's own). */
  env: Env;
}

/**
 * The environment an execution of `session` gives `claude` over its own: the provider profile's
 * endpoint, secret and models, or nothing for `env`, the legacy names and `offline`. Throws
 * `credentials_missing` when the profile's secret cannot be read.
 */
export function sessionEnv(options: SessionEnvOptions): Promise<Record<string, string>> {
  return providerEnvFor({ store: options.store, provider: options.session.provider, env: options.env });
}

export interface SessionLaunchOptions extends SessionEnvOptions {
  store: Pick<ProviderStorage, 'getProvider'> & Pick<RoleStorage, 'getRole'>;
  session: Pick<SessionRecord, 'provider' | 'config' | 'organization' | 'role'>;
  /** The data dir: its skill store, and where skills are materialized for `claude`. */
  paths: Pick<DataPaths, 'root' | 'skills'>;
}

/**
 * Everything an execution of `session` adds to its stored config when it starts. Throws an
 * `AgentdError` when the session cannot start (`credentials_missing`, `skill_corrupt`, a missing
 * skill's `not_found`): the worker fails its execution with that code.
 */
export async function sessionLaunch(options: SessionLaunchOptions): Promise<SessionLaunch> {
  const env = await sessionEnv(options);
  const config = await skillsConfig({
    stored: options.session.config as Partial<ClaudeConfig>,
    paths: options.paths,
    env: options.env,
  });
  return { env, config: { ...config, ...(await turnBudget(options)) } };
}

/**
 * The per-turn cap (the SDK's `maxBudgetUsd`) of the session's role as it is now, not as it was when
 * the session was made: a change to it is no change of the execution surface, and takes effect at
 * the session's next worker. A role without one leaves the session's own setting.
 */
async function turnBudget(options: SessionLaunchOptions): Promise<Partial<ClaudeConfig>> {
  const { session, store } = options;
  if (session.organization === null || session.role === null) return {};
  const role = await store.getRole(session.organization, session.role);
  return role?.turnBudgetUsd != null ? { maxBudgetUsd: role.turnBudgetUsd } : {};
}

/**
 * A session with `skillDigests` (made from a role) sees exactly those skills: verified, written
 * into a plugin folder, and named in the SDK's `skills` filter, which hides every other skill
 * (claude's bundled ones, the project's, the user's unless `userSkills`). Without `skillDigests`
 * (a session made before roles) nothing changes.
 */
export async function skillsConfig(options: {
  stored: Partial<ClaudeConfig>;
  paths: Pick<DataPaths, 'root' | 'skills'>;
  env: Env;
}): Promise<Partial<ClaudeConfig>> {
  const { stored, paths } = options;
  if (stored.skillDigests === undefined) return {};
  const plugin =
    stored.skillDigests.length > 0
      ? await materializeSkillPlugin({
          store: new FileSkillStore({ directory: paths.skills }),
          digests: stored.skillDigests,
          directory: join(paths.root, 'plugins'),
        })
      : null;
  const userSkills = stored.userSkills ? await userSkillNames(options.env) : [];
  return { plugins: plugin ? [plugin.path] : [], skills: [...(plugin?.skills ?? []), ...userSkills] };
}

/**
 * The names of the skills in the user's own skills folder (`$CLAUDE_CONFIG_DIR/skills`, else
 * `~/.claude/skills`): one folder each, named as the skill. Read when the worker starts.
 */
async function userSkillNames(env: Env): Promise<string[]> {
  const folder = join(claudeConfigDir(env), 'skills');
  const entries = await readdir(folder).catch(() => [] as string[]);
  const names: string[] = [];
  for (const name of entries.sort()) {
    if (await stat(join(folder, name, 'SKILL.md')).catch(() => null)) names.push(name);
  }
  return names;
}

/**
 * The stored config with what the launch adds: its config over it, its env over the config's.
 * What the session keeps there for agentd alone (its first prompt, whether it takes peer messages)
 * is left out: it never reaches `claude`, so two sessions that differ only in it launch alike.
 */
export function launchConfig(stored: ClaudeConfig, launch: SessionLaunch | undefined): ClaudeConfig {
  const {
    initialPrompt: _prompt,
    acceptPeers: _peers,
    ...config
  } = stored as ClaudeConfig & {
    initialPrompt?: unknown;
    acceptPeers?: unknown;
  };
  if (!launch) return config;
  return { ...config, ...launch.config, env: { ...config.env, ...launch.env } };
}
