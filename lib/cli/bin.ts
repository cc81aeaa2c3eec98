#!/usr/bin/env node
/**
 * The `navique` executable. The Node.js version is checked before the CLI's modules are even loaded, so
 * that an older Node.js gets one line saying what is needed rather than an error from a dependency.
 */
import { assertNodeVersion } from "../package/node-requirement.js";

try {
  assertNodeVersion();
} catch (error) {
  process.stderr.write(`navique: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
await import("./main.js");
