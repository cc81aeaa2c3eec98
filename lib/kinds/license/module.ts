import { LICENSE_DEFINITION, LICENSE_NAME } from "../../api/license.js";
import type { SingletonModule } from "../../engine/singleton-module.js";
import { reconcileLicense } from "./reconcile.js";

/**
 * License: the cluster's one licence (a singleton named `navique`). It emits nothing; its entitlements
 * gate every other kind, so a change to what is in force re-judges every resource (docs/licence.md).
 */
export const LICENSE_MODULE: SingletonModule = {
  definition: LICENSE_DEFINITION,
  name: LICENSE_NAME,
  reconcile: reconcileLicense,
};
