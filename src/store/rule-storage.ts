/** Persisted permission rules: scoped answers to approvals (approval scopes). */

export const ruleScopes = ['session', 'role', 'organization'] as const;
/** Where a rule holds: one session, every session of a role, or every session of an organization. */
export type RuleScope = (typeof ruleScopes)[number];
export const ruleDecisions = ['approve', 'deny'] as const;
export type RuleDecision = (typeof ruleDecisions)[number];

export interface PermissionRuleRecord {
  id: string;
  scope: RuleScope;
  /** The session's id, `<organization>/<role>`, or the organization's name. */
  target: string;
  /** A permission rule in Claude Code's syntax: `Bash(npm test:*)`, `Edit(src/**)`, `WebFetch`. */
  rule: string;
  decision: RuleDecision;
  /** The interaction whose answer made the rule, if an answer made it. */
  interactionId: string | null;
  /** Who made it, when the edge knew. */
  createdBy: string | null;
  createdAt: number;
  /** Set once the rule was revoked: it decides nothing from then on. */
  revokedAt: number | null;
}

export interface PermissionRuleStorage {
  /** Idempotent on `id`: a second add with the same id returns the first rule. */
  addPermissionRule(rule: Omit<PermissionRuleRecord, 'revokedAt'>): Promise<PermissionRuleRecord>;
  getPermissionRule(id: string): Promise<PermissionRuleRecord | null>;
  /**
   * Rules in creation order; with `targets`, only those of one of the (scope, target) pairs; revoked
   * ones only with `includeRevoked`.
   */
  listPermissionRules(options?: {
    targets?: Array<{ scope: RuleScope; target: string }>;
    includeRevoked?: boolean;
  }): Promise<PermissionRuleRecord[]>;
  /** Revokes a rule (a second revoke keeps the first time); null when there is no such rule. */
  revokePermissionRule(id: string, now: number): Promise<PermissionRuleRecord | null>;
}
