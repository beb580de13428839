import { readFileSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import type { BackendName } from '../../backends/agent-backend.js';
import type { PermissionMode } from '../../config/claude-config.js';
import { InvalidInputError } from '../../errors/index.js';
import type { RoleFields } from '../../runtime/roles.js';
import { defaultOrganization } from '../../runtime/runtime-context.js';
import type { RoleRecord } from '../../store/org-storage.js';
import type { CliContext } from '../context.js';
import {
  parseBackend,
  parseList,
  parseNonNegativeNumber,
  parsePermissionMode,
  parsePositiveInteger,
} from '../options.js';
import {
  actorOf,
  addRuntimeOptions,
  type DataDirFlags,
  printJson,
  printLine,
  withRuntime,
} from '../runtime-context.js';

interface RoleFlags extends DataDirFlags {
  org?: string;
  label?: string;
  ordering?: number;
  provider?: string;
  backend?: BackendName;
  model?: string;
  systemPrompt?: string;
  systemPromptFile?: string;
  tools?: string[];
  permissionMode?: PermissionMode;
  skill?: string[];
  userSkills?: boolean;
  turnBudgetUsd?: number;
  warmPool?: number;
}

interface UpdateFlags extends RoleFlags {
  expectVersion?: number;
  clear?: string[];
}

/** What `--clear` may reset: the role then uses the runtime's configuration (or none) for it. */
const clearable = {
  model: 'model',
  'system-prompt': 'systemPrompt',
  tools: 'tools',
  'permission-mode': 'permissionMode',
  skills: 'skills',
  'turn-budget-usd': 'turnBudgetUsd',
  'warm-pool': 'warmPool',
} as const;

function parseInteger(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isInteger(parsed))
    throw new InvalidArgumentError('expected a whole number');
  return parsed;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function addRoleFlags(command: Command): Command {
  return addRuntimeOptions(command)
    .option('--org <organization>', 'organization (default: default)')
    .option('--label <text>', 'name shown to people')
    .option('--ordering <n>', 'listing order, lowest first', parseInteger)
    .option('--provider <name>', 'provider profile (or env, offline)')
    .option('--backend <name>', 'what runs the sessions: claude (default) or codex', parseBackend)
    .option('--model <model>', 'model id, such as anthropic/claude-sonnet-4.6 for openrouter')
    .option('--system-prompt <text>', "appended to Claude Code's system prompt")
    .option('--system-prompt-file <path>', 'the system prompt from a file')
    .option('--tools <tools>', 'comma-separated tools that run without asking', parseList)
    .option('--permission-mode <mode>', 'permission mode', parsePermissionMode)
    .option('--skill <digest>', 'a skill digest (repeat for more); replaces the list', collect)
    .option('--user-skills', "also give the user's own skills folder")
    .option('--no-user-skills', "not the user's own skills folder")
    .option('--turn-budget-usd <usd>', 'maximum cost of each turn', parseNonNegativeNumber)
    .option('--warm-pool <n>', 'warm workers `agentd serve` keeps ready for new sessions', parseInteger);
}

/** The role fields the flags set. */
function fieldsOf(flags: RoleFlags): RoleFields {
  if (flags.systemPrompt !== undefined && flags.systemPromptFile !== undefined)
    throw new InvalidInputError('give --system-prompt or --system-prompt-file, not both');
  const systemPrompt =
    flags.systemPromptFile !== undefined ? readFileSync(flags.systemPromptFile, 'utf8') : flags.systemPrompt;
  return {
    ...(flags.label !== undefined ? { label: flags.label } : {}),
    ...(flags.ordering !== undefined ? { ordering: flags.ordering } : {}),
    ...(flags.provider !== undefined ? { provider: flags.provider } : {}),
    ...(flags.backend !== undefined ? { backend: flags.backend } : {}),
    ...(flags.model !== undefined ? { model: flags.model } : {}),
    ...(systemPrompt !== undefined ? { systemPrompt } : {}),
    ...(flags.tools !== undefined ? { tools: flags.tools } : {}),
    ...(flags.permissionMode !== undefined ? { permissionMode: flags.permissionMode } : {}),
    ...(flags.skill !== undefined ? { skills: flags.skill } : {}),
    ...(flags.userSkills !== undefined ? { userSkills: flags.userSkills } : {}),
    ...(flags.turnBudgetUsd !== undefined ? { turnBudgetUsd: flags.turnBudgetUsd } : {}),
    ...(flags.warmPool !== undefined ? { warmPool: flags.warmPool } : {}),
  };
}

function clearedOf(names: string[] = []): RoleFields {
  const cleared: Record<string, null | []> = {};
  for (const name of names) {
    const field = clearable[name as keyof typeof clearable];
    if (!field)
      throw new InvalidInputError(`--clear takes ${Object.keys(clearable).join(', ')}, not ${name}`);
    cleared[field] = field === 'skills' ? [] : null;
  }
  return cleared as RoleFields;
}

const organizationOf = (flags: RoleFlags) => (flags.org ? { organization: flags.org } : {});
const orDefault = (value: string | null) => value ?? '(default)';

function printRole(context: CliContext, role: RoleRecord, isDefault: boolean): void {
  const rows: Array<[string, string]> = [
    [
      'role',
      `${role.organization}/${role.name} version ${role.version}${isDefault ? ' (default)' : ''}${role.deleted ? ' (deleted)' : ''}`,
    ],
    ['label', role.label],
    ['ordering', String(role.ordering)],
    ['provider', role.provider],
    ['backend', role.backend],
    ['model', orDefault(role.model)],
    ['system', role.systemPrompt === null ? '(default)' : JSON.stringify(role.systemPrompt.slice(0, 200))],
    ['tools', role.tools === null ? '(default)' : role.tools.join(', ') || '(none)'],
    ['permission', orDefault(role.permissionMode)],
    ['skills', role.skills.join(' ') || '(none)'],
    ['user skills', role.userSkills ? 'yes' : 'no'],
    ['turn budget', role.turnBudgetUsd === null ? 'none' : `$${role.turnBudgetUsd}`],
    ['warm pool', role.warmPool === null ? '(server default)' : String(role.warmPool)],
  ];
  for (const [name, value] of rows) printLine(context, `${name.padEnd(12)}${value}`);
}

function roleLine(role: RoleRecord): string {
  return `v${role.version} ${new Date(role.createdAt).toISOString()} ${role.label} ${role.provider} ${orDefault(role.model)}${role.deleted ? ' (deleted)' : ''}`;
}

export function registerRoleCommands(program: Command, context: CliContext): void {
  const roles = program.command('roles').description("an organization's versioned roles");

  addRoleFlags(roles.command('create').description('create a role').argument('<name>', 'role name')).action(
    async (name: string, flags: RoleFlags) => {
      const fields = fieldsOf(flags);
      await withRuntime(flags, context, async (runtime) => {
        const role = await runtime.roles.create({
          name,
          ...fields,
          ...organizationOf(flags),
          ...actorOf(flags),
        });
        if (flags.json) return printJson(context, role);
        printLine(context, `created role ${role.name} version ${role.version}`);
      });
    },
  );

  addRuntimeOptions(roles.command('list').description("an organization's roles"))
    .option('--org <organization>', 'organization (default: default)')
    .action(async (flags: RoleFlags) => {
      await withRuntime(flags, context, async (runtime) => {
        const list = await runtime.roles.list(organizationOf(flags));
        const { defaultRole } = await runtime.roles.organization(flags.org ?? defaultOrganization);
        if (flags.json) return printJson(context, { roles: list, defaultRole });
        for (const role of list)
          printLine(
            context,
            `${role.name === defaultRole ? '*' : ' '} ${role.name} v${role.version} ${JSON.stringify(role.label)} ${role.provider} ${orDefault(role.model)}`,
          );
      });
    });

  addRuntimeOptions(roles.command('show').description('a role').argument('<name>', 'role name'))
    .option('--org <organization>', 'organization (default: default)')
    .option('--version <n>', 'that version instead of the current one', parsePositiveInteger)
    .option('--history', 'every version, oldest first')
    .action(async (name: string, flags: RoleFlags & { version?: number; history?: boolean }) => {
      await withRuntime(flags, context, async (runtime) => {
        if (flags.history) {
          const versions = await runtime.roles.history(name, organizationOf(flags));
          if (flags.json) return printJson(context, versions);
          for (const version of versions) printLine(context, roleLine(version));
          return;
        }
        const role = await runtime.roles.get(name, {
          ...organizationOf(flags),
          ...(flags.version !== undefined ? { version: flags.version } : {}),
        });
        if (flags.json) return printJson(context, role);
        const organization = await runtime.roles.organization(role.organization);
        printRole(context, role, organization.defaultRole === role.name);
      });
    });

  addRoleFlags(
    roles
      .command('update')
      .description(
        'change a role: writes its next version; a change to what the agent is (provider, model, prompt, tools, permission mode, skills) archives its sessions',
      )
      .argument('<name>', 'role name'),
  )
    .option('--expect-version <n>', 'refuse unless this is the current version', parsePositiveInteger)
    .option('--clear <fields>', `reset to the default: ${Object.keys(clearable).join(', ')}`, parseList)
    .action(async (name: string, flags: UpdateFlags) => {
      const patch = { ...clearedOf(flags.clear), ...fieldsOf(flags) };
      await withRuntime(flags, context, async (runtime) => {
        const change = await runtime.roles.update(name, patch, {
          ...organizationOf(flags),
          ...(flags.expectVersion !== undefined ? { expectVersion: flags.expectVersion } : {}),
          ...actorOf(flags),
        });
        if (flags.json) return printJson(context, change);
        printLine(context, `role ${change.role.name} version ${change.role.version}`);
        printLine(
          context,
          change.archived.length === 0
            ? 'no sessions archived'
            : `archived ${change.archived.length} session${change.archived.length === 1 ? '' : 's'}: ${change.archived.join(' ')}`,
        );
      });
    });

  addRuntimeOptions(
    roles
      .command('delete')
      .description("delete a role (not the organization's default); archives its sessions")
      .argument('<name>', 'role name'),
  )
    .option('--org <organization>', 'organization (default: default)')
    .action(async (name: string, flags: RoleFlags) => {
      await withRuntime(flags, context, async (runtime) => {
        const change = await runtime.roles.delete(name, { ...organizationOf(flags), ...actorOf(flags) });
        if (flags.json) return printJson(context, change);
        printLine(context, `deleted role ${name} (${change.archived.length} sessions archived)`);
      });
    });

  addRuntimeOptions(
    roles
      .command('default')
      .description("print the organization's default role, or with a name make it the default")
      .argument('[name]', 'role name'),
  )
    .option('--org <organization>', 'organization (default: default)')
    .action(async (name: string | undefined, flags: RoleFlags) => {
      await withRuntime(flags, context, async (runtime) => {
        if (name !== undefined)
          await runtime.roles.setDefault(name, { ...organizationOf(flags), ...actorOf(flags) });
        const role = await runtime.roles.defaultRole(organizationOf(flags));
        if (flags.json) return printJson(context, role);
        printLine(context, role.name);
      });
    });
}
