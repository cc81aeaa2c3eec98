#!/usr/bin/env node
/**
 * The `navique` executable. The Node.js version is checked before the CLI's modules are even loaded, so
 * that an older Node.js gets one line saying what is needed rather than an error from a dependency.
 */
import "../package/require-node.js";

await import("./main.js");
