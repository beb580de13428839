import { StoreError } from '../../errors/agentd-error.js';
import type { PermissionRuleStorage } from '../rule-storage.js';
import { toPermissionRuleRecord } from './org-rows.js';
import type { SqliteConnection } from './sqlite-connection.js';

/** Permission rules on SQLite. */
export function sqlitePermissionRules(connection: SqliteConnection): PermissionRuleStorage {
  const find = (id: string) => {
    const row = connection.statement('SELECT * FROM permission_rules WHERE id = ?').get(id);
    return row === undefined ? null : toPermissionRuleRecord(row);
  };
  return {
    async addPermissionRule(rule) {
      return connection.write(() => {
        connection
          .statement(
            `INSERT INTO permission_rules (id, scope, target, rule, decision, interaction_id, created_by, created_at)
             VALUES (@id, @scope, @target, @rule, @decision, @interactionId, @createdBy, @createdAt)
             ON CONFLICT (id) DO NOTHING`,
          )
          .run(rule);
        const stored = find(rule.id);
        if (!stored)
          throw new StoreError({
            message: `permission rule ${rule.id} is missing right after it was written`,
          });
        return stored;
      });
    },

    async getPermissionRule(id) {
      return connection.read(() => find(id));
    },

    async listPermissionRules(options = {}) {
      return connection.read(() => {
        const clauses: string[] = [];
        const values: unknown[] = [];
        if (options.targets) {
          if (options.targets.length === 0) return [];
          clauses.push(`(${options.targets.map(() => '(scope = ? AND target = ?)').join(' OR ')})`);
          for (const each of options.targets) values.push(each.scope, each.target);
        }
        if (!options.includeRevoked) clauses.push('revoked_at IS NULL');
        const where = clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '';
        return connection
          .statement(`SELECT * FROM permission_rules ${where} ORDER BY seq`)
          .all(...values)
          .map(toPermissionRuleRecord);
      });
    },

    async revokePermissionRule(id, now) {
      return connection.write(() => {
        connection
          .statement('UPDATE permission_rules SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL')
          .run(now, id);
        return find(id);
      });
    },
  };
}
