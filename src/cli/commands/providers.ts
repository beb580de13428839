import { resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { InvalidInputError } from '../../errors/index.js';
import {
  type ProviderKind,
  type ProviderModels,
  type ProviderRecord,
  providerKinds,
  type SecretRef,
} from '../../store/org-storage.js';
import type { CliContext } from '../context.js';
import {
  actorOf,
  addRuntimeOptions,
  type DataDirFlags,
  printJson,
  printLine,
  withRuntime,
} from '../runtime-context.js';

interface AddFlags extends DataDirFlags {
  kind: ProviderKind;
  baseUrl?: string;
  secretEnv?: string;
  secretFile?: string;
  opusModel?: string;
  sonnetModel?: string;
  haikuModel?: string;
  subagentModel?: string;
}

function parseKind(value: string): ProviderKind {
  if (!(providerKinds as readonly string[]).includes(value))
    throw new InvalidArgumentError(`expected one of ${providerKinds.join(', ')}`);
  return value as ProviderKind;
}

/** Where the secret comes from, as the flags name it; a relative file is the caller's, made absolute. */
function secretOf(flags: AddFlags): SecretRef {
  if ((flags.secretEnv === undefined) === (flags.secretFile === undefined))
    throw new InvalidInputError(
      'name where the secret comes from with exactly one of --secret-env VARIABLE or --secret-file PATH (never the secret itself)',
    );
  return flags.secretEnv !== undefined ? { env: flags.secretEnv } : { file: resolve(flags.secretFile!) };
}

function modelsOf(flags: AddFlags): ProviderModels {
  return {
    ...(flags.opusModel ? { opus: flags.opusModel } : {}),
    ...(flags.sonnetModel ? { sonnet: flags.sonnetModel } : {}),
    ...(flags.haikuModel ? { haiku: flags.haikuModel } : {}),
    ...(flags.subagentModel ? { subagent: flags.subagentModel } : {}),
  };
}

const secretText = (secret: SecretRef) => ('env' in secret ? `env ${secret.env}` : `file ${secret.file}`);

function printProvider(context: CliContext, provider: ProviderRecord): void {
  printLine(context, `provider  ${provider.name}`);
  printLine(context, `kind      ${provider.kind}`);
  printLine(context, `base url  ${provider.baseUrl ?? '(the kind’s default)'}`);
  printLine(context, `secret    ${secretText(provider.secret)}`);
  for (const [name, model] of Object.entries(provider.models))
    printLine(context, `${`${name} model`.padEnd(9)} ${model}`);
}

export function registerProviderCommands(program: Command, context: CliContext): void {
  const providers = program
    .command('providers')
    .description('provider profiles: how to reach a model and where its secret comes from');

  addRuntimeOptions(
    providers
      .command('add')
      .description('create or replace a provider profile')
      .argument('<name>', 'profile name'),
  )
    .requiredOption('--kind <kind>', providerKinds.join(' | '), parseKind)
    .option('--base-url <url>', 'Anthropic-compatible endpoint, without /v1 (default for openrouter)')
    .option('--secret-env <variable>', 'the secret is in this environment variable of the workers')
    .option('--secret-file <path>', 'the secret is in this file')
    .option('--opus-model <model>', 'model for opus requests (ANTHROPIC_DEFAULT_OPUS_MODEL)')
    .option('--sonnet-model <model>', 'model for sonnet requests (ANTHROPIC_DEFAULT_SONNET_MODEL)')
    .option('--haiku-model <model>', 'model for haiku and side requests (ANTHROPIC_DEFAULT_HAIKU_MODEL)')
    .option('--subagent-model <model>', 'model for subagents (CLAUDE_CODE_SUBAGENT_MODEL)')
    .action(async (name: string, flags: AddFlags) => {
      const secret = secretOf(flags);
      await withRuntime(flags, context, async (runtime) => {
        const result = await runtime.providers.add({
          name,
          kind: flags.kind,
          secret,
          models: modelsOf(flags),
          ...(flags.baseUrl !== undefined ? { baseUrl: flags.baseUrl } : {}),
          ...actorOf(flags),
        });
        if (flags.json) return printJson(context, result);
        printLine(context, `${result.created ? 'added' : 'replaced'} provider ${result.provider.name}`);
      });
    });

  addRuntimeOptions(providers.command('list').description('list provider profiles')).action(
    async (flags: DataDirFlags) => {
      await withRuntime(flags, context, async (runtime) => {
        const list = await runtime.providers.list();
        if (flags.json) return printJson(context, list);
        if (list.length === 0) printLine(context, 'no provider profiles (sessions use the environment: env)');
        for (const provider of list)
          printLine(
            context,
            `${provider.name} ${provider.kind} ${provider.baseUrl ?? '-'} secret ${secretText(provider.secret)}`,
          );
      });
    },
  );

  addRuntimeOptions(
    providers.command('show').description('a provider profile').argument('<name>', 'profile name'),
  ).action(async (name: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const provider = await runtime.providers.get(name);
      if (flags.json) return printJson(context, provider);
      printProvider(context, provider);
    });
  });

  addRuntimeOptions(
    providers
      .command('remove')
      .description('remove a provider profile (refused while a role uses it)')
      .argument('<name>', 'profile name'),
  ).action(async (name: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      await runtime.providers.remove(name, actorOf(flags));
      if (flags.json) return printJson(context, { removed: name });
      printLine(context, `removed provider ${name}`);
    });
  });
}
