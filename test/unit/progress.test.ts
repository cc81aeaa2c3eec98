import { formatDuration } from "../../lib/local-plane/progress.js";

describe("formatDuration", () => {
  it.each([
    [0, "0s"],
    [59_400, "59s"],
    [60_000, "1m00s"],
    [83_000, "1m23s"],
    [3_725_000, "62m05s"],
  ])("formats %i ms as %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
