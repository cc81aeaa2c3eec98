import { inspect } from "node:util";

/**
 * The first line of the one error cdk8s's App throws when a construct's validation fails (cdk8s
 * src/app.ts, `validate`): then one `[construct path] problem` line per problem.
 */
export const SYNTH_REFUSAL_HEADING = "Validation failed with the following errors:";

/** Whether `error` is cdk8s's refusal of an app's constructs, by its first line. */
function isSynthRefusal(error: unknown): error is Error {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === "string" && message.startsWith(SYNTH_REFUSAL_HEADING);
}

let armed = false;

/**
 * For the synth under way: should its refusal go uncaught — a user's `app.synth()` at the top of their
 * program, run by `cdk8s synth` —, print it as it is, every problem with its construct path, field,
 * expected and received value and what to do, and exit 1, as Node would, but without the stack trace and
 * the source line Node prints around an uncaught error (they point into cdk8s, not at the props at
 * fault). A program that catches the error gets cdk8s's own, unchanged.
 *
 * Armed when synth starts validating (the root's validation: constructs/app-declarations.ts) and disarmed
 * at the next turn of the event loop: an uncaught error of the synth reaches Node's handler before that,
 * from a synchronous call as from a promise (an ES module's top level), and after it this listener is
 * gone, leaving every later error to Node's own handling. Any other error it catches meanwhile is printed
 * whole, its stack included, and ends the process, as Node would have.
 */
export function printUncaughtRefusalAlone(): void {
  if (armed) return;
  armed = true;
  const disarm = () => {
    armed = false;
    process.off("uncaughtException", onUncaught);
    clearImmediate(timer);
  };
  const onUncaught = (error: unknown) => {
    disarm();
    if (isSynthRefusal(error)) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    // Not ours to shorten. With no other listener, Node would have printed it and exited 1: so it is.
    if (process.listenerCount("uncaughtException") === 0) {
      process.stderr.write(`${inspect(error)}\n`);
      process.exit(1);
    }
  };
  process.on("uncaughtException", onUncaught);
  const timer = setImmediate(disarm);
  // Never what keeps a program running.
  timer.unref();
}
