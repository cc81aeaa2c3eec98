/**
 * The environment under which a Pulumi program of this repository, and its dynamic-provider processes,
 * load the product's TypeScript sources: through tsx, as the README's example runs. Pulumi's Node.js
 * language host also registers ts-node for a TypeScript project, whose loader runs before tsx's and
 * type-checks every imported source through a language service (28 s and 780 MiB for a two-resource
 * `pulumi preview` here); `TS_NODE_IGNORE` matching every file leaves each one to tsx (12.6 s). Only
 * how the sources are compiled differs: the programs, the CLI and the engine are the real ones.
 */
export const TYPESCRIPT_SOURCES_ENV = {
  NODE_OPTIONS: `--import ${import.meta.resolve("tsx")}`,
  TS_NODE_IGNORE: ".*",
} as const;
