/** How a command prints its report: a readable text for people, or one JSON document for scripts. */
export const OUTPUT_FORMATS = ["text", "json"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** `-o text|json`. @default "text" */
export function parseOutputFormat(flag: string | undefined): OutputFormat {
  if (flag === undefined) return "text";
  const format = OUTPUT_FORMATS.find((f) => f === flag);
  if (!format)
    throw new Error(
      `-o ${flag}: expected ${OUTPUT_FORMATS.join(" or ")}, e.g. -o json for one JSON document on stdout`,
    );
  return format;
}

/** One JSON document on stdout, keys in the order the report's schema gives them, and a final newline. */
export function writeJson(document: unknown): void {
  process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
}
