import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { InvalidInputError, NotFoundError } from '../errors/index.js';
import {
  type GrantAction,
  type GrantRecord,
  grantActions,
  type PrincipalRecord,
} from '../store/org-storage.js';
import type { Access } from './access.js';
import { type ActorOptions, ownerPrincipal, type RuntimeContext } from './runtime-context.js';

const principalPattern = /^[A-Za-z0-9][A-Za-z0-9._@:-]{0,127}$/;
const resourcePattern = /^(\*|(project|role):[A-Za-z0-9._-]+\/(\*|[A-Za-z0-9._-]+))$/;

/** SHA-256 (hex) of a bearer token: what the store keeps instead of the token. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export interface AddGrantOptions extends ActorOptions {
  principal: string;
  action: GrantAction;
  /** `project:<org>/<project>`, `role:<org>/<role>` (either may end in `/*`), or `*`. */
  resource: string;
}

/** Principals (who), their bearer tokens, and grants (what they may do). Changing them takes `admin`. */
export class Grants {
  constructor(
    private readonly context: RuntimeContext,
    private readonly access: Access,
  ) {}

  async add(options: AddGrantOptions): Promise<GrantRecord> {
    await this.access.require(options.actor ?? ownerPrincipal, 'admin', '*');
    if (!principalPattern.test(options.principal) || options.principal === ownerPrincipal)
      throw new InvalidInputError(
        `principal must be a name (letters, digits, . _ @ : -), not ${ownerPrincipal}`,
        {
          principal: options.principal,
        },
      );
    if (!(grantActions as readonly string[]).includes(options.action))
      throw new InvalidInputError(`action must be one of ${grantActions.join(', ')}`, {
        action: options.action,
      });
    if (!resourcePattern.test(options.resource))
      throw new InvalidInputError('resource must be project:<org>/<project>, role:<org>/<role> or *', {
        resource: options.resource,
      });
    return this.context.store.addGrant({
      id: randomUUID(),
      principal: options.principal,
      action: options.action,
      resource: options.resource,
      now: Date.now(),
    });
  }

  async list(options: { principal?: string } = {}): Promise<GrantRecord[]> {
    return this.context.store.listGrants(options);
  }

  async remove(id: string, options: ActorOptions = {}): Promise<void> {
    await this.access.require(options.actor ?? ownerPrincipal, 'admin', '*');
    if (!(await this.context.store.removeGrant(id))) throw new NotFoundError(`grant ${id} not found`);
  }

  /**
   * Gives a principal a new bearer token (replacing its old one) and returns it: the only time it
   * is shown; the store keeps its digest.
   */
  async issueToken(
    principal: string,
    options: ActorOptions = {},
  ): Promise<{ principal: PrincipalRecord; token: string }> {
    await this.access.require(options.actor ?? ownerPrincipal, 'admin', '*');
    if (!principalPattern.test(principal) || principal === ownerPrincipal)
      throw new InvalidInputError(
        `principal must be a name (letters, digits, . _ @ : -), not ${ownerPrincipal}`,
        {
          principal,
        },
      );
    const token = `agentd_${randomBytes(24).toString('base64url')}`;
    const record = await this.context.store.putPrincipal({
      id: principal,
      tokenDigest: tokenDigest(token),
      now: Date.now(),
    });
    return { principal: record, token };
  }

  /** The principal a bearer token belongs to, or null. */
  async principalOfToken(token: string): Promise<string | null> {
    return (await this.context.store.getPrincipalByToken(tokenDigest(token)))?.id ?? null;
  }

  /** Whether any principal holds a bearer token (an open server ignores tokens until one does). */
  async tokensIssued(): Promise<boolean> {
    return (await this.context.store.listPrincipals()).some((principal) => principal.tokenDigest !== null);
  }
}
