import type { Command } from 'commander';
import type { SkillSummary } from '../../skills/skill-store.js';
import type { CliContext } from '../context.js';
import {
  actorOf,
  addRuntimeOptions,
  type DataDirFlags,
  printJson,
  printLine,
  withRuntime,
} from '../runtime-context.js';

function printSkill(context: CliContext, skill: SkillSummary): void {
  printLine(context, `skill        ${skill.name}`);
  printLine(context, `digest       ${skill.digest}`);
  printLine(context, `description  ${skill.description}`);
  printLine(context, `bytes        ${skill.bytes}`);
  printLine(context, 'files');
  for (const file of skill.files)
    printLine(context, `  ${file.path} ${file.bytes}${file.executable ? ' (executable)' : ''}`);
}

export function registerSkillCommands(program: Command, context: CliContext): void {
  const skills = program
    .command('skills')
    .description('content-addressed skills, selected by roles by digest');

  addRuntimeOptions(
    skills
      .command('add')
      .description('store a skill (a folder, .zip or .tar.gz holding SKILL.md); prints its digest')
      .argument('<path>', 'folder or archive'),
  ).action(async (path: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const skill = await runtime.skills.add(path, actorOf(flags));
      if (flags.json) return printJson(context, skill);
      printLine(context, skill.digest);
    });
  });

  addRuntimeOptions(skills.command('list').description('stored skills')).action(
    async (flags: DataDirFlags) => {
      await withRuntime(flags, context, async (runtime) => {
        const list = await runtime.skills.list();
        if (flags.json) return printJson(context, list);
        if (list.length === 0) printLine(context, 'no skills');
        for (const skill of list)
          printLine(
            context,
            skill.state === 'ok'
              ? `${skill.digest} ${skill.name} ${skill.files.length} files ${skill.bytes} bytes`
              : `${skill.digest} CORRUPT ${skill.reason}`,
          );
      });
    },
  );

  addRuntimeOptions(
    skills
      .command('show')
      .description('a skill, verified against its digest')
      .argument('<digest>', 'sha256:…'),
  ).action(async (digest: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const skill = await runtime.skills.show(digest);
      if (flags.json) return printJson(context, skill);
      printSkill(context, skill);
    });
  });

  addRuntimeOptions(
    skills
      .command('remove')
      .description("remove a skill (refused while a role's current version selects it)")
      .argument('<digest>', 'sha256:…'),
  ).action(async (digest: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      await runtime.skills.remove(digest, actorOf(flags));
      if (flags.json) return printJson(context, { removed: digest });
      printLine(context, `removed skill ${digest}`);
    });
  });
}
