import type { Command } from 'commander';
import type { PermissionRuleRecord, RuleScope } from '../../store/rule-storage.js';
import { ruleScopes } from '../../store/rule-storage.js';
import type { CliContext } from '../context.js';
import {
  actorOf,
  addRuntimeOptions,
  type DataDirFlags,
  printJson,
  printLine,
  withRuntime,
} from '../runtime-context.js';

function describeRule(rule: PermissionRuleRecord): string {
  const state = rule.revokedAt === null ? '' : ' (revoked)';
  const origin = rule.interactionId ? ` from interaction ${rule.interactionId}` : '';
  return `${rule.id} ${rule.decision} ${rule.rule} ${rule.scope} ${rule.target}${origin}${state}`;
}

/** `agentd rules`: the persisted, scoped decisions on tool uses (approval scopes). */
export function registerRuleCommands(program: Command, context: CliContext): void {
  const rules = program
    .command('rules')
    .description(
      'permission rules: approvals and denials that hold for a session, a role or an organization',
    );

  addRuntimeOptions(rules.command('list', { isDefault: true }).description('the rules in force'))
    .option('--session <id>', 'only the rules that hold in this session')
    .option('--all', 'revoked ones too')
    .action(async (flags: DataDirFlags & { session?: string; all?: boolean }) => {
      await withRuntime(flags, context, async (runtime) => {
        const list = await runtime.rules.list({
          ...(flags.session ? { sessionId: flags.session } : {}),
          ...(flags.all ? { includeRevoked: true } : {}),
        });
        if (flags.json) return printJson(context, list);
        if (list.length === 0) printLine(context, 'no rules');
        for (const rule of list) printLine(context, describeRule(rule));
      });
    });

  addRuntimeOptions(
    rules
      .command('add')
      .description('add a rule without waiting for an approval to answer')
      .argument('<scope>', ruleScopes.join(' | '))
      .argument('<target>', 'a session id, <organization>/<role>, or an organization')
      .argument('<rule>', 'in Claude Code syntax, like "Bash(npm test:*)"'),
  )
    .option('--deny', 'deny matching tool uses (default: approve them)')
    .action(async (scope: string, target: string, rule: string, flags: DataDirFlags & { deny?: boolean }) => {
      await withRuntime(flags, context, async (runtime) => {
        const added = await runtime.rules.add({
          scope: scope as RuleScope,
          target,
          rule,
          decision: flags.deny ? 'deny' : 'approve',
          ...actorOf(flags),
        });
        if (flags.json) return printJson(context, added);
        printLine(context, describeRule(added));
      });
    });

  addRuntimeOptions(
    rules
      .command('revoke')
      .description('revoke a rule: it decides nothing from now on, in running workers too')
      .argument('<id>', 'rule id'),
  ).action(async (id: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const revoked = await runtime.rules.revoke(id, actorOf(flags));
      if (flags.json) return printJson(context, revoked);
      printLine(context, describeRule(revoked));
    });
  });
}
