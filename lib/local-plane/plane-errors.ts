/** A plane component did not come up; the message carries the tail of its log. */
export class PlaneStartError extends Error {
  constructor(component: string, reason: string, logTail: string) {
    super(`local control plane: ${component} ${reason}.\nLast lines of its log:\n${logTail}`);
    this.name = "PlaneStartError";
  }
}
