import type { KubeClient } from "./kube-client.js";

/**
 * A server-side Table without the objects (`includeObject=None`): one row of printed columns per object.
 * The columns of a built-in kind without printer columns of its own are Name and Created At, so a row
 * weighs tens of bytes where even a metadata-only list carries each object's labels, annotations and
 * managed fields (1.5–2 kB per CRD).
 */
const TABLE_WITHOUT_OBJECTS = "application/json;as=Table;g=meta.k8s.io;v=v1";

interface Table {
  readonly kind?: string;
  readonly columnDefinitions?: readonly { readonly name?: string; readonly format?: string }[];
  readonly rows?: readonly { readonly cells?: readonly unknown[] }[];
}

/**
 * The names of every object at a collection path (e.g. `/apis/apiextensions.k8s.io/v1/customresourcedefinitions`),
 * in one request whose size grows with the number of objects only, never with what they hold.
 */
export async function objectNames(client: KubeClient, collectionPath: string): Promise<ReadonlySet<string>> {
  const answer = await client.get(`${collectionPath}?includeObject=None`, TABLE_WITHOUT_OBJECTS);
  const table = JSON.parse(answer.body) as Table;
  const column = (table.columnDefinitions ?? []).findIndex((c) => c.format === "name");
  if (table.kind !== "Table" || column < 0)
    throw new Error(
      `GET ${collectionPath} as a Table answered ${table.kind ?? "no kind"} without a name column: the apiserver must serve meta.k8s.io/v1 Tables (Kubernetes 1.15 or later)`,
    );
  const names = new Set<string>();
  for (const row of table.rows ?? []) {
    const name = row.cells?.[column];
    if (typeof name === "string") names.add(name);
  }
  return names;
}
