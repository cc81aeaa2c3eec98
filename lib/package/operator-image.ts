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
  digest: "sha256:d153b1c9af7f224a7a45acc9ac3271795ce041fb9a59f04cdd4bc3c098b67ce5",
};
