/**
 * Imported first by each library entry point: ES modules evaluate their imports in order, so this runs
 * before any dependency that an older Node.js could fail on.
 */
import { assertNodeVersion } from "./node-requirement.js";

assertNodeVersion();
