import { NODE_REQUIREMENT, PACKAGE_NAME } from "./manifest.js";

/**
 * Fails at once, naming the Node.js found and the one needed, when the running Node.js is older than
 * `engines.node` (">=MAJOR.MINOR"): npm only warns about engines, and what an older Node.js breaks on
 * first is an unrelated-looking error deep in a dependency. Called before anything else by
 * every entry point (require-node.ts; the CLI's bin.ts).
 */
export function assertNodeVersion(version: string = process.versions.node): void {
  const required = /^>=(\d+)\.(\d+)$/.exec(NODE_REQUIREMENT);
  if (!required)
    throw new Error(`${PACKAGE_NAME}: engines.node "${NODE_REQUIREMENT}" is not of the form >=MAJOR.MINOR`);
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const [needMajor, needMinor] = [Number(required[1]), Number(required[2])];
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return;
  throw new Error(
    `${PACKAGE_NAME} needs Node.js ${NODE_REQUIREMENT.slice(2)} or later; this is Node.js ${version} (${process.execPath}). ` +
      "Install a newer Node.js (or run through npm with the `node` package as a dependency) and try again.",
  );
}
