export { digestOf, isSkillDigest, parseSkill, serializeSkill } from './canonical.js';
export { FileSkillStore, type FileSkillStoreOptions } from './file-skill-store.js';
export { readSkillSource, type SkillSource } from './read-skill-source.js';
export { defaultSkillLimits, type SkillFile, type SkillLimits } from './skill-collector.js';
export { parseSkillManifest, type SkillManifest } from './skill-manifest.js';
export {
  materializeSkillPlugin,
  type SkillPlugin,
  type SkillPluginOptions,
  skillPluginName,
} from './skill-plugin.js';
export type {
  Skill,
  SkillAddResult,
  SkillFileInfo,
  SkillListEntry,
  SkillStore,
  SkillSummary,
} from './skill-store.js';
