import { PACKAGE_NAME, PACKAGE_VERSION } from "../package/manifest.js";
import { parseCommandLine, USAGE_ERROR_EXIT_CODE } from "./command-line.js";
import { COMMANDS } from "./commands.js";

/**
 * `navique`: the command line read against the commands (lib/cli/commands.ts), each of which has its own
 * usage page, options and exit codes; then the command run.
 */
async function main(argv: readonly string[]): Promise<number> {
  const line = parseCommandLine(argv, COMMANDS);
  switch (line.kind) {
    case "usage":
      process.stdout.write(`${line.text}\n`);
      return 0;
    case "version":
      process.stdout.write(`${PACKAGE_NAME} ${PACKAGE_VERSION}\n`);
      return 0;
    case "refused":
      process.stderr.write(`${line.message}\n`);
      return USAGE_ERROR_EXIT_CODE;
    case "run":
      return line.command.run(line.parsed);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`navique: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
