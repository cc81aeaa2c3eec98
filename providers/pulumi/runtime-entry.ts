/**
 * `@navique/ai-core/pulumi/runtime` as Node.js loads it from the package: the Node.js check, then the
 * runtime's bundle (dist/providers/pulumi/runtime.js, ADR 0018), as entry.ts does for the components.
 */
import "../../lib/package/require-node.js";

export * from "./runtime.js";
