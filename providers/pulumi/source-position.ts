import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

/** This front end's own directory: its frames are not where the user declared a resource. */
const FRONT_END = dirname(fileURLToPath(import.meta.url));

function fileOf(site: NodeJS.CallSite): string | undefined {
  const file = site.getFileName() ?? undefined;
  return file?.startsWith("file:") ? fileURLToPath(file) : file;
}

/**
 * Makes the stack trace Pulumi reads while a resource of this front end is constructed name the user's
 * code, by path. Pulumi records a resource's source position from `new Error().stack`, taking the file
 * as a path: an ES module's frames are file URLs, which it records as a path under the project joined
 * with the URL (`project:///bin/file:/home/…`), a path of the machine in the state. Frames here are
 * given as paths, and the frames of this front end are left out, so that the position is the user's
 * `new PostgresCluster(…)`, relative to the project like any other. Returns the function that restores
 * the previous formatter; call it in a `finally` around `super(…)`.
 */
export function tellPulumiTheUsersPosition(): () => void {
  const previous = Error.prepareStackTrace;
  Error.prepareStackTrace = (error, sites) => {
    const frames = sites
      .filter((site) => !fileOf(site)?.startsWith(FRONT_END))
      .map((site) => {
        const file = fileOf(site);
        const where = file ? `${file}:${site.getLineNumber()}:${site.getColumnNumber()}` : "<anonymous>";
        return `    at ${site.getFunctionName() ?? "<anonymous>"} (${where})`;
      });
    return [`${error}`, ...frames].join("\n");
  };
  return () => {
    Error.prepareStackTrace = previous;
  };
}
