import type { KubernetesObject } from "@kubernetes/client-node";
import type { KubeObject } from "../../lib/engine/objects.js";
import type { ObjectKey } from "../../lib/engine/observe.js";

/** What the operator's metadata-only watch of Secrets holds for a namespace, and whether it is complete. */
export interface SecretMetadata {
  readonly synced: boolean;
  get(name: string, namespace: string): KubernetesObject | undefined;
}

/**
 * The users' Secrets the passes read — an external datastore's connection Secret, an adopted one's
 * credentials, a workload's provider keys. They carry no mark of the product, so no label-selected watch
 * holds them, and a full watch of every Secret would keep every credential of the cluster in this
 * process. A metadata-only watch of Secrets says when one changes: the copy a pass read is served to the
 * next passes while that watch shows the Secret at the same resourceVersion, and the resources that read a
 * Secret are re-queued when it is created, changed or deleted (a missing connection Secret created is
 * seen at once, not at the resync). Only the Secrets some pass read are kept.
 */
export class UserSecrets {
  /** By `namespace/name`: the last copy a pass read. */
  private readonly copies = new Map<string, KubeObject>();
  /** By `namespace/name`: the resources whose passes read it, present or not. */
  private readonly readers = new Map<string, Set<string>>();

  constructor(private readonly metadata: (namespace: string) => SecretMetadata | undefined) {}

  /** The Secret for `reader`'s pass: the kept copy while the watch shows it unchanged, else `read`. */
  async read(key: ObjectKey, reader: string, read: () => Promise<KubeObject | undefined>) {
    const id = `${key.namespace}/${key.name}`;
    const readers = this.readers.get(id) ?? new Set<string>();
    readers.add(reader);
    this.readers.set(id, readers);
    const watched = this.metadata(key.namespace);
    const now = watched?.synced ? watched.get(key.name, key.namespace)?.metadata?.resourceVersion : undefined;
    const copy = this.copies.get(id);
    if (copy && now !== undefined && copy.metadata.resourceVersion === now) return copy;
    const found = await read();
    if (!found?.metadata.resourceVersion) {
      this.copies.delete(id);
      return found;
    }
    // Kept for the passes, which read its keys: not who wrote them (a thousand copies held, not their history).
    const { managedFields: _, ...metadata } = found.metadata;
    const kept = { ...found, metadata };
    this.copies.set(id, kept);
    return kept;
  }

  /** A watch event of a Secret: the resources that read it, to re-queue; its copy dropped when outdated. */
  changed(secret: KubernetesObject, event: string): readonly string[] {
    const { name, namespace, resourceVersion } = secret.metadata ?? {};
    const id = `${namespace}/${name}`;
    const copy = this.copies.get(id);
    if (copy && (event === "delete" || copy.metadata.resourceVersion !== resourceVersion)) this.copies.delete(id);
    // A pass's own copy seen again (the watch catching up with the read) tells nobody anything.
    if (copy && event !== "delete" && copy.metadata.resourceVersion === resourceVersion) return [];
    return [...(this.readers.get(id) ?? [])];
  }

  /** A resource gone: it reads nothing any more. */
  forget(reader: string): void {
    for (const [id, readers] of this.readers) {
      readers.delete(reader);
      if (readers.size === 0) {
        this.readers.delete(id);
        this.copies.delete(id);
      }
    }
  }
}
