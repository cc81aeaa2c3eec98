import { createHash } from "node:crypto";
import { canonicalJson } from "../api/canonical-json.js";
import { type KubeObject, keyOf } from "./objects.js";

/** How many objects a process remembers its last apply of: past it, the longest unused is forgotten. */
export const APPLIED_VERSIONS_REMEMBERED = 10_000;

/** What a process remembers of its last apply of an object: the version it left, a digest of its body. */
interface LastApply {
  readonly resourceVersion: string;
  readonly digest: string;
}

/** Which object: its apiVersion and its key. */
function identity(object: KubeObject): string {
  return `${object.apiVersion}/${keyOf(object)}`;
}

/** A digest of a body as sent: equal for equal content, whatever the order its keys were written in. */
function digestOf(object: KubeObject): string {
  return createHash("sha256").update(canonicalJson(object)).digest("hex");
}

/**
 * The objects this process applied, each with the resourceVersion the apply answered and a digest of the
 * body it sent. An object still at that resourceVersion is what that body made of it, and the same body
 * applied again would change nothing: no request is needed to know it. This is how an apply is judged
 * unchanged when the object's content cannot be read from what the view holds — a Secret from a watch of
 * metadata only carries no `data` for the managed fields to be read in (lib/engine/applied-fields.ts).
 * A resourceVersion is never reused, an object re-created under the same name included. In memory only,
 * and a digest, never the body: a Secret's values stay where they were. After a restart each object is
 * applied once more, as before.
 */
export class AppliedVersions {
  /** By identity, oldest use first: a Map iterates in insertion order, and each use re-inserts. */
  private readonly applied = new Map<string, LastApply>();

  constructor(private readonly limit: number = APPLIED_VERSIONS_REMEMBERED) {}

  /** An apply of `object` answered with the object at `resourceVersion` (undefined: nothing is known). */
  record(object: KubeObject, resourceVersion: string | undefined): void {
    const id = identity(object);
    this.applied.delete(id);
    if (!resourceVersion) return;
    this.applied.set(id, { resourceVersion, digest: digestOf(object) });
    if (this.applied.size > this.limit) {
      const [oldest] = this.applied.keys();
      if (oldest !== undefined) this.applied.delete(oldest);
    }
  }

  /** Whether `live` is at the resourceVersion this process's last apply of exactly `object` left it at. */
  holds(object: KubeObject, live: { readonly metadata?: { readonly resourceVersion?: string } } | undefined): boolean {
    const resourceVersion = live?.metadata?.resourceVersion;
    if (!resourceVersion) return false;
    const id = identity(object);
    const last = this.applied.get(id);
    if (last?.resourceVersion !== resourceVersion || last.digest !== digestOf(object)) return false;
    this.applied.delete(id);
    this.applied.set(id, last);
    return true;
  }
}
