import { ForbiddenError } from '../errors/index.js';
import type { GrantAction, GrantStorage } from '../store/org-storage.js';
import { ownerPrincipal } from './runtime-context.js';

/** The resource names grants speak of. */
export const resources = {
  project: (organization: string, project: string) => `project:${organization}/${project}`,
  role: (organization: string, role: string) => `role:${organization}/${role}`,
  all: '*',
} as const;

/** Does a granted resource cover the asked one: the same, `*`, or `kind:org/*` for all in the organization. */
function covers(granted: string, asked: string): boolean {
  if (granted === '*' || granted === asked) return true;
  if (!granted.endsWith('/*')) return false;
  return asked.startsWith(granted.slice(0, -1));
}

/**
 * The one permission check, in the runtime: every edge (CLI, HTTP, A2A, chat bridges) passes its
 * principal, and the same rule holds whichever way a request came in.
 */
export class Access {
  constructor(private readonly store: GrantStorage) {}

  /** Whether `actor` may do `action` on `resource`: the owner always may; anyone else needs a grant (or `admin`). */
  async allows(actor: string, action: GrantAction, resource: string): Promise<boolean> {
    if (actor === ownerPrincipal) return true;
    const grants = await this.store.listGrants({ principal: actor });
    return grants.some(
      (grant) => (grant.action === action || grant.action === 'admin') && covers(grant.resource, resource),
    );
  }

  /** Throws `forbidden` naming what is missing; nothing has changed when it does. */
  async require(actor: string, action: GrantAction, resource: string): Promise<void> {
    if (await this.allows(actor, action, resource)) return;
    throw new ForbiddenError(
      `${actor} may not ${action} on ${resource}: it needs a grant of ${action} there`,
      {
        principal: actor,
        action,
        resource,
      },
    );
  }
}
