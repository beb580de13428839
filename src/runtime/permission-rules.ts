import { randomUUID } from 'node:crypto';
import { InvalidInputError, NotFoundError } from '../errors/index.js';
import { ruleTargetsOf } from '../permissions/deciding-rule.js';
import {
  formatPermissionRule,
  parsePermissionRule,
  ruleForUse,
  ruleMatches,
} from '../permissions/permission-rule.js';
import {
  type PermissionRuleRecord,
  type RuleDecision,
  type RuleScope,
  ruleScopes,
} from '../store/rule-storage.js';
import type { InteractionRecord, SessionRecord } from '../store/store.js';
import { type Access, resources } from './access.js';
import { type ActorOptions, ownerPrincipal, type RuntimeContext } from './runtime-context.js';

export interface AddRuleOptions extends ActorOptions {
  /** `Bash(npm test:*)`, `Edit(src/**)`, `WebFetch`… (Claude Code's syntax). */
  rule: string;
  decision: RuleDecision;
  scope: RuleScope;
  /** The session's id, `<organization>/<role>`, or the organization. */
  target: string;
  /** The interaction whose answer makes the rule. */
  interactionId?: string;
  /** Makes the add idempotent. @default a new UUID */
  id?: string;
}

export interface ListRulesOptions {
  /** Only the rules that hold in this session (its own, its role's, its organization's). */
  sessionId?: string;
  /** @default false */
  includeRevoked?: boolean;
}

/**
 * Permission rules: scoped decisions on tool uses, made by answering an approval with a scope or
 * added directly. A worker consults them before it asks anyone; every decision a rule makes is
 * journaled (`interaction.auto_decided`). Making or revoking one takes `role.trigger` on the role
 * (`role:<org>/*` for an organization's, `admin` for a session without a role).
 */
export class PermissionRules {
  constructor(
    private readonly context: RuntimeContext,
    private readonly access: Access,
  ) {}

  async list(options: ListRulesOptions = {}): Promise<PermissionRuleRecord[]> {
    const { store } = this.context;
    const includeRevoked = options.includeRevoked ?? false;
    if (options.sessionId === undefined) return store.listPermissionRules({ includeRevoked });
    const session = await store.getSession(options.sessionId);
    if (!session) throw new NotFoundError(`session ${options.sessionId} not found`);
    return store.listPermissionRules({ targets: ruleTargetsOf(session), includeRevoked });
  }

  async get(id: string): Promise<PermissionRuleRecord> {
    const rule = await this.context.store.getPermissionRule(id);
    if (!rule) throw new NotFoundError(`permission rule ${id} not found`);
    return rule;
  }

  async add(options: AddRuleOptions): Promise<PermissionRuleRecord> {
    if (!(ruleScopes as readonly string[]).includes(options.scope))
      throw new InvalidInputError(`scope must be one of ${ruleScopes.join(', ')}`, { scope: options.scope });
    if (options.decision !== 'approve' && options.decision !== 'deny')
      throw new InvalidInputError('decision must be approve or deny');
    const rule = formatPermissionRule(parsePermissionRule(options.rule));
    await this.requireMaker(options.actor ?? ownerPrincipal, options.scope, options.target);
    return this.context.store.addPermissionRule({
      id: options.id ?? randomUUID(),
      scope: options.scope,
      target: options.target,
      rule,
      decision: options.decision,
      interactionId: options.interactionId ?? null,
      createdBy: options.actor ?? null,
      createdAt: Date.now(),
    });
  }

  /** Revokes a rule: it decides nothing from now on, in live workers too. */
  async revoke(id: string, options: ActorOptions = {}): Promise<PermissionRuleRecord> {
    const existing = await this.get(id);
    await this.requireMaker(options.actor ?? ownerPrincipal, existing.scope, existing.target);
    return (await this.context.store.revokePermissionRule(id, Date.now())) ?? existing;
  }

  /**
   * The rule a scoped answer makes, checked before the answer is stored: it must cover the tool
   * use it answers, and its scope must exist for the session. Null for `once`.
   */
  async planFromAnswer(
    interaction: InteractionRecord,
    answer: Record<string, unknown>,
    actor: string,
  ): Promise<AddRuleOptions | null> {
    const scope = answer.scope as 'once' | 'session' | 'rule' | undefined;
    if (scope === undefined || scope === 'once') {
      if (answer.rule !== undefined || answer.ruleFor !== undefined)
        throw new InvalidInputError('rule and ruleFor go with scope session or rule');
      return null;
    }
    const input = (interaction.request.input ?? {}) as Record<string, unknown>;
    const parsed =
      typeof answer.rule === 'string'
        ? parsePermissionRule(answer.rule)
        : ruleForUse(interaction.toolName, input);
    const rule = formatPermissionRule(parsed);
    if (!ruleMatches(parsed, interaction.toolName, input))
      throw new InvalidInputError(
        `rule ${rule} does not cover the tool use it answers (${interaction.toolName})`,
        {
          rule,
          toolName: interaction.toolName,
        },
      );
    const session = await this.context.store.getSession(interaction.sessionId);
    if (!session) throw new NotFoundError(`session ${interaction.sessionId} not found`);
    const { ruleScope, target } = targetOf(
      session,
      scope,
      answer.ruleFor as 'role' | 'organization' | undefined,
    );
    await this.requireMaker(actor, ruleScope, target);
    return {
      id: `interaction:${interaction.id}`,
      rule,
      decision: answer.decision === 'deny' ? 'deny' : 'approve',
      scope: ruleScope,
      target,
      interactionId: interaction.id,
      ...(actor !== ownerPrincipal ? { actor } : {}),
    };
  }

  private async requireMaker(actor: string, scope: RuleScope, target: string): Promise<void> {
    if (scope === 'role') return this.access.require(actor, 'role.trigger', `role:${target}`);
    if (scope === 'organization') return this.access.require(actor, 'role.trigger', `role:${target}/*`);
    const session = await this.context.store.getSession(target);
    if (!session) throw new NotFoundError(`session ${target} not found`);
    if (session.organization && session.role)
      return this.access.require(actor, 'role.trigger', resources.role(session.organization, session.role));
    return this.access.require(actor, 'admin', resources.all);
  }
}

function targetOf(
  session: SessionRecord,
  scope: 'session' | 'rule',
  ruleFor: 'role' | 'organization' | undefined,
): { ruleScope: RuleScope; target: string } {
  if (scope === 'session') {
    if (ruleFor !== undefined) throw new InvalidInputError('ruleFor goes with scope rule');
    return { ruleScope: 'session', target: session.id };
  }
  if (session.organization === null || (ruleFor !== 'organization' && session.role === null))
    throw new InvalidInputError(`session ${session.id} has no role: answer with scope session instead`);
  return ruleFor === 'organization'
    ? { ruleScope: 'organization', target: session.organization }
    : { ruleScope: 'role', target: `${session.organization}/${session.role}` };
}
