/* A seed's defaults, apart from its schema: the worker reads them without loading zod. */

export const defaultMaxIterations = 3;
export const defaultCheckTimeoutSeconds = 120;
export const defaultSeedTools = ['Read', 'Write', 'Edit', 'Glob', 'Grep', 'Bash'];
