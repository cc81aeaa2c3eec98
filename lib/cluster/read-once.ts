/** One answer to a GET as it was received: what every later asker of the same thing is served again. */
export interface KeptAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Its body as text: every answer of the Kubernetes API is JSON (or a Table, or discovery: JSON too). */
  readonly body: string;
}

/**
 * Whether an answer says something about the cluster (the object, or its absence: 404), rather than
 * about the moment: a server error or a 429 left after the retries is not kept, and the next asker asks
 * again.
 */
function worthKeeping(answer: KeptAnswer): boolean {
  return answer.status < 500 && answer.status !== 429;
}

/**
 * The answers of a client that reads the cluster once (`navique plan`): each GET — an object, a list,
 * discovery — is sent the first time it is asked for, and every later asker, concurrent or not, is served
 * the same answer. A run that changes nothing so judges every resource against one reading of the cluster,
 * and reads each thing once however many resources look at it. Keyed by everything that shapes an answer
 * (the URL with its query, the Accept header).
 */
export class ReadOnce {
  private readonly answers = new Map<string, Promise<KeptAnswer>>();

  /** The answer to `key`: sent by `send` only when none is kept or under way. */
  answer(key: string, send: () => Promise<KeptAnswer>): Promise<KeptAnswer> {
    const kept = this.answers.get(key);
    if (kept !== undefined) return kept;
    const sent = send().then(
      (answer) => {
        if (!worthKeeping(answer)) this.answers.delete(key);
        return answer;
      },
      (error: unknown) => {
        this.answers.delete(key);
        throw error;
      },
    );
    this.answers.set(key, sent);
    return sent;
  }

  /** Forgets every answer: the next asker of anything asks the apiserver again. */
  forget(): void {
    this.answers.clear();
  }
}
