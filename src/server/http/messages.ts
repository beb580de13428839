import type { Hono } from 'hono';
import type { MessageResult } from '../../runtime/messages.js';
import { principalOf } from './auth.js';
import type { RouteContext } from './context.js';
import { sendMessageBodySchema } from './schemas.js';
import { traceContextOf } from './trace-context.js';
import { readJson } from './validate.js';

/** 202 when the message left an input for a worker to deliver (text, `/compact`); 200 when a command ran. */
export function messageStatus(result: MessageResult): 200 | 202 {
  return 'input' in result ? 202 : 200;
}

export function registerMessageRoutes(app: Hono, context: RouteContext): void {
  const { runtime } = context;

  /**
   * Text is journaled (202, `{ kind: 'input', input }`; a worker delivers it; the same id and text
   * returns the same input). A command runs under the closed protocol and answers with its result;
   * an unknown one is a 400 `unknown_command` and changes nothing.
   */
  app.post('/v1/sessions/:id/messages', async (c) => {
    const body = await readJson(c, sendMessageBodySchema);
    const result = await runtime.message(c.req.param('id'), {
      ...body,
      ...traceContextOf(c),
      actor: principalOf(c),
    });
    return c.json(result, messageStatus(result));
  });

  app.get('/v1/sessions/:id/inputs', async (c) =>
    c.json({ inputs: await runtime.listInputs(c.req.param('id')) }),
  );
}
