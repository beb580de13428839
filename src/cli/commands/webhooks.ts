import type { Command } from 'commander';
import type { WebhookDeliveryDetails } from '../../runtime/webhooks.js';
import type { WebhookRecord } from '../../store/webhook-storage.js';
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
  url: string;
  events: string;
  secretEnv: string;
  session?: string;
  org?: string;
  id?: string;
}

function webhookLine(webhook: WebhookRecord): string {
  const scope = webhook.sessionId ? `session ${webhook.sessionId}` : `organization ${webhook.organization}`;
  const state = webhook.state === 'active' ? 'active' : `disabled: ${webhook.disabledReason ?? ''}`;
  return `${webhook.id}  ${state}  ${webhook.url}  ${webhook.events.join(',')}  ${scope}  secret $${webhook.secretEnv}`;
}

function deliveryLines(details: WebhookDeliveryDetails): string[] {
  const { delivery, attempts } = details;
  return [
    `${delivery.id}  ${delivery.type}  session ${delivery.sessionId} cursor ${delivery.cursor}  ${delivery.state} after ${delivery.attempts} attempt(s)${delivery.state === 'pending' && delivery.attempts > 0 ? `, next ${new Date(delivery.nextAttemptAt).toISOString()}` : ''}`,
    ...attempts.map(
      (attempt) =>
        `  #${attempt.attempt} ${new Date(attempt.startedAt).toISOString()} ${attempt.ok ? 'ok' : 'failed'} ${attempt.status ?? '-'} ${attempt.error ?? ''} (${attempt.durationMs} ms)`,
    ),
  ];
}

export function registerWebhookCommands(program: Command, context: CliContext): void {
  const webhook = program
    .command('webhook')
    .alias('webhooks')
    .description('signed HTTP callbacks on events, retried from the store (docs/run-control.md)');

  addRuntimeOptions(webhook.command('add').description('subscribe a URL to events'))
    .requiredOption('--url <url>', 'where deliveries are POSTed')
    .requiredOption(
      '--events <types>',
      'comma-separated: interaction.requested,work.settled,seed.finished,session.failed,…',
    )
    .requiredOption(
      '--secret-env <name>',
      'the environment variable (of every node) holding the signing secret',
    )
    .option('--session <id>', "only this session's events (default: every session of the organization)")
    .option('--org <organization>', 'organization (default: default)')
    .option('--id <id>', 'the webhook id (default: a new UUID)')
    .action(async (flags: AddFlags) => {
      await withRuntime(flags, context, async (runtime) => {
        const added = await runtime.webhooks.add({
          url: flags.url,
          events: flags.events
            .split(',')
            .map((type) => type.trim())
            .filter(Boolean),
          secretEnv: flags.secretEnv,
          ...(flags.session ? { sessionId: flags.session } : {}),
          ...(flags.org ? { organization: flags.org } : {}),
          ...(flags.id ? { id: flags.id } : {}),
          ...actorOf(flags),
        });
        if (flags.json) return printJson(context, { webhook: added });
        printLine(context, `added ${webhookLine(added)}`);
      });
    });

  addRuntimeOptions(webhook.command('list').description('webhooks'))
    .option('--org <organization>', 'only this organization')
    .action(async (flags: DataDirFlags & { org?: string }) => {
      await withRuntime(flags, context, async (runtime) => {
        const webhooks = await runtime.webhooks.list(flags.org ? { organization: flags.org } : {});
        if (flags.json) return printJson(context, { webhooks });
        if (webhooks.length === 0) printLine(context, 'no webhooks');
        for (const each of webhooks) printLine(context, webhookLine(each));
      });
    });

  addRuntimeOptions(webhook.command('show').description('a webhook').argument('<id>', 'webhook id')).action(
    async (id: string, flags: DataDirFlags) => {
      await withRuntime(flags, context, async (runtime) => {
        const found = await runtime.webhooks.get(id);
        if (flags.json) return printJson(context, { webhook: found });
        printLine(context, webhookLine(found));
      });
    },
  );

  addRuntimeOptions(
    webhook
      .command('deliveries')
      .description('its deliveries, newest first, with every attempt')
      .argument('<id>', 'webhook id'),
  ).action(async (id: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const deliveries = await runtime.webhooks.deliveries(id);
      if (flags.json) return printJson(context, { deliveries });
      if (deliveries.length === 0) printLine(context, 'no deliveries');
      for (const details of deliveries) for (const line of deliveryLines(details)) printLine(context, line);
    });
  });

  addRuntimeOptions(
    webhook.command('enable').description('send again').argument('<id>', 'webhook id'),
  ).action(async (id: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const changed = await runtime.webhooks.enable(id, actorOf(flags));
      if (flags.json) return printJson(context, { webhook: changed });
      printLine(context, webhookLine(changed));
    });
  });

  addRuntimeOptions(webhook.command('disable').description('stop sending').argument('<id>', 'webhook id'))
    .option('--reason <text>', 'why')
    .action(async (id: string, flags: DataDirFlags & { reason?: string }) => {
      await withRuntime(flags, context, async (runtime) => {
        const changed = await runtime.webhooks.disable(id, {
          ...actorOf(flags),
          ...(flags.reason ? { reason: flags.reason } : {}),
        });
        if (flags.json) return printJson(context, { webhook: changed });
        printLine(context, webhookLine(changed));
      });
    });

  addRuntimeOptions(
    webhook
      .command('remove')
      .description('remove a webhook with its deliveries')
      .argument('<id>', 'webhook id'),
  ).action(async (id: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      await runtime.webhooks.remove(id, actorOf(flags));
      if (flags.json) return printJson(context, { removed: id });
      printLine(context, `removed webhook ${id}`);
    });
  });
}
