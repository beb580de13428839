/**
 * Splits a command line the way a POSIX shell splits words: single quotes, double quotes
 * (with `\"`, `\\`, `\$`, `` \` `` escapes) and backslashes outside quotes. Null when it is not one
 * a shell would accept as plain words (an unclosed quote).
 */
export function splitShellWords(line: string): string[] | null {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let index = 0; index < line.length; index++) {
    const char = line[index]!;
    if (char === "'") {
      const end = line.indexOf("'", index + 1);
      if (end < 0) return null;
      word += line.slice(index + 1, end);
      inWord = true;
      index = end;
    } else if (char === '"') {
      inWord = true;
      let closed = false;
      for (index++; index < line.length; index++) {
        const inner = line[index]!;
        if (inner === '"') {
          closed = true;
          break;
        }
        if (inner === '\\' && '"\\$`'.includes(line[index + 1] ?? '')) {
          word += line[++index];
        } else word += inner;
      }
      if (!closed) return null;
    } else if (char === '\\') {
      if (index + 1 >= line.length) return null;
      word += line[++index];
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

const shells = new Set(['sh', 'bash', 'zsh', 'dash']);

/**
 * What the agent asked to run: codex reports a command as the shell line it runs
 * (`/bin/bash -lc 'npm test'`); this is the script inside (`npm test`), or the line itself when
 * it is no such wrapper. Permission rules (`shell(npm test:*)`) match this.
 */
export function innerCommand(commandLine: string): string {
  const words = splitShellWords(commandLine);
  if (words?.length !== 3) return commandLine;
  const [shell, flag, script] = words as [string, string, string];
  const name = shell.split('/').at(-1) ?? shell;
  return shells.has(name) && (flag === '-c' || flag === '-lc') ? script : commandLine;
}
