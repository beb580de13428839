import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { useMemo } from 'preact/hooks';

const marked = new Marked({ gfm: true, breaks: true, async: false });

// Links from an agent open in a new tab and get no access to this page.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer nofollow');
  }
});

/**
 * Agent text as Markdown, sanitized: marked turns it into HTML (raw HTML in the text included) and
 * DOMPurify keeps only inert markup (no scripts, event handlers, `javascript:` URLs, forms, frames
 * or styles) before anything reaches the DOM.
 */
export function renderMarkdown(source: string): string {
  const html = marked.parse(source) as string;
  return DOMPurify.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed'],
    FORBID_ATTR: ['style'],
  });
}

export function Markdown({ source }: { source: string }) {
  const html = useMemo(() => renderMarkdown(source), [source]);
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}
