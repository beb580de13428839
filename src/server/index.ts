export type { AppOptions } from './app.js';
export { createApp } from './app.js';
export { openApiDocument } from './http/openapi.js';
export type { ModelMode } from './http/schemas.js';
export type { RunningServer, StartServerOptions } from './serve.js';
export { startServer } from './serve.js';
export type { ServerConfig } from './server-config.js';
export { loadServerConfig, parseServerConfig } from './server-config.js';
export { ServerMetrics } from './server-metrics.js';
