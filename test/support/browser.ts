import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";

/** Where a browser is looked for: $NAVIQUE_TEST_CHROMIUM, then Debian's chromium package. */
const CANDIDATES = [process.env.NAVIQUE_TEST_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"];

/**
 * A real headless Chromium, driven by playwright-core (no browser download: the machine's own, which
 * .ci/run installs from Debian's packages). Without one, the suite fails saying how to get it.
 */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = CANDIDATES.find((path): path is string => !!path && existsSync(path));
  if (!executablePath)
    throw new Error(
      "no Chromium to test the console in: install Debian's package (apt-get install -y chromium), as .ci/run does, or set NAVIQUE_TEST_CHROMIUM to a Chromium binary",
    );
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
}

/** Where the suites keep what they leave for a person to look at (screenshots): test-artifacts/, ignored by git. */
export async function artifactsDirectory(suite: string): Promise<string> {
  const directory = join(process.env.NAVIQUE_TEST_ARTIFACTS ?? join(process.cwd(), "test-artifacts"), suite);
  await mkdir(directory, { recursive: true });
  return directory;
}
