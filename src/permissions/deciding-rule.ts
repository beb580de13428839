import type { PermissionRuleRecord, RuleScope } from '../store/rule-storage.js';
import type { SessionRecord } from '../store/store.js';
import { parsePermissionRule, ruleMatches } from './permission-rule.js';

/** The (scope, target) pairs whose rules hold in a session: its own, its role's, its organization's. */
export function ruleTargetsOf(
  session: Pick<SessionRecord, 'id' | 'organization' | 'role'>,
): Array<{ scope: RuleScope; target: string }> {
  const targets: Array<{ scope: RuleScope; target: string }> = [{ scope: 'session', target: session.id }];
  if (session.organization !== null) {
    if (session.role !== null)
      targets.push({ scope: 'role', target: `${session.organization}/${session.role}` });
    targets.push({ scope: 'organization', target: session.organization });
  }
  return targets;
}

/**
 * The rule that decides a tool use, if any: a deny rule wins over an approve rule, and the oldest
 * rule of a kind is the one reported. A rule that no longer parses decides nothing.
 */
export function decidingRule(
  rules: PermissionRuleRecord[],
  toolName: string,
  input: Record<string, unknown>,
): PermissionRuleRecord | null {
  const matching = rules.filter((record) => {
    if (record.revokedAt !== null) return false;
    try {
      return ruleMatches(parsePermissionRule(record.rule), toolName, input);
    } catch {
      return false;
    }
  });
  return matching.find((record) => record.decision === 'deny') ?? matching[0] ?? null;
}
