import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
/** agentd's version, from its package.json. */
export const version: string = (require('../package.json') as { version: string }).version;
