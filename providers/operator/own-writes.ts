/**
 * The resourceVersions of the status writes this operator made, kept until its watch cache holds them.
 * A pass reads its resource from the cache, and writes a status only when it differs from the status it
 * read: a copy older than the operator's own last write would hide that write — the pass would find its
 * new status "unchanged" against the stale one and write nothing, leaving on the resource what an earlier
 * pass said. Until the cache has caught up, the resource is read from the apiserver instead.
 */
export class OwnWrites {
  private readonly written = new Map<string, string>();

  /** A status write of the resource `key` made `resourceVersion`. */
  wrote(key: string, resourceVersion: string): void {
    this.written.set(key, resourceVersion);
  }

  /**
   * Whether a cached copy of `key` at `cachedVersion` holds every write this operator made to it. The
   * apiserver's resourceVersions are etcd revisions, decimal integers that only grow; one that is not
   * (another storage) is never taken as current, and the resource is read from the apiserver.
   */
  holds(key: string, cachedVersion: string | undefined): boolean {
    const written = this.written.get(key);
    if (written === undefined) return true;
    if (cachedVersion === undefined || !DECIMAL.test(cachedVersion) || !DECIMAL.test(written)) return false;
    if (BigInt(cachedVersion) < BigInt(written)) return false;
    this.written.delete(key);
    return true;
  }

  /** The resource is gone: nothing of it to wait for. */
  forget(key: string): void {
    this.written.delete(key);
  }
}

const DECIMAL = /^\d+$/;
