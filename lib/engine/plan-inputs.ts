import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { type Document, LineCounter, parseAllDocuments } from "yaml";
import * as z from "zod";
import { API_GROUP, API_VERSION } from "../api/group.js";
import { closest, parseInput, ValidationError } from "../api/validation.js";
import type { Registry } from "../kinds/registry.js";
import type { EngineResource } from "./kind-module.js";
import type { ObservedGrant } from "./reference-grants.js";

/** A resource of a registered kind, parsed by its schema, with where it was declared. */
export interface DeclaredResource {
  /** `FILE document N (line L)`. */
  readonly where: string;
  readonly resource: EngineResource;
}

/** The licence a file declares: what the plan applies, as if it were applied with the file. */
export interface DeclaredLicence {
  readonly where: string;
  readonly token: string;
}

/**
 * What `navique plan` was given, judged before the cluster is touched: the resources of the product's
 * kinds, the grants and the licence declared with them, and every input it could not judge (`problems`,
 * each a line naming the file, the document and its line, what is wrong and what to do). `notes` say what
 * was skipped on purpose: documents of other API groups, once per file.
 */
export interface PlanInputs {
  readonly resources: readonly DeclaredResource[];
  readonly grants: readonly ObservedGrant[];
  /**
   * The Namespaces the paths declare (skipped like every document of another group, but noted): deleting
   * what the files declare deletes them, and what deletionPolicy Retain keeps in them with them.
   */
  readonly namespaces?: readonly string[];
  readonly licence?: DeclaredLicence;
  readonly problems: readonly string[];
  readonly notes: readonly string[];
}

/** The registry as the inputs are judged by it. */
export type InputRegistry = Pick<Registry, "kinds" | "singleton" | "grants" | "grantSchema" | "managementPlane">;

/** The file extensions read in a directory (a file named on the command line is read whatever its name). */
export const PLAN_FILE_EXTENSIONS: readonly string[] = [".yaml", ".yml"];

const DECODER = new TextDecoder("utf-8", { fatal: true });

/** Text a person wrote, or undefined for binary content: a NUL byte or a byte sequence that is not UTF-8. */
function textOf(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return DECODER.decode(bytes);
  } catch {
    return undefined;
  }
}

/** What a value is, for "expected an object, received …". */
function shapeOf(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (value === null) return "null";
  return `a ${typeof value}`;
}

/** The group of an apiVersion (`apps/v1` → `apps`, `v1` → the core group, ``). */
function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/**
 * The schema a singleton's document is read with (the License, the console's settings): its one name and
 * the spec of its definition.
 */
function singletonSchema<Spec>(singleton: { readonly nameRule: z.ZodType<string> }, spec: z.ZodType<Spec>) {
  return z.object({ metadata: z.object({ name: singleton.nameRule }).loose(), spec }).loose();
}

interface FileJudgement {
  readonly resources: DeclaredResource[];
  readonly grants: ObservedGrant[];
  readonly namespaces: string[];
  readonly licences: DeclaredLicence[];
  readonly problems: string[];
  readonly notes: string[];
}

/** The YAML errors of a document (duplicate keys among them: the yaml package refuses them by default), each with its line. */
function yamlProblems(file: string, text: string, index: number, document: Document, lines: LineCounter): string[] {
  return document.errors.map((error) => {
    const { line, col } = lines.linePos(error.pos[0]);
    const where = `${file}:${line}:${col}: document ${index}`;
    if (error.code === "DUPLICATE_KEY") {
      const key = text.slice(error.pos[0]).split(/[:\n]/)[0]?.trim();
      return `${where}: key "${key}" appears twice in one mapping (other tools silently keep one of the values). Remove one; this document was not planned`;
    }
    const message = error.message.replace(/ at line \d+, column \d+:?[\s\S]*$/, "");
    return `${where}: invalid YAML (${error.code}): ${message}. Correct the YAML; this document was not planned`;
  });
}

/** One document's verdict: what it declares, a problem, skipped (another group's), or nothing (an empty document). */
type DocumentVerdict =
  | { readonly resource: DeclaredResource }
  | { readonly grant: ObservedGrant }
  | { readonly licence: DeclaredLicence }
  | { readonly problem: string }
  | { readonly skipped: string; readonly namespace?: string }
  | { readonly empty: true };

/** A document's apiVersion and kind, or the problem with its shape. */
function headerOf(value: unknown, where: string): { apiVersion: string; kind: string } | { problem: string } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return {
      problem: `${where}: expected a Kubernetes object (a mapping with apiVersion and kind), received ${shapeOf(value)}. Correct the document; it was not planned`,
    };
  }
  const { apiVersion, kind } = value as { apiVersion?: unknown; kind?: unknown };
  if (typeof apiVersion === "string" && typeof kind === "string") return { apiVersion, kind };
  return {
    problem: `${where}: expected a Kubernetes object with apiVersion and kind, received one without ${typeof apiVersion !== "string" ? "apiVersion" : "kind"}. Add it; the document was not planned`,
  };
}

/** Whether a document is the product's to judge: its group and version; a group one typo away is a problem, not another group. */
function groupVerdict(apiVersion: string, kind: string, where: string): DocumentVerdict | undefined {
  const group = groupOf(apiVersion);
  if (group !== API_GROUP) {
    if (group !== "" && closest(group, [API_GROUP])) {
      return {
        problem: `${where}: apiVersion ${apiVersion}: group "${group}" is not the product's; did you mean ${API_GROUP}/${API_VERSION}? Correct it; the document was not planned`,
      };
    }
    return { skipped: `${kind} ${apiVersion}` };
  }
  const version = apiVersion.slice(group.length + 1);
  if (version === API_VERSION) return undefined;
  return {
    problem: `${where}: apiVersion ${apiVersion}: version "${version}" of ${API_GROUP} is not served by this navique (it serves ${API_GROUP}/${API_VERSION}). Write apiVersion: ${API_GROUP}/${API_VERSION}; the document was not planned`,
  };
}

/** A document parsed by `parse`, or its schema's refusal as one problem (every field, what was expected and received). */
function parsedAs<T>(parse: () => T, declared: (value: T) => DocumentVerdict): DocumentVerdict {
  try {
    return declared(parse());
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return { problem: `${error.message}\n  Correct the document; it was not planned` };
  }
}

/** One document judged: of the product's group, by its kind's schema; of another group, skipped. */
function judgeDocument(value: unknown, where: string, registry: InputRegistry): DocumentVerdict {
  // An empty document between two `---` (a trailing one, most often) declares nothing.
  if (value === null || value === undefined) return { empty: true };
  const header = headerOf(value, where);
  if ("problem" in header) return header;
  const { apiVersion, kind } = header;
  const group = groupVerdict(apiVersion, kind, where);
  if (group && "skipped" in group && apiVersion === "v1" && kind === "Namespace") {
    const { name } = (value as { metadata?: { name?: unknown } }).metadata ?? {};
    return typeof name === "string" ? { ...group, namespace: name } : group;
  }
  if (group) return group;
  const module = registry.kinds.find((m) => m.definition.kind === kind);
  if (module)
    return parsedAs(
      () => parseInput(module.schema, value, where),
      (resource) => ({ resource: { where, resource } }),
    );
  if (kind === registry.grants.kind) {
    return parsedAs(
      () => parseInput(registry.grantSchema, value, where),
      (grant) => ({ grant: { namespace: grant.metadata.namespace, spec: grant.spec } }),
    );
  }
  if (kind === registry.singleton.definition.kind) {
    return parsedAs(
      () =>
        parseInput(
          singletonSchema(registry.singleton, registry.singleton.definition.spec as z.ZodType<{ token: string }>),
          value,
          where,
        ),
      (licence) => ({ licence: { where, token: licence.spec.token } }),
    );
  }
  if (kind === registry.managementPlane.definition.kind) {
    // The console's settings: judged as the apiserver will judge them, then nothing to plan (the operator
    // chart and the NaviqueOperator construct declare one).
    return parsedAs(
      () =>
        parseInput(singletonSchema(registry.managementPlane, registry.managementPlane.definition.spec), value, where),
      () => ({ skipped: `${kind} ${apiVersion}` }),
    );
  }
  const kinds = [
    ...registry.kinds.map((m) => m.definition.kind),
    registry.singleton.definition.kind,
    registry.grants.kind,
    registry.managementPlane.definition.kind,
  ];
  const near = closest(kind, kinds);
  return {
    problem: `${where}: kind "${kind}" is not a kind of ${API_GROUP}/${API_VERSION}${near ? ` (did you mean "${near}"?)` : ""}; its kinds are ${kinds.join(", ")}. Correct the kind; the document was not planned`,
  };
}

/**
 * Judges one file's content: every document of the product's group parsed by its kind's schema,
 * everything it cannot judge said with the file, the document's index and its line.
 */
export function judgeFile(file: string, bytes: Uint8Array, registry: InputRegistry): FileJudgement {
  const judged: FileJudgement = { resources: [], grants: [], namespaces: [], licences: [], problems: [], notes: [] };
  const text = textOf(bytes);
  if (text === undefined) {
    judged.problems.push(
      `${file}: binary content, not UTF-8 text: plan reads YAML (e.g. cdk8s synth output). Remove it from the paths given to plan`,
    );
    return judged;
  }
  const lines = new LineCounter();
  const documents = parseAllDocuments(text, { lineCounter: lines, prettyErrors: false });
  const present = documents.filter((d) => d.errors.length > 0 || (d.contents !== null && d.toJS() != null));
  if (present.length === 0) {
    judged.problems.push(
      `${file}: empty: it holds no YAML document. Write the resources into it, or remove it from the paths given to plan`,
    );
    return judged;
  }
  const skipped = new Map<string, number>();
  documents.forEach((document, position) => {
    const index = position + 1;
    // The line of its first content, not of the `---` before it.
    const { line } = lines.linePos(document.contents?.range[0] ?? document.range[0]);
    if (document.errors.length > 0) {
      judged.problems.push(...yamlProblems(file, text, index, document, lines));
      return;
    }
    const verdict = judgeDocument(document.toJS(), `${file} document ${index} (line ${line})`, registry);
    if ("skipped" in verdict) {
      skipped.set(verdict.skipped, (skipped.get(verdict.skipped) ?? 0) + 1);
      if (verdict.namespace) judged.namespaces.push(verdict.namespace);
    } else if ("problem" in verdict) judged.problems.push(verdict.problem);
    else if ("resource" in verdict) judged.resources.push(verdict.resource);
    else if ("grant" in verdict) judged.grants.push(verdict.grant);
    else if ("licence" in verdict) judged.licences.push(verdict.licence);
  });
  if (skipped.size > 0) {
    const count = [...skipped.values()].reduce((a, b) => a + b, 0);
    const kinds = [...skipped.entries()].map(([what, n]) => (n > 1 ? `${n} ${what}` : what)).join(", ");
    judged.notes.push(
      `${file}: ${count} document(s) of other API groups skipped (${kinds}): plan judges only ${API_GROUP} resources`,
    );
  }
  return judged;
}

/** Resources declared twice (the same kind, namespace and name): the later one would replace the earlier. */
function duplicates(resources: readonly DeclaredResource[]): string[] {
  const first = new Map<string, string>();
  const problems: string[] = [];
  for (const { where, resource } of resources) {
    const key = `${resource.kind} ${resource.metadata.namespace}/${resource.metadata.name}`;
    const earlier = first.get(key);
    if (earlier) {
      problems.push(
        `${where}: ${key} is declared again (first in ${earlier}): applied together, one would replace the other. Keep one; neither was planned`,
      );
    } else first.set(key, where);
  }
  return problems;
}

/** Two licences: only one License exists per cluster. */
function licenceOf(
  licences: readonly DeclaredLicence[],
  kind: string,
): { licence?: DeclaredLicence; problems: string[] } {
  const [first, ...others] = licences;
  if (!first) return { problems: [] };
  const differing = others.filter((l) => l.token !== first.token);
  if (differing.length === 0) return { licence: first, problems: [] };
  return {
    problems: differing.map(
      (l) =>
        `${l.where}: a second ${kind} with another token (first in ${first.where}): a cluster has one. Keep one; no licence of the paths was applied`,
    ),
  };
}

/** Merges the judgements of every file; resources declared twice are reported and left out. */
export function mergeJudgements(judgements: readonly FileJudgement[], registry: InputRegistry): PlanInputs {
  const resources = judgements.flatMap((j) => j.resources);
  const doubled = duplicates(resources);
  const keyOf = (r: DeclaredResource) =>
    `${r.resource.kind} ${r.resource.metadata.namespace}/${r.resource.metadata.name}`;
  const twice = new Set(resources.filter((r, i) => resources.findIndex((o) => keyOf(o) === keyOf(r)) !== i).map(keyOf));
  const { licence, problems: licenceProblems } = licenceOf(
    judgements.flatMap((j) => j.licences),
    registry.singleton.definition.kind,
  );
  return {
    resources: resources.filter((r) => !twice.has(keyOf(r))),
    grants: judgements.flatMap((j) => j.grants),
    namespaces: [...new Set(judgements.flatMap((j) => j.namespaces))],
    ...(licence ? { licence } : {}),
    problems: [...judgements.flatMap((j) => j.problems), ...doubled, ...licenceProblems],
    notes: judgements.flatMap((j) => j.notes),
  };
}

/** The YAML files under a directory, recursively, in a stable order. */
async function yamlFilesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const sorted = [...entries].sort((a, b) => a.name.localeCompare(b.name));
  const files: string[] = [];
  for (const entry of sorted) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) files.push(...(await yamlFilesUnder(path)));
    else if (entry.isFile() && PLAN_FILE_EXTENSIONS.some((ext) => entry.name.endsWith(ext))) files.push(path);
  }
  return files;
}

/**
 * Reads and judges every path: a file as it is named, a directory through its YAML files (*.yaml, *.yml)
 * at any depth. A path that cannot be read is a problem like any other: plan says it and goes on.
 */
export async function readPlanInputs(paths: readonly string[], registry: InputRegistry): Promise<PlanInputs> {
  const judgements: FileJudgement[] = [];
  const unreadable = (problem: string): FileJudgement => ({
    resources: [],
    grants: [],
    namespaces: [],
    licences: [],
    problems: [problem],
    notes: [],
  });
  for (const path of paths) {
    let kind: Awaited<ReturnType<typeof stat>>;
    try {
      kind = await stat(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      judgements.push(unreadable(`${path}: cannot be read (${code}). Name an existing YAML file or directory`));
      continue;
    }
    const files = kind.isDirectory() ? await yamlFilesUnder(path) : [path];
    if (kind.isDirectory() && files.length === 0) {
      judgements.push(
        unreadable(
          `${path}: a directory without any ${PLAN_FILE_EXTENSIONS.join(" or ")} file, at any depth. Name the directory that holds the resources`,
        ),
      );
    }
    for (const file of files) judgements.push(judgeFile(file, await readFile(file), registry));
  }
  return mergeJudgements(judgements, registry);
}
