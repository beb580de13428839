/** A tool's input as a person reviews it: the command for Bash, a diff for edits, else the JSON. */

const text = (value: unknown) => (typeof value === 'string' ? value : '');

function DiffLines({ before, after }: { before: string; after: string }) {
  return (
    <pre class="diff">
      {before !== '' &&
        before
          .split('\n')
          .map((line, index) => <span key={`-${index}`} class="diff-del">{`- ${line}\n`}</span>)}
      {after.split('\n').map((line, index) => (
        <span key={`+${index}`} class="diff-add">{`+ ${line}\n`}</span>
      ))}
    </pre>
  );
}

export function ToolInput({ toolName, input }: { toolName: string; input: Record<string, unknown> }) {
  if (toolName === 'Bash')
    return (
      <div class="tool-input">
        <pre class="command">
          <span class="prompt">$ </span>
          {text(input.command)}
        </pre>
        {text(input.description) && <p class="muted">{text(input.description)}</p>}
      </div>
    );
  if (toolName === 'Edit' || toolName === 'MultiEdit') {
    const edits = Array.isArray(input.edits)
      ? (input.edits as Array<Record<string, unknown>>)
      : [{ old_string: input.old_string, new_string: input.new_string }];
    return (
      <div class="tool-input">
        <p class="file">{text(input.file_path)}</p>
        {edits.map((edit, index) => (
          <DiffLines key={index} before={text(edit.old_string)} after={text(edit.new_string)} />
        ))}
      </div>
    );
  }
  if (toolName === 'Write')
    return (
      <div class="tool-input">
        <p class="file">{text(input.file_path)}</p>
        <DiffLines before="" after={text(input.content)} />
      </div>
    );
  return <pre class="json">{JSON.stringify(input, null, 2)}</pre>;
}
