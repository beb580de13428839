import type { SkillSource } from './read-skill-source.js';
import type { SkillFile } from './skill-collector.js';

/** One file of a stored skill, without its bytes. */
export interface SkillFileInfo {
  path: string;
  bytes: number;
  executable: boolean;
}

/** What a stored skill is, read from its verified blob. */
export interface SkillSummary {
  /** `sha256:<64 hex>` of the canonical content. */
  digest: string;
  /** From `SKILL.md`'s frontmatter; the directory name the skill gets when materialized. */
  name: string;
  description: string;
  /** In canonical order (byte order of the UTF-8 path). */
  files: SkillFileInfo[];
  /** Total bytes of file content. */
  bytes: number;
}

export interface SkillAddResult extends SkillSummary {
  /** False when the same content was already stored: adding is idempotent. */
  created: boolean;
}

/** A stored skill with its files' bytes, verified against its digest. */
export interface Skill {
  digest: string;
  name: string;
  description: string;
  files: SkillFile[];
  bytes: number;
}

/** `list()` reports a damaged blob instead of failing or hiding it, so it can be seen and removed. */
export type SkillListEntry =
  | ({ state: 'ok' } & SkillSummary)
  | { state: 'corrupt'; digest: string; reason: string };

/**
 * Content-addressed skill storage. A skill is named only by the SHA-256 of its canonical content
 * (docs/decisions/0050-content-addressed-skills.md); every read verifies it.
 */
export interface SkillStore {
  /**
   * Reads a folder, a `.zip` or a `.tar`/`.tar.gz`/`.tgz` (a path, or archive bytes), refuses it
   * if unsafe or over the limits (nothing is stored then), and stores it under its digest.
   */
  add(source: SkillSource): Promise<SkillAddResult>;
  /** The verified skill; `skill_corrupt` if its bytes no longer match, `not_found` if absent. */
  get(digest: string): Promise<Skill>;
  /** Every stored skill by name, corrupt ones included as such. */
  list(): Promise<SkillListEntry[]>;
  /** Deletes the blob; false if there was none. Whether a role still uses it is the caller's check. */
  remove(digest: string): Promise<boolean>;
  /**
   * Writes the verified files into `targetDir`, which must not exist or be empty. The files appear
   * there all at once (written beside it, then renamed), never half.
   */
  materialize(digest: string, targetDir: string): Promise<SkillSummary>;
}
