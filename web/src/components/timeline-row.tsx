import { formatCost, formatTime } from '../format.js';
import type { TimelineItem } from '../timeline/timeline-model.js';
import { Markdown } from './markdown.js';

const deliveryLabel = {
  accepted: 'accepted',
  dispatching: 'sending',
  delivered: 'delivered',
  uncertain: 'uncertain: the worker died before claude confirmed it; send again to be sure',
} as const;

/** One timeline row. Agent text is Markdown, sanitized; everything else is plain text. */
export function TimelineRow({ item }: { item: TimelineItem }) {
  const time = <time class="time">{formatTime(item.at)}</time>;
  switch (item.kind) {
    case 'input':
      return (
        <div class="row row-input">
          {time}
          <div class="bubble">
            <p class="plain">{item.text}</p>
            <span class={`delivery delivery-${item.state}`}>{deliveryLabel[item.state]}</span>
          </div>
        </div>
      );
    case 'assistant':
      return (
        <div class={`row row-assistant${item.streaming ? ' streaming' : ''}`}>
          {time}
          <Markdown source={item.text} />
        </div>
      );
    case 'thinking':
      return (
        <details class="row row-thinking">
          <summary>Thinking</summary>
          <p class="plain">{item.text}</p>
        </details>
      );
    case 'tool':
      return (
        <details class={`row row-tool${item.result?.isError ? ' tool-error' : ''}`}>
          <summary>
            <span class="tool-detail">{item.detail}</span>
            <span class="tool-status">
              {item.result ? (item.result.isError ? 'error' : 'done') : 'running'}
            </span>
          </summary>
          <pre class="json">{JSON.stringify(item.input, null, 2)}</pre>
          {item.result && <pre class="tool-result">{item.result.content}</pre>}
        </details>
      );
    case 'error':
      return (
        <div class="row row-error" role="alert">
          {time}
          <code>{item.code}</code> <span>{item.message}</span>
        </div>
      );
    case 'turn':
      return (
        <div class={`row row-turn${item.isError ? ' turn-error' : ''}`}>
          turn {item.subtype} · {item.inputTokens} in / {item.outputTokens} out tokens ·{' '}
          <span class="cost">{formatCost(item.costUsd)}</span> · {(item.durationMs / 1000).toFixed(1)}s
        </div>
      );
    case 'interaction':
      return (
        <div class="row row-interaction">
          {time} waiting for an answer: <strong>{item.toolName}</strong> <code>{item.detail}</code>
        </div>
      );
    case 'answer':
      return (
        <div class="row row-answer">
          {time} {item.summary}
          {item.answeredBy ? ` (by ${item.answeredBy})` : ''}
        </div>
      );
    case 'status':
      return (
        <div class={`row row-status tone-${item.tone}`}>
          {time} {item.text}
        </div>
      );
  }
}
