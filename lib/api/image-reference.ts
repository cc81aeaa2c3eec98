import * as z from "zod";

/**
 * Longest image reference: the distribution project's reference package bounds a repository name at 255
 * characters (NameTotalLengthMax), a tag at 128, and a sha256 digest is `@sha256:` and 64 hex digits.
 */
export const MAX_IMAGE_REFERENCE = 255 + ":".length + 128 + "@sha256:".length + 64;

/**
 * The parts of an image reference, in the grammar of the distribution project's reference package:
 * `[registry[:port]/]path` with lowercase path components, a tag of at most 128 characters, a sha256
 * digest. Sources of the patterns below and of the operator chart's `image` values.
 */
export const IMAGE_REPOSITORY =
  "([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*(:[0-9]+)?\\/)?[a-z0-9]+([._-]+[a-z0-9]+)*(\\/[a-z0-9]+([._-]+[a-z0-9]+)*)*";
export const IMAGE_TAG = "[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}";
export const IMAGE_DIGEST = "sha256:[a-f0-9]{64}";

/**
 * A container image reference as the container runtimes read it: `[registry[:port]/]path[:tag][@sha256:…]`
 * (the grammar of the distribution project's reference package, lowercase path components). A digest
 * pins the content; a tag alone does not.
 */
export const imageReference = z
  .string()
  .max(MAX_IMAGE_REFERENCE)
  .regex(new RegExp(`^${IMAGE_REPOSITORY}(:${IMAGE_TAG})?(@${IMAGE_DIGEST})?$`), {
    message: "must be an image reference: REGISTRY/PATH:TAG, optionally pinned with @sha256:<64 hex digits>",
  });

/** An image pinned by tag and digest, as the chart's values hold it. */
export interface PinnedImage {
  readonly repository: string;
  readonly tag: string;
  readonly digest: string;
}

/** `repository:tag@digest`: what a Deployment names, so that the tag is read and the digest enforced. */
export function pinnedReference(image: PinnedImage): string {
  return `${image.repository}:${image.tag}@${image.digest}`;
}
