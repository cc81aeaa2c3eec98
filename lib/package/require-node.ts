/**
 * Imported first by every entry point (the library's, the Pulumi bundles' entry modules and the bin): ES
 * modules evaluate their imports in order, so this runs before any dependency that an older Node.js could
 * fail on. The refusal is one line on stderr and exit code 1 rather than a thrown error: Node.js prints an
 * uncaught error with the source line that threw (in a bundle, a whole minified line) and its stack, which
 * would bury the one thing the user must do.
 */
import { assertNodeVersion } from "./node-requirement.js";

try {
  assertNodeVersion();
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
