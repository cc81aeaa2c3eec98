import type { SingletonModule } from "../../engine/singleton-module.js";
import { LICENSE_DEFINITION, LICENSE_NAME, licenseName } from "./schema.js";

/**
 * License: the cluster's one licence (a singleton named `navique`). It emits nothing; its entitlements
 * gate every other kind, so a change to what is in force re-judges every resource (docs/licence.md).
 */
export const LICENSE_MODULE: SingletonModule = {
  definition: LICENSE_DEFINITION,
  name: LICENSE_NAME,
  nameRule: licenseName,
  // Loaded when it runs: the registry is imported by every front end, most of which never reconcile a
  // License, and its reconcile pulls the Kubernetes client (half a second of module loading).
  reconcile: async (...args) => (await import("./reconcile.js")).reconcileLicense(...args),
};
