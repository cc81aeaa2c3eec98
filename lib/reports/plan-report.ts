import * as z from "zod";

/** The version of `navique plan -o json`'s shape; the same rule as the status report's (docs/plan.md). */
export const PLAN_REPORT_VERSION = 1;

/** A resource's verdict in a plan (lib/engine/plan-run.ts PlanOutcome: the compiler holds them equal). */
export const PLAN_OUTCOMES = ["in-place", "changes", "waiting", "refused", "stalled"] as const;

/** One resource planned: its verdict and the lines `navique plan` prints for it. */
export const PlannedResource = z
  .object({
    subject: z.string().describe("`Kind namespace/name`, or `License navique`."),
    where: z.string().describe("The file and document it was declared in."),
    outcome: z
      .enum(PLAN_OUTCOMES)
      .describe(
        "in-place: nothing to do; changes: changes planned; waiting: nothing to change but not Ready yet; refused: by the licence; stalled: a cause waiting cannot clear.",
      ),
    lines: z.array(z.string()).describe("The decisions, one a line, as the text output prints them; none in place."),
  })
  .strict();
export type PlannedResource = z.infer<typeof PlannedResource>;

/** `navique plan -o json`: one document on stdout, in this shape. */
export const PlanReport = z
  .object({
    version: z.literal(PLAN_REPORT_VERSION),
    exitCode: z.union([z.literal(0), z.literal(1), z.literal(2)]).describe("The exit code of the run (docs/plan.md)."),
    licence: PlannedResource.optional().describe("The License the paths declare, judged first, when they declare one."),
    resources: z.array(PlannedResource),
    problems: z.array(z.string()).describe("The inputs that could not be judged, each with its file and line."),
    notes: z.array(z.string()).describe("What was said about the inputs and the run without failing it."),
  })
  .strict();
export type PlanReport = z.infer<typeof PlanReport>;
