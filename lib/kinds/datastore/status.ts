import * as z from "zod";
import { AGE_COLUMN, type PrinterColumn, READY_COLUMN } from "../../api/crd.js";
import { Connection, ENGINE_STATUS } from "../../api/resource-status.js";

/**
 * The status fields every datastore kind writes beside the engine's: the mode it reached (compared with
 * spec.mode to collect what the former mode made), who owns what it stands for (`owner` says what that
 * is: the datastore, the Redis …), and its connection, the one shape consumers read (`connection` says
 * what it holds for this kind).
 */
export function datastoreStatusFields<Mode extends z.ZodType, const Provenance extends readonly [string, ...string[]]>(
  mode: Mode,
  provenance: Provenance,
  texts: { readonly owner: string; readonly connection: string },
) {
  return {
    ...ENGINE_STATUS,
    mode: mode
      .optional()
      .describe("The mode last reconciled; compared with spec.mode to garbage-collect after a change."),
    provenance: z.enum(provenance).optional().describe(`Who owns ${texts.owner} itself.`),
    connection: Connection.optional().describe(texts.connection),
  };
}

/**
 * The columns `kubectl get` shows of every datastore kind: its type where it has one, mode, provenance
 * and Ready, then `wide` ones (priority 1), then age.
 */
export function datastoreColumns(options: {
  readonly modes: string;
  readonly owner: string;
  readonly type?: boolean;
  readonly wide: readonly PrinterColumn[];
}): PrinterColumn[] {
  const text = (name: string, jsonPath: string, description: string): PrinterColumn => ({
    name,
    type: "string",
    jsonPath,
    description,
  });
  return [
    ...(options.type ? [text("Type", ".spec.type", "Backend")] : []),
    text("Mode", ".spec.mode", options.modes),
    text("Provenance", ".status.provenance", `Who owns ${options.owner}`),
    READY_COLUMN,
    ...options.wide.map((column) => ({ ...column, priority: 1 })),
    AGE_COLUMN,
  ];
}
