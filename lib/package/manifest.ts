import manifest from "../../package.json" with { type: "json" };

/** The package's own facts, from its package.json: one place for the version and the Node it needs. */
export const PACKAGE_NAME: string = manifest.name;
export const PACKAGE_VERSION: string = manifest.version;
/** `engines.node` of package.json, e.g. ">=22.19". */
export const NODE_REQUIREMENT: string = manifest.engines.node;
