import { NotFoundError, StateError } from '../errors/index.js';
import type { SkillSource } from '../skills/read-skill-source.js';
import type { SkillAddResult, SkillListEntry, SkillSummary } from '../skills/skill-store.js';
import type { Access } from './access.js';
import { type ActorOptions, ownerPrincipal, type RuntimeContext } from './runtime-context.js';

/** The content-addressed skills roles select by digest. Adding and removing take `admin`. */
export class RuntimeSkills {
  constructor(
    private readonly context: RuntimeContext,
    private readonly access: Access,
  ) {}

  /** Stores a folder or archive (path or bytes) under the SHA-256 of its canonical content; idempotent. */
  async add(source: SkillSource, options: ActorOptions = {}): Promise<SkillAddResult> {
    await this.access.require(options.actor ?? ownerPrincipal, 'admin', '*');
    return this.context.skills.add(source);
  }

  async list(): Promise<SkillListEntry[]> {
    return this.context.skills.list();
  }

  /** The verified skill's summary: `skill_corrupt` when its bytes no longer match its digest. */
  async show(digest: string): Promise<SkillSummary> {
    const { files, ...skill } = await this.context.skills.get(digest);
    return {
      ...skill,
      files: files.map((file) => ({
        path: file.path,
        bytes: file.content.length,
        executable: file.executable,
      })),
    };
  }

  /** Refused while a role's current version selects it. */
  async remove(digest: string, options: ActorOptions = {}): Promise<void> {
    await this.access.require(options.actor ?? ownerPrincipal, 'admin', '*');
    for (const organization of await this.context.store.listOrganizations()) {
      const users = (await this.context.store.listRoles(organization.id)).filter((role) =>
        role.skills.includes(digest),
      );
      if (users.length > 0)
        throw new StateError(`skill ${digest} is selected by role ${organization.id}/${users[0]!.name}`, {
          digest,
          roles: users.map((role) => `${organization.id}/${role.name}`),
        });
    }
    if (!(await this.context.skills.remove(digest))) throw new NotFoundError(`skill ${digest} not found`);
  }
}
