/**
 * `@navique/ai-core/pulumi` as Node.js loads it from the package: the Node.js check, then the components'
 * bundle (dist/providers/pulumi/index.js, ADR 0018). The check is a module of its own, outside the
 * bundle, because a bundle with code splitting imports its shared chunks before anything of its own:
 * inside it, the check would run after them, and a refusal thrown from it would print a minified line.
 */
import "../../lib/package/require-node.js";

export * from "./index.js";
