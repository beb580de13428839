import type { PermissionRuleStorage } from '../rule-storage.js';
import { toPermissionRuleRecord } from '../sqlite/org-rows.js';
import type { PostgresConnection, PostgresExecutor } from './postgres-connection.js';

/** Permission rules on PostgreSQL. */
export function postgresPermissionRules(connection: PostgresConnection): PermissionRuleStorage {
  const find = async (executor: PostgresExecutor, id: string) => {
    const row = await executor.row('SELECT * FROM permission_rules WHERE id = $1', [id]);
    return row === undefined ? null : toPermissionRuleRecord(row);
  };
  return {
    async addPermissionRule(rule) {
      return connection.write(async (executor) => {
        await executor.run(
          `INSERT INTO permission_rules (id, scope, target, rule, decision, interaction_id, created_by, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING`,
          [
            rule.id,
            rule.scope,
            rule.target,
            rule.rule,
            rule.decision,
            rule.interactionId,
            rule.createdBy,
            rule.createdAt,
          ],
        );
        return (await find(executor, rule.id))!;
      });
    },

    async getPermissionRule(id) {
      return connection.read(async (executor) => find(executor, id));
    },

    async listPermissionRules(options = {}) {
      return connection.read(async (executor) => {
        const clauses: string[] = [];
        const values: unknown[] = [];
        if (options.targets) {
          if (options.targets.length === 0) return [];
          const pairs = options.targets.map((each) => {
            values.push(each.scope, each.target);
            return `(scope = $${values.length - 1} AND target = $${values.length})`;
          });
          clauses.push(`(${pairs.join(' OR ')})`);
        }
        if (!options.includeRevoked) clauses.push('revoked_at IS NULL');
        const where = clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '';
        const rows = await executor.rows(`SELECT * FROM permission_rules ${where} ORDER BY seq`, values);
        return rows.map(toPermissionRuleRecord);
      });
    },

    async revokePermissionRule(id, now) {
      return connection.write(async (executor) => {
        await executor.run(
          'UPDATE permission_rules SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL',
          [now, id],
        );
        return find(executor, id);
      });
    },
  };
}
