/**
 * Controller identity by image: does a container image come from one of a capability's upstream image
 * repositories, pulled from the upstream registry or from any mirror of it (air-gapped clusters)?
 */

/** An image repository split at its registry host: `ghcr.io/org/name` → host `ghcr.io`, path `org/name`. */
export interface ImageRepository {
  readonly host: string;
  readonly path: string;
}

/**
 * `ghcr.io/org/name:1.2@sha256:…` → `{ host: "ghcr.io", path: "org/name" }`. A first segment names a
 * registry only when it looks like a host (a dot, a port or `localhost`), as the container runtimes
 * read it; otherwise the image is Docker Hub's, and a single name is one of its `library/` images.
 */
export function parseImageRepository(image: string): ImageRepository {
  const withoutDigest = image.split("@")[0] ?? image;
  const lastSlash = withoutDigest.lastIndexOf("/");
  const colon = withoutDigest.lastIndexOf(":");
  const repository = colon > lastSlash ? withoutDigest.slice(0, colon) : withoutDigest;
  const slash = repository.indexOf("/");
  const firstSegment = slash === -1 ? repository : repository.slice(0, slash);
  const hasRegistry =
    slash !== -1 && (firstSegment.includes(".") || firstSegment.includes(":") || firstSegment === "localhost");
  if (hasRegistry) return { host: firstSegment, path: repository.slice(slash + 1) };
  return { host: "docker.io", path: slash === -1 ? `library/${repository}` : repository };
}

/** The image's repository as one string, registry host included: `docker.io/library/nginx`. */
export function imageRepository(image: string): string {
  const { host, path } = parseImageRepository(image);
  return `${host}/${path}`;
}

/**
 * Whether `image` is the upstream repository `upstream` (an identity of the catalog, e.g.
 * `ghcr.io/cloudnative-pg/cloudnative-pg`), whatever registry serves it. The registry host is ignored;
 * the path after it must END with the whole upstream path, at a segment boundary:
 * `mirror.example.com/cloudnative-pg/cloudnative-pg` and `registry.local:5000/ghcr.io/cloudnative-pg/cloudnative-pg`
 * (a proxy that keeps the upstream host as a prefix) match, `mirror/cloudnative-pg` (the last segment
 * alone, which any project may be called) and `mirror/xcloudnative-pg/cloudnative-pg` do not. A
 * Docker Hub official image (`docker.io/library/nginx`) is also matched by a mirror that drops the
 * implicit `library/` (`mirror.local/nginx`), but only as the whole path: never `someone/nginx`.
 */
export function matchesUpstreamImage(image: string, upstream: string): boolean {
  const wanted = parseImageRepository(`${upstream}:tag`);
  const found = parseImageRepository(image);
  if (found.path === wanted.path || found.path.endsWith(`/${wanted.path}`)) return true;
  if (wanted.host === "docker.io" && wanted.path.startsWith("library/")) {
    return found.path === wanted.path.slice("library/".length);
  }
  return false;
}

/** The first of the `upstream` repositories the image comes from, if any. */
export function matchingUpstreamImage(image: string, upstream: readonly string[]): string | undefined {
  return upstream.find((candidate) => matchesUpstreamImage(image, candidate));
}
