import { stringify } from "yaml";
import { allCustomResourceDefinitions } from "./kinds.js";

const HEADER = "# Generated from lib/api by `npm run generate`; do not edit.\n";

/** File name → YAML text of every CRD, deterministic (stable key order, no timestamps). */
export function crdFiles(): Map<string, string> {
  return new Map(
    allCustomResourceDefinitions().map((crd) => [
      `${crd.metadata.name}.yaml`,
      `${HEADER}${stringify(crd, { lineWidth: 0 })}`,
    ]),
  );
}
