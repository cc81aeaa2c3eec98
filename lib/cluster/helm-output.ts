import { CORE_SCHEMA, loadAll } from "js-yaml";
import { parseAllDocuments } from "yaml";

/**
 * The documents helm printed (`helm template`), as values; an empty document as null. helm has parsed
 * every manifest it prints (it refuses to print one that is not YAML), so what matters here is speed: a
 * chart's CRDs make hundreds of kilobytes, and js-yaml reads them three to four times faster than the
 * yaml package in a process that starts cold (`navique plan` renders a chart per capability it would
 * install: docs/performance.md), by the same YAML 1.2 core schema. Should js-yaml refuse an output, the
 * yaml package reads it, as it read every output before.
 */
export function helmOutputDocuments(manifest: string): unknown[] {
  try {
    return loadAll(manifest, { schema: CORE_SCHEMA });
  } catch {
    return parseAllDocuments(manifest).map((document) => document.toJS());
  }
}
