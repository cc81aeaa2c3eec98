// Written by `npm run image -- OUT_DIR --pin` (providers/operator/image.ts); do not edit.
import type { PinnedImage } from "../api/image-reference.js";

/**
 * The operator's image as the release built it: the chart's default and the NaviqueOperator construct's.
 * The digest is the OCI manifest's of the image `--pin` built from this package (the CLI's bundle never
 * imports this file, so pinning does not change what it pins).
 */
export const OPERATOR_IMAGE: PinnedImage = {
  repository: "ghcr.io/navique/navique-ai-core-operator",
  tag: "0.1.0",
  digest: "sha256:82f8616a3e254575b22591140f9284c2c55b83fb82e9747a52401bd0fb03adc2",
};
