import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { REPOSITORY } from "./repository.js";

/** A project the README's "Use it in your project" shows: its files and the commands that set it up and run it. */
export interface ReadmeProject {
  /** The subsection's heading, e.g. "With Pulumi". */
  readonly heading: string;
  /** File name → content: the section's common files, then the subsection's own. */
  readonly files: Readonly<Record<string, string>>;
  /** The lines of the subsection's `sh` block, in order. */
  readonly commands: readonly string[];
}

const SECTION_START = "## Use it in your project";
const SECTION_END = "## What works today";

/** Code blocks carrying a file name: ```lang title="NAME". */
function titledBlocks(text: string): Record<string, string> {
  return Object.fromEntries(
    [...text.matchAll(/```\w+ title="([^"]+)"\n([\s\S]*?)```/g)].map((match) => [match[1] ?? "", match[2] ?? ""]),
  );
}

/** The README's projects, read from the README itself: what the README shows is what the test runs. */
export async function readmeProjects(): Promise<ReadmeProject[]> {
  const readme = await readFile(join(REPOSITORY, "README.md"), "utf8");
  const start = readme.indexOf(SECTION_START);
  const end = readme.indexOf(SECTION_END);
  if (start < 0 || end < start) throw new Error(`README.md has no "${SECTION_START}" section before "${SECTION_END}"`);
  const [common = "", ...subsections] = readme.slice(start, end).split(/^### /m);
  const shared = titledBlocks(common);
  return subsections.map((subsection) => {
    const heading = subsection.slice(0, subsection.indexOf("\n")).trim();
    const sh = [...subsection.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");
    if (sh.length !== 1) throw new Error(`README.md, ### ${heading}: expected one sh block, found ${sh.length}`);
    return {
      heading,
      files: { ...shared, ...titledBlocks(subsection) },
      commands: (sh[0] ?? "").split("\n").filter((line) => line.trim() !== ""),
    };
  });
}

/** The packages an `npm install a b c` line installs, or undefined for another command. */
export function npmInstallPackages(command: string): string[] | undefined {
  const match = /^npm install ((?:[@\w./-]+ ?)+)$/.exec(command.trim());
  return match?.[1]?.trim().split(/\s+/);
}

/**
 * The code blocks of one `### heading` of the README, wherever it stands, in order: each block's language
 * (`sh`, `yaml`, …), its title when it has one (```yaml title="NAME"), and its text. What the README shows
 * outside "Use it in your project" is run by the tests that cover it, read from here.
 */
export async function readmeBlocks(
  heading: string,
): Promise<{ readonly lang: string; readonly title?: string; readonly text: string }[]> {
  const readme = await readFile(join(REPOSITORY, "README.md"), "utf8");
  const start = readme.indexOf(`\n### ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no ### ${heading}`);
  const rest = readme.slice(start + heading.length + 6);
  const next = rest.search(/^##/m);
  const section = next < 0 ? rest : rest.slice(0, next);
  return [...section.matchAll(/```(\w*)(?: title="([^"]+)")?\n([\s\S]*?)```/g)].map((match) => ({
    lang: match[1] ?? "",
    ...(match[2] ? { title: match[2] } : {}),
    text: match[3] ?? "",
  }));
}
