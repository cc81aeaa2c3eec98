/** The width text reports and usage pages are wrapped at: a terminal of 100 columns keeps every line whole. */
export const TEXT_WIDTH = 100;

/**
 * `text` wrapped at TEXT_WIDTH, each line after `indent` spaces (the first after `firstIndent`); a word
 * longer than a line (a path, a URL) stays whole on a line of its own.
 */
export function wrap(text: string, indent: number, firstIndent = indent): string {
  const lines: string[] = [];
  let line = "";
  let pad = firstIndent;
  for (const word of text.split(/\s+/).filter((w) => w.length > 0)) {
    if (line.length > 0 && pad + line.length + 1 + word.length > TEXT_WIDTH) {
      lines.push(`${" ".repeat(pad)}${line}`);
      line = word;
      pad = indent;
    } else {
      line = line.length > 0 ? `${line} ${word}` : word;
    }
  }
  if (line.length > 0) lines.push(`${" ".repeat(pad)}${line}`);
  return lines.join("\n");
}

/** One row of a table, and the lines printed under it (a message, indented and wrapped). */
export interface TableRow {
  readonly cells: readonly string[];
  readonly below?: readonly string[];
}

/** Indentation of the lines under a row: they read as belonging to it. */
const BELOW_INDENT = 4;

/**
 * A table as kubectl prints one: upper-case headers, columns as wide as their widest cell and two spaces
 * apart, the last column unpadded; the lines under a row indented and wrapped.
 */
export function table(headers: readonly string[], rows: readonly TableRow[]): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((r) => (r.cells[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [
    line(headers.map((h) => h.toUpperCase())),
    ...rows.flatMap((row) => [line(row.cells), ...(row.below ?? []).map((text) => wrap(text, BELOW_INDENT))]),
  ].join("\n");
}
