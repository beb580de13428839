import type { Command } from 'commander';
import { InvalidInputError } from '../../errors/index.js';
import { type Answer, answerScopes, type ScopedAnswer } from '../../runtime/answers.js';
import type { CliContext } from '../context.js';
import { addRuntimeOptions, type DataDirFlags, printJson, withRuntime } from '../runtime-context.js';
import { registerRuleCommands } from './rules.js';

/** `--scope`, `--rule`, `--rule-for` of approve and deny. */
function withScopeOptions(command: Command): Command {
  return command
    .option('--scope <scope>', `how far the decision reaches: ${answerScopes.join(', ')} (default once)`)
    .option('--rule <rule>', 'with --scope session or rule: the rule to remember, like "Bash(npm test:*)"')
    .option('--rule-for <where>', "with --scope rule: role (the session's role, default) or organization");
}

function scopeOf(flags: Record<string, unknown>): ScopedAnswer {
  const scope = flags.scope;
  if (scope !== undefined && !(answerScopes as readonly unknown[]).includes(scope))
    throw new InvalidInputError(`--scope must be one of ${answerScopes.join(', ')}`);
  const ruleFor = flags.ruleFor;
  if (ruleFor !== undefined && ruleFor !== 'role' && ruleFor !== 'organization')
    throw new InvalidInputError('--rule-for must be role or organization');
  return {
    ...(scope !== undefined ? { scope: scope as ScopedAnswer['scope'] & string } : {}),
    ...(typeof flags.rule === 'string' ? { rule: flags.rule } : {}),
    ...(ruleFor !== undefined ? { ruleFor } : {}),
  } as ScopedAnswer;
}

function answerCommand(
  program: Command,
  context: CliContext,
  options: {
    name: string;
    description: string;
    build: (rest: string[], flags: Record<string, unknown>) => Answer;
    configure?: (command: Command) => Command;
  },
) {
  const command = addRuntimeOptions(
    program
      .command(options.name)
      .description(options.description)
      .argument('<interaction>', 'interaction id'),
  );
  (options.configure ? options.configure(command) : command).action(
    async (interactionId: string, ...rest: unknown[]) => {
      const flags = rest.find(
        (value) => value && typeof value === 'object' && !Array.isArray(value),
      ) as DataDirFlags & Record<string, unknown>;
      const words = rest.filter((value): value is string[] => Array.isArray(value)).flat();
      await withRuntime(flags, context, async (runtime) => {
        const interaction = await runtime.answer(interactionId, options.build(words, flags));
        if (flags.json) printJson(context, interaction);
        else context.stdout.write(`answered ${interaction.id}\n`);
      });
    },
  );
}

export function registerApprovalCommands(program: Command, context: CliContext): void {
  addRuntimeOptions(program.command('approvals').description('pending approvals and questions'))
    .option('--session <id>', 'only this session')
    .option('--all', 'answered ones too')
    .action(async (flags: DataDirFlags & { session?: string; all?: boolean }) => {
      await withRuntime(flags, context, async (runtime) => {
        const interactions = await runtime.interactions({
          ...(flags.session ? { sessionId: flags.session } : {}),
          ...(flags.all ? {} : { state: 'pending' as const }),
        });
        if (flags.json) return printJson(context, interactions);
        if (interactions.length === 0) context.stdout.write('nothing pending\n');
        for (const interaction of interactions) {
          context.stdout.write(
            `${interaction.id} ${interaction.state} ${interaction.kind} ${interaction.toolName} session ${interaction.sessionId}\n  ${JSON.stringify(interaction.request.input).slice(0, 200)}\n`,
          );
        }
      });
    });

  answerCommand(program, context, {
    name: 'approve',
    description: 'approve a pending tool use (--scope session or rule: later matching uses too)',
    configure: withScopeOptions,
    build: (_rest, flags) => ({ decision: 'approve', ...scopeOf(flags) }),
  });
  answerCommand(program, context, {
    name: 'deny',
    description: 'deny a pending tool use (--scope session or rule: later matching uses too)',
    configure: (command) => withScopeOptions(command.option('--reason <text>', 'told to Claude')),
    build: (_rest, flags) => ({
      decision: 'deny',
      ...(typeof flags.reason === 'string' ? { reason: flags.reason } : {}),
      ...scopeOf(flags),
    }),
  });
  registerRuleCommands(program, context);
  answerCommand(program, context, {
    name: 'answer',
    description: 'answer Claude\'s question: agentd answer ID "question=answer" …',
    configure: (command) =>
      command.argument('<answers...>', '"question=answer" pairs, or one answer for a single question'),
    build: (rest) => {
      const answers: Record<string, string> = {};
      for (const pair of rest) {
        const index = pair.indexOf('=');
        if (index > 0) answers[pair.slice(0, index)] = pair.slice(index + 1);
        else answers[''] = pair;
      }
      return { answers };
    },
  });
}
